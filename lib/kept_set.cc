#include "lib/kept_set.hpp"

#include "simd/compact.hpp"

namespace exactsample {

bool CompactPrefix(KeptSet& kept, double threshold, detail::WorkspaceImpl& ws) {
  const size_t capacity = CompactCapacity(kept.n);
  const size_t count =
      simd::CompactAtLeast(kept.e, kept.n, threshold, ws.ids.data(), capacity);
  if (count > capacity) return false;
  ws.top.resize(count);
  ws.top_l.resize(count);
  ws.top_e.resize(count);
  for (size_t j = 0; j < count; ++j) {
    const uint32_t i = ws.ids[j];
    ws.top[j] = kept.Id(i);
    ws.top_l[j] = kept.l[i];
    ws.top_e[j] = kept.e[i];
  }
  kept = {ws.top_l.data(), ws.top_e.data(), count, ws.top.data(), kept.z, std::nullopt};
  return true;
}

}  // namespace exactsample
