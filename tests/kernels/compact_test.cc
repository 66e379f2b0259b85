// simd/compact.hpp against its scalar twin on every compiled and supported
// target: the same count and the same ids.
#include "scalar_ref/twins/compact.hpp"

#include <gtest/gtest.h>

#include <cfloat>
#include <cmath>
#include <random>
#include <string>
#include <vector>

#include "hwy/targets.h"
#include "simd/compact.hpp"
#include "tests/support/test_util.hpp"

namespace exactsample {
namespace {

template <typename T>
void Check(const std::vector<T>& e, T threshold, size_t capacity, const std::string& what) {
  std::vector<uint32_t> want(capacity + 1, 7);
  const size_t want_count = twins::CompactAtLeast(
      e.data(), e.size(), threshold, want.data(), capacity);
  const size_t written = std::min(want_count, capacity);
  test::ForEachTarget([&](int64_t target) {
    std::vector<uint32_t> got(capacity + 1, 7);
    const size_t count = simd::CompactAtLeast(e.data(), e.size(), threshold,
                                              got.data(), capacity);
    ASSERT_EQ(count, want_count) << what << " on " << hwy::TargetName(target);
    for (size_t j = 0; j < written; ++j) {
      ASSERT_EQ(got[j], want[j]) << what << " j=" << j << " on "
                                 << hwy::TargetName(target);
    }
    ASSERT_EQ(got[capacity], 7u) << what << ": wrote past capacity";
  });
}

// Every tail shape of every vector width, then long rows.
std::vector<size_t> Sizes() {
  std::vector<size_t> sizes;
  for (size_t n = 0; n <= 70; ++n) sizes.push_back(n);
  for (size_t n : {1000, 4099, 128256}) sizes.push_back(n);
  return sizes;
}

TEST(CompactAtLeast, MatchesTheTwinOnEveryTarget) {
  test::SplitMix rng(17);
  for (size_t n : Sizes()) {
    std::vector<double> e(n);
    std::exponential_distribution<double> tail(1.0);
    for (double& v : e) v = rng() % 5 == 0 ? 0.0 : std::exp(-8.0 * tail(rng));
    if (n > 0) e[rng() % n] = 1.0;
    const double picked = n > 0 ? e[rng() % n] : 0.5;
    for (double threshold : {0.0, 1e-300, 1e-3, 0.5, 1.0, 2.0, picked,
                             std::nextafter(picked, 2.0)}) {
      for (size_t capacity : {size_t{0}, size_t{1}, size_t{3}, n / 2, n, n + 5}) {
        Check(e, threshold, capacity,
              "n=" + std::to_string(n) + " threshold=" + std::to_string(threshold) +
                  " capacity=" + std::to_string(capacity));
      }
    }
  }
}

// The f32 row's compaction (a threshold on the logits themselves), with ties
// on the threshold, -inf and sparse or dense hits.
TEST(CompactAtLeast, F32RowsMatchTheTwinOnEveryTarget) {
  test::SplitMix rng(19);
  for (size_t n : Sizes()) {
    std::vector<float> x(n);
    for (float& v : x) {
      v = rng() % 9 == 0 ? -INFINITY : static_cast<float>(rng.Normal(2.0));
    }
    const float picked = n > 0 ? x[rng() % n] : 0.5f;
    for (float threshold : {-INFINITY, -1.0f, 2.0f, 6.0f, 100.0f, picked,
                            std::nextafter(picked, 100.0f)}) {
      for (size_t capacity : {size_t{0}, size_t{3}, n / 2, n, n + 5}) {
        Check(x, threshold, capacity,
              "f32 n=" + std::to_string(n) + " threshold=" + std::to_string(threshold) +
                  " capacity=" + std::to_string(capacity));
      }
    }
  }
}

// Dense hits (every vector has one, the branch-free path) with ties on the
// threshold, and capacities that end inside a vector.
TEST(CompactAtLeast, DenseTiesMatchTheTwinOnEveryTarget) {
  test::SplitMix rng(18);
  const double values[] = {0.0, 0x1p-1074, 0.25, 0.5, 1.0};
  for (size_t n : {7, 8, 9, 33, 64, 1000, 4096, 4103}) {
    std::vector<double> e(n);
    for (double& v : e) v = values[rng() % 5];
    for (double threshold : values) {
      for (size_t capacity : {size_t{0}, size_t{5}, n / 3, n / 3 + 1, n - 1, n}) {
        Check(e, threshold, capacity,
              "dense n=" + std::to_string(n) + " threshold=" +
                  std::to_string(threshold) + " capacity=" + std::to_string(capacity));
      }
    }
  }
}

// CountAtLeast: the counts exactly, the masses (summed in another order)
// within the rounding bound of the twin's, for 0 to 4 thresholds with ties on them.
TEST(CountAtLeast, MatchesTheTwinOnEveryTarget) {
  test::SplitMix rng(19);
  for (size_t n : {0, 1, 7, 8, 9, 63, 1000, 4099, 128256}) {
    std::vector<double> e(n);
    std::exponential_distribution<double> tail(1.0);
    for (double& v : e) {
      v = rng() % 7 == 0 ? 0.0 : rng() % 7 == 1 ? 0.25 : std::exp(-20.0 * tail(rng));
    }
    const std::vector<double> levels = {0.25, std::exp(-5.0), 1e-9, 0.0};
    for (size_t k = 0; k <= twins::kMaxLevels; ++k) {
      size_t want_counts[twins::kMaxLevels], got_counts[twins::kMaxLevels];
      double want_masses[twins::kMaxLevels], got_masses[twins::kMaxLevels];
      twins::CountAtLeast(e.data(), n, levels.data(), k, want_counts, want_masses);
      test::ForEachTarget([&](int64_t target) {
        simd::CountAtLeast(e.data(), n, levels.data(), k, got_counts, got_masses);
        for (size_t j = 0; j < k; ++j) {
          ASSERT_EQ(got_counts[j], want_counts[j])
              << "n=" << n << " level " << j << " on " << hwy::TargetName(target);
          // Two sums of the same n terms >= 0 in different orders differ by
          // at most 2 (n - 1) 2^-53 times their value (the contract: a guide).
          ASSERT_LE(std::abs(got_masses[j] - want_masses[j]),
                    2.0 * static_cast<double>(n + 1) * 0x1p-53 * want_masses[j])
              << "n=" << n << " level " << j << " on " << hwy::TargetName(target);
        }
      });
    }
  }
}

// CompactFinite: the same count, values (bits, so -0.0 stays -0.0) and ids
// as the twin, which keeps exactly the ids above -inf, for every length up
// to a few vectors past each target's and densities from none to all
// finite, with subnormals, zeros and the largest finite values among them.
TEST(CompactFinite, MatchesTheTwinOnEveryTarget) {
  test::SplitMix rng(20);
  const double specials[] = {-0.0, 0.0, 0x1p-1074, -0x1p-1074, -DBL_MAX, DBL_MAX};
  std::vector<size_t> sizes;
  for (size_t n = 0; n <= 70; ++n) sizes.push_back(n);
  for (size_t n : {1000, 4099, 128256}) sizes.push_back(n);
  for (size_t n : sizes) {
    for (unsigned finite_in_8 = 0; finite_in_8 <= 8; ++finite_in_8) {
      std::vector<double> l(n);
      std::vector<int32_t> finite_ids;
      for (size_t i = 0; i < n; ++i) {
        const bool finite = rng() % 8 < finite_in_8;
        l[i] = !finite           ? -INFINITY
               : rng() % 9 == 0 ? specials[rng() % 6]
                                : (static_cast<double>(rng() % 2000001) - 1e6) * 1e-3;
        if (finite) finite_ids.push_back(static_cast<int32_t>(i));
      }
      std::vector<double> want(n + 1, 7.0);
      std::vector<int32_t> want_ids(n + 1, 7);
      const size_t want_count =
          twins::CompactFinite(l.data(), n, want.data(), want_ids.data());
      ASSERT_EQ(std::vector<int32_t>(want_ids.begin(), want_ids.begin() + want_count),
                finite_ids);
      test::ForEachTarget([&](int64_t target) {
        const std::string where = "n=" + std::to_string(n) + " finite " +
                                  std::to_string(finite_in_8) + "/8 on " +
                                  hwy::TargetName(target);
        std::vector<double> got(n + 1, 7.0);
        std::vector<int32_t> got_ids(n + 1, 7);
        ASSERT_EQ(simd::CompactFinite(l.data(), n, got.data(), got_ids.data()), want_count)
            << where;
        for (size_t j = 0; j < want_count; ++j) {
          ASSERT_EQ(test::Bits(got[j]), test::Bits(want[j])) << where << " j=" << j;
          ASSERT_EQ(got_ids[j], want_ids[j]) << where << " j=" << j;
        }
        ASSERT_EQ(got[n], 7.0) << where << ": wrote past n";
        ASSERT_EQ(got_ids[n], 7) << where << ": wrote past n";
      });
    }
  }
}

// CountAllowed: the twin's count, and the twin against a bit-by-bit count,
// for every n up to a few vectors of words past each target's, with bits
// set beyond n in the last word (which do not count) and densities from
// none to all.
TEST(CountAllowed, MatchesTheTwinOnEveryTarget) {
  test::SplitMix rng(21);
  std::vector<size_t> sizes;
  for (size_t n = 0; n <= 700; n += 7) sizes.push_back(n);
  for (size_t n : {4096, 128256, 262143}) sizes.push_back(n);
  for (size_t n : sizes) {
    for (unsigned set_in_4 = 0; set_in_4 <= 4; ++set_in_4) {
      std::vector<uint32_t> words((n + 31) / 32 + 1);
      for (uint32_t& w : words) {
        for (int b = 0; b < 32; ++b) w |= uint32_t{rng() % 4 < set_in_4} << b;
      }
      size_t by_bit = 0;
      for (size_t i = 0; i < n; ++i) by_bit += (words[i / 32] >> (i % 32)) & 1;
      ASSERT_EQ(twins::CountAllowed(words.data(), n), by_bit) << "n=" << n;
      test::ForEachTarget([&](int64_t target) {
        ASSERT_EQ(simd::CountAllowed(words.data(), n), by_bit)
            << "n=" << n << " set " << set_in_4 << "/4 on " << hwy::TargetName(target);
      });
    }
  }
}

}  // namespace
}  // namespace exactsample
