// simd/compact.hpp against its scalar twin on every compiled and supported
// target: the same count and the same ids.
#include "scalar_ref/twins/compact.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <string>
#include <vector>

#include "hwy/targets.h"
#include "simd/compact.hpp"
#include "tests/test_util.hpp"

namespace exactsample {
namespace {

void Check(const std::vector<double>& e, double threshold, size_t capacity,
           const std::string& what) {
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

TEST(CompactAtLeast, MatchesTheTwinOnEveryTarget) {
  test::SplitMix rng(17);
  std::vector<size_t> sizes;
  for (size_t n = 0; n <= 70; ++n) sizes.push_back(n);
  for (size_t n : {1000, 4099, 128256}) sizes.push_back(n);
  for (size_t n : sizes) {
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

}  // namespace
}  // namespace exactsample
