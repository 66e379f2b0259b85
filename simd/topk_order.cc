#include "simd/topk_order.hpp"

#include <algorithm>
#include <bit>

namespace exactsample::simd::topk {
namespace {

// From this many ids on, the radix passes beat std::sort: std::sort is
// faster for fewer, and slower once the l of the ids no longer fit in L2
// (both read l by id).
constexpr size_t kRadixMin = 4096;

// An unsigned key that sorts ascending where t sorts descending; -0.0 and
// +0.0 (equal under ==) get the same key.
uint64_t DescendingKey(double t) {
  const uint64_t u = std::bit_cast<uint64_t>(t + 0.0);  // -0.0 + 0.0 = +0.0
  const uint64_t ascending = (u >> 63) != 0 ? ~u : u | (uint64_t{1} << 63);
  return ~ascending;
}

// LSD radix sort by the 12 bytes (descending key of t, id), least
// significant first: the 4 bytes of the id, then the 8 of the key. Every
// pass is stable, so the result is (t desc, id asc). Keys are recomputed
// from l in each pass instead of stored: the scratch holds ids only.
// Ping-pongs between ids and out; returns the buffer holding the result.
template <class T>
int32_t* RadixSort(const Order<T>& order, int32_t* ids, size_t count, int32_t* out) {
  constexpr int kDigits = 12;  // 4 bytes of id, then 8 bytes of key
  auto key_of = [&](int32_t id) { return DescendingKey(order.At(id)); };
  uint32_t hist[kDigits][256] = {};
  for (size_t j = 0; j < count; ++j) {
    const uint32_t id = static_cast<uint32_t>(ids[j]);
    const uint64_t key = key_of(ids[j]);
    for (int d = 0; d < 4; ++d) ++hist[d][(id >> (8 * d)) & 255];
    for (int d = 0; d < 8; ++d) ++hist[4 + d][(key >> (8 * d)) & 255];
  }
  // Ids in ascending order (no cut reordered them) need no id passes.
  const int first = std::is_sorted(ids, ids + count) ? 4 : 0;
  int32_t* src = ids;
  int32_t* dst = out;
  for (int d = first; d < kDigits; ++d) {
    // A digit shared by every id changes nothing.
    if (std::find(hist[d], hist[d] + 256, count) != hist[d] + 256) continue;
    uint32_t offset[256];
    uint32_t sum = 0;
    for (int b = 0; b < 256; ++b) {
      offset[b] = sum;
      sum += hist[d][b];
    }
    for (size_t j = 0; j < count; ++j) {
      const uint64_t digits = d < 4 ? static_cast<uint64_t>(src[j]) >> (8 * d)
                                    : key_of(src[j]) >> (8 * (d - 4));
      dst[offset[digits & 255]++] = src[j];
    }
    std::swap(src, dst);
  }
  return src;
}

}  // namespace

template <class T>
void KeepFirst(const Order<T>& order, int32_t* ids, size_t count, size_t k) {
  std::nth_element(ids, ids + k - 1, ids + count, order);
}

template <class T>
void SortInto(const Order<T>& order, int32_t* ids, size_t count, int32_t* out) {
  if (count < kRadixMin) {
    std::sort(ids, ids + count, order);
    std::copy(ids, ids + count, out);
    return;
  }
  const int32_t* sorted = RadixSort(order, ids, count, out);
  if (sorted != out) std::copy(sorted, sorted + count, out);
}

template void KeepFirst(const Order<double>&, int32_t*, size_t, size_t);
template void KeepFirst(const Order<float>&, int32_t*, size_t, size_t);
template void SortInto(const Order<double>&, int32_t*, size_t, int32_t*);
template void SortInto(const Order<float>&, int32_t*, size_t, int32_t*);

}  // namespace exactsample::simd::topk
