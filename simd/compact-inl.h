// Per-target bodies of the compaction kernels (simd/compact.hpp). Compaction:
// one compare per vector; a vector with a qualifying lane writes every
// lane's id and advances the count by its mask bits, without a branch per
// lane (Highway 1.0.3's CompressStore of 64-bit lanes is slow on AVX2), and
// lane by lane only next to the capacity.

#if defined(EXACTSAMPLE_SIMD_COMPACT_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef EXACTSAMPLE_SIMD_COMPACT_INL_H_
#undef EXACTSAMPLE_SIMD_COMPACT_INL_H_
#else
#define EXACTSAMPLE_SIMD_COMPACT_INL_H_
#endif

#include <cmath>
#include <cstdint>
#include <type_traits>

#include "hwy/highway.h"
#include "simd/reduce-inl.h"
#include "scalar_ref/twins/compact.hpp"

HWY_BEFORE_NAMESPACE();
namespace exactsample::simd::HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

template <class D, typename T = hn::TFromD<D>>
size_t CompactAtLeast(D d, const T* e, size_t n, T threshold, uint32_t* ids,
                      size_t capacity) {
  const size_t N = hn::Lanes(d);
  const auto vthreshold = hn::Set(d, threshold);
  size_t count = 0;
  size_t i = 0;
  if constexpr (hn::MaxLanes(D()) > 4) {
    // Runs of vectors with a hit are compressed without a branch per
    // vector (where hits are a few percent of the ids, the branch below
    // mispredicts on most); runs without one are skipped after one look.
    constexpr size_t kRun = 16;
    const hn::Rebind<uint32_t, D> du;
    const auto lanes = hn::Iota(du, 0);  // Highway 1.0.3's Iota goes through memory
    for (; i + kRun * N <= n && count + kRun * N <= capacity; i += kRun * N) {
      auto largest = hn::LoadU(d, e + i);
      for (size_t k = 1; k < kRun; ++k) largest = hn::Max(largest, hn::LoadU(d, e + i + k * N));
      if (hn::AllFalse(d, hn::Ge(largest, vthreshold))) continue;
      for (size_t k = 0; k < kRun; ++k) {
        const size_t at = i + k * N;
        const auto hit = hn::Ge(hn::LoadU(d, e + at), vthreshold);
        uint8_t bytes[(hn::MaxLanes(D()) + 7) / 8];
        hn::StoreMaskBits(d, hit, bytes);
        const auto lane_ids = hn::Add(lanes, hn::Set(du, static_cast<uint32_t>(at)));
        hn::StoreU(hn::Compress(lane_ids, hn::LoadMaskBits(du, bytes)), du, ids + count);
        count += hn::CountTrue(d, hit);
      }
    }
  }
  for (; i + N <= n; i += N) {
    const auto hit = hn::Ge(hn::LoadU(d, e + i), vthreshold);
    if (hn::AllFalse(d, hit)) continue;
    if (count + N <= capacity) {
      const uint64_t bits = LaneBits(d, hit);
      for (size_t lane = 0; lane < N; ++lane) {
        ids[count] = static_cast<uint32_t>(i + lane);
        count += (bits >> lane) & 1;
      }
      continue;
    }
    for (size_t j = i; j < i + N; ++j) {
      if (e[j] >= threshold) {
        if (count == capacity) return capacity + 1;
        ids[count++] = static_cast<uint32_t>(j);
      }
    }
  }
  const size_t tail = twins::CompactAtLeast(e + i, n - i, threshold,
                                                 ids + count, capacity - count);
  for (size_t j = 0; j < tail && count + j < capacity; ++j) {
    ids[count + j] += static_cast<uint32_t>(i);
  }
  return count + tail;
}

// twins::CountAtLeast with the counts in f64 lanes (exact below 2^53) and
// the masses added in lane order. Levels beyond k get the threshold +inf,
// which nothing reaches.
template <class D>
void CountAtLeast(D d, const double* e, size_t n, const double* thresholds, size_t k,
                  size_t* counts, double* masses) {
  constexpr size_t L = twins::kMaxLevels;
  static_assert(L == 4, "one accumulator pair per level below");
  using V = hn::Vec<D>;
  const size_t N = hn::Lanes(d);
  double at[L];
  for (size_t j = 0; j < L; ++j) at[j] = j < k ? thresholds[j] : INFINITY;
  const V one = hn::Set(d, 1.0);
  const V t0 = hn::Set(d, at[0]), t1 = hn::Set(d, at[1]);
  const V t2 = hn::Set(d, at[2]), t3 = hn::Set(d, at[3]);
  V c0 = hn::Zero(d), c1 = c0, c2 = c0, c3 = c0;
  V m0 = hn::Zero(d), m1 = m0, m2 = m0, m3 = m0;
  const auto level = [&](V v, V t, V& c, V& m) {
    const auto in = hn::Ge(v, t);
    c = hn::Add(c, hn::IfThenElseZero(in, one));
    m = hn::Add(m, hn::IfThenElseZero(in, v));
  };
  size_t i = 0;
  for (; i + N <= n; i += N) {
    const V v = hn::LoadU(d, e + i);
    level(v, t0, c0, m0), level(v, t1, c1, m1);
    level(v, t2, c2, m2), level(v, t3, c3, m3);
  }
  const auto total = [&](V v) { return hn::GetLane(hn::SumOfLanes(d, v)); };
  const double c[L] = {total(c0), total(c1), total(c2), total(c3)};
  const double m[L] = {total(m0), total(m1), total(m2), total(m3)};
  size_t tail_counts[L];
  double tail_masses[L];
  twins::CountAtLeast(e + i, n - i, at, L, tail_counts, tail_masses);
  for (size_t j = 0; j < k; ++j) {
    counts[j] = static_cast<size_t>(c[j]) + tail_counts[j];
    masses[j] = m[j] + tail_masses[j];
  }
}

// twins::CountAllowed, by Highway's PopulationCount (the baseline x86-64
// build has no popcnt instruction, and a scalar loop costs far more).
template <class D>
size_t CountAllowed(D d, const uint32_t* words, size_t n) {
  static_assert(std::is_same_v<hn::TFromD<D>, uint32_t>, "lanes of one word");
  const size_t N = hn::Lanes(d);
  const size_t whole = n / 32;
  auto counts = hn::Zero(d);  // each lane at most 32 per word it adds: no overflow
  size_t w = 0;
  for (; w + N <= whole; w += N) {
    counts = hn::Add(counts, hn::PopulationCount(hn::LoadU(d, words + w)));
  }
  const size_t vector_count = hn::GetLane(hn::SumOfLanes(d, counts));
  return vector_count + twins::CountAllowed(words + w, n - 32 * w);
}

namespace compact_detail {

// Row `bits` (a mask of at most 4 lanes): the set lanes in order, then 0s.
// Highway 1.0.3's Compress on targets without AVX-512 copies its index
// table onto the stack on every call (GCC 12), which costs far more over a row.
template <typename T>
HWY_ALIGN static constexpr T kFront[16][4] = {
    {0, 0, 0, 0}, {0, 0, 0, 0}, {1, 0, 0, 0}, {0, 1, 0, 0},
    {2, 0, 0, 0}, {0, 2, 0, 0}, {1, 2, 0, 0}, {0, 1, 2, 0},
    {3, 0, 0, 0}, {0, 3, 0, 0}, {1, 3, 0, 0}, {0, 1, 3, 0},
    {2, 3, 0, 0}, {0, 2, 3, 0}, {1, 2, 3, 0}, {0, 1, 2, 3}};

}  // namespace compact_detail

// twins::CompactFinite. Each vector of values (and of ids) is stored whole
// from position count, within [0, n) since count <= i. Vectors of more than
// 4 lanes (AVX-512, SVE) use the compress instructions; others a table of
// lane orders, whose rows are also the compressed ids' offsets.
template <class D>
size_t CompactFinite(D d, const double* l, size_t n, double* l_out, int32_t* ids_out) {
  const hn::Rebind<int32_t, D> di;
  const size_t N = hn::Lanes(d);
  const auto below = hn::Set(d, -HUGE_VAL);
  auto ids = hn::Iota(di, 0);
  size_t count = 0;
  size_t i = 0;
  for (; i + N <= n; i += N) {
    const auto v = hn::LoadU(d, l + i);
    const auto finite = hn::Gt(v, below);
    if constexpr (hn::MaxLanes(D()) > 4) {
      uint8_t bytes[(hn::MaxLanes(D()) + 7) / 8];
      hn::StoreMaskBits(d, finite, bytes);
      if (ids_out != nullptr) {
        hn::CompressStore(ids, hn::LoadMaskBits(di, bytes), di, ids_out + count);
      }
      count += hn::CompressStore(v, finite, d, l_out + count);
      ids = hn::Add(ids, hn::Set(di, static_cast<int32_t>(N)));
    } else {
      const uint64_t bits = LaneBits(d, finite);
      using compact_detail::kFront;
      hn::StoreU(hn::TableLookupLanes(v, hn::SetTableIndices(d, kFront<int64_t>[bits])), d,
                 l_out + count);
      if (ids_out != nullptr) {
        hn::StoreU(hn::Add(hn::Set(di, static_cast<int32_t>(i)), hn::LoadU(di, kFront<int32_t>[bits])),
                   di, ids_out + count);
      }
      count += static_cast<size_t>(hwy::PopCount(bits));
    }
  }
  const size_t tail = twins::CompactFinite(l + i, n - i, l_out + count,
                                           ids_out != nullptr ? ids_out + count : nullptr);
  for (size_t j = count; ids_out != nullptr && j < count + tail; ++j) {
    ids_out[j] += static_cast<int32_t>(i);
  }
  return count + tail;
}

// NOLINTNEXTLINE(google-readability-namespace-comments)
}  // namespace exactsample::simd::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#endif  // EXACTSAMPLE_SIMD_COMPACT_INL_H_
