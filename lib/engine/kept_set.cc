#include "lib/engine/kept_set.hpp"

#include <cmath>

#include "lib/engine/steps.hpp"
#include "simd/compact.hpp"

namespace exactsample {
namespace {

// Whether piece k of K's running sums can hold an e >= threshold. With sums
// s before and s' after a piece of L terms e_j >= 0, sum(e_j) <= fl(s' - s)
// + (L + 1) 2^-53 Z (each addition rounds by at most half an ulp of a
// partial sum <= Z, the difference by half an ulp of itself); the slack
// below is 8 times that, plus 2^-1000 for underflow, so a piece whose
// fl(s' - s) + slack is below the threshold holds no such e.
class PieceBound {
 public:
  explicit PieceBound(const KeptSet& kept)
      : sums_(*kept.sums),
        slack_(kept.z * std::ldexp(static_cast<double>(sums_.pieces.length + 2), -50) +
               0x1p-1000) {}
  double MassBound(size_t k) const { return sums_.at[k + 1] - sums_.at[k] + slack_; }
  bool MayHold(size_t k, double threshold) const { return MassBound(k) >= threshold; }
  const RowPieces& pieces() const { return sums_.pieces; }

 private:
  const RowSums& sums_;
  double slack_;
};

}  // namespace

size_t PrefixIds(const KeptSet& kept, double threshold, detail::WorkspaceImpl& ws) {
  const size_t capacity = CompactCapacity(kept.n);
  if (!kept.sums) {
    return simd::CompactAtLeast(kept.e, kept.n, threshold, ws.ids.data(), capacity);
  }
  // Only the runs of pieces that can hold such an e are read.
  const PieceBound bound(kept);
  const RowPieces& pieces = bound.pieces();
  size_t count = 0;
  for (size_t k = 0; k < pieces.count;) {
    if (!bound.MayHold(k, threshold)) {
      ++k;
      continue;
    }
    size_t end = k + 1;
    while (end < pieces.count && bound.MayHold(end, threshold)) ++end;
    const size_t begin = pieces.Begin(k);
    const size_t stop = end == pieces.count ? pieces.n : pieces.Begin(end);
    const size_t found = simd::CompactAtLeast(kept.e + begin, stop - begin, threshold,
                                              ws.ids.data() + count, capacity - count);
    if (found > capacity - count) return capacity + 1;
    for (size_t j = count; j < count + found; ++j) ws.ids[j] += static_cast<uint32_t>(begin);
    count += found;
    k = end;
  }
  return count;
}

void MovePrefix(KeptSet& kept, size_t count, detail::WorkspaceImpl& ws) {
  ws.top.resize(count);
  ws.top_l.resize(count);
  ws.top_e.resize(count);
  for (size_t j = 0; j < count; ++j) {
    const uint32_t i = ws.ids[j];
    ws.top[j] = kept.Id(i);
    if (kept.l != nullptr) ws.top_l[j] = kept.l[i];
    ws.top_e[j] = kept.e[i];
  }
  if (kept.l == nullptr) kept.row->AtAscending(ws.top.data(), count, ws.top_l.data());
  kept = {ws.top_l.data(), ws.top_e.data(), count, ws.top.data(), kept.z, std::nullopt};
}

bool CompactPrefix(KeptSet& kept, double threshold, detail::WorkspaceImpl& ws) {
  const size_t count = PrefixIds(kept, threshold, ws);
  if (count > CompactCapacity(kept.n)) return false;
  MovePrefix(kept, count, ws);
  return true;
}

}  // namespace exactsample
