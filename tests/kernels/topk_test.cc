// simd::TopK against std::sort with the (t desc, id asc) comparator and
// against its scalar twin, on every compiled and supported target.
#include "scalar_ref/twins/topk.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "hwy/targets.h"
#include "hwy/tests/hwy_gtest.h"
#include "simd/topk.hpp"
#include "tests/support/logit_rows.hpp"
#include "tests/support/test_util.hpp"

namespace exactsample::test {
namespace {

constexpr int32_t kGuard = -7;

// Every id with l != -inf, in (t desc, id asc) order.
std::vector<int32_t> SortedIds(const std::vector<double>& l, double divisor) {
  std::vector<int32_t> ids;
  for (size_t i = 0; i < l.size(); ++i) {
    if (l[i] != -INFINITY) ids.push_back(static_cast<int32_t>(i));
  }
  std::sort(ids.begin(), ids.end(), [&](int32_t a, int32_t b) {
    const double ta = l[a] / divisor, tb = l[b] / divisor;
    return ta > tb || (ta == tb && a < b);
  });
  return ids;
}

// Small k (the threshold pass), large k (cuts, then the radix sort from 4096
// ids on), and k at and past the number of finite logits (1000 and 5000
// far past it on the short rows; from n / 4 on no cut is made, so n + 1
// shows what any larger k does).
std::vector<size_t> Ks(size_t n) {
  std::vector<size_t> ks = {0, 1, 2, 40, 50, 1000, 5000, n / 8, n + 1};
  if (n >= 2) ks.push_back(n - 1);
  ks.push_back(n);
  return ks;
}

// The kernel on every target (scratch full of junk, a guard after out), and
// the twin once, against the first k of `sorted`.
void Check(const std::vector<double>& l, double divisor, size_t k,
           const std::vector<int32_t>& sorted, bool with_twin,
           const std::string& what) {
  const size_t n = l.size();
  const size_t want = std::min(k, sorted.size());
  const std::vector<int32_t> expected(sorted.begin(), sorted.begin() + want);
  std::vector<int32_t> scratch(simd::TopKScratchSize(n));
  // A row of f32 values: the f32 kernel too.
  std::vector<float> x(l.begin(), l.end());
  const bool f32 = std::equal(l.begin(), l.end(), x.begin(), [](double a, float b) {
                     return test::Bits(a) == test::Bits(static_cast<double>(b));
                   });
  test::ForEachTarget([&](int64_t target) {
    if (f32) {
      std::fill(scratch.begin(), scratch.end(), 123);
      std::vector<int32_t> out(std::min(k, n) + 1, kGuard);
      const size_t count = simd::TopK(x.data(), divisor, n, k, out.data(), scratch);
      ASSERT_EQ(out.back(), kGuard) << what << " (f32) on " << hwy::TargetName(target);
      out.resize(count);
      ASSERT_EQ(out, expected) << what << " (f32) on " << hwy::TargetName(target);
    }
    std::fill(scratch.begin(), scratch.end(), 123);
    std::vector<int32_t> out(std::min(k, n) + 1, kGuard);
    const size_t count =
        simd::TopK(l.data(), divisor, n, k, out.data(), scratch);
    ASSERT_EQ(count, want) << what << " on " << hwy::TargetName(target);
    ASSERT_EQ(out.back(), kGuard) << what << " on " << hwy::TargetName(target);
    out.resize(count);
    ASSERT_EQ(out, expected) << what << " on " << hwy::TargetName(target);
  });
  if (with_twin) {
    std::vector<int32_t> out(std::min(k, n) + 1, kGuard);
    const size_t count = twins::TopK(l.data(), divisor, n, k, out.data());
    ASSERT_EQ(out.back(), kGuard) << what << " (twin)";
    out.resize(count);
    ASSERT_EQ(out, expected) << what << " (twin)";
  }
}

void CheckRow(const std::vector<double>& l, double divisor,
              const std::string& name) {
  const size_t n = l.size();
  const std::vector<int32_t> sorted = SortedIds(l, divisor);
  for (size_t k : Ks(n)) {
    const std::string what = name + ", n = " + std::to_string(n) +
                             ", divisor = " + std::to_string(divisor) +
                             ", k = " + std::to_string(k);
    // The twin's partial sort of a long row costs a full heap sort.
    Check(l, divisor, k, sorted, n <= 5000 || k <= 1000, what);
    if (testing::Test::HasFatalFailure()) return;
  }
}

// 0.8 is a typical temperature, 1.5 merges neighbouring doubles of [1.5, 2)
// into one t, 1e308 merges whole ranges into the same subnormal t.
const std::vector<double> kDivisors = {1.0, 0.8, 1.5, 3.0, 1e308};

// CheckRow on a row of each kind at each length, with each divisor.
void CheckRows(uint64_t seed, const std::vector<size_t>& lengths,
               const std::vector<double>& divisors) {
  test::SplitMix rng(seed);
  for (size_t n : lengths) {
    for (Row row : kAllRows) {
      const std::vector<double> l = MakeRow(row, n, rng);
      for (double divisor : divisors) {
        CheckRow(l, divisor, RowName(row));
        if (testing::Test::HasFatalFailure()) return;
      }
    }
  }
}

TEST(TopK, ShortRowsMatchSort) {
  std::vector<size_t> lengths;
  for (size_t n = 1; n <= 70; ++n) lengths.push_back(n);
  CheckRows(11, lengths, kDivisors);
}

TEST(TopK, LongRowsMatchSort) { CheckRows(12, {100, 255, 1000, 4099, 65537}, kDivisors); }

// The longest vocabulary: ids of three bytes (a radix pass for each) and a
// length that is a multiple of every vector, as 128256 is.
TEST(TopK, VocabularyRowsMatchSort) { CheckRows(13, {262144}, {1.0, 0.8}); }

// Rows of f32 values (a caller's row): the f32 kernel as well, at the
// divisors where it orders by l alone (2^-64 to 2^64) and beyond them.
const std::vector<double> kF32Divisors = {1.0, 0.7, 0x1p-64, 0x1p64, 0x1p-70, 1e308};

TEST(TopK, F32RowsMatchSort) {
  test::SplitMix rng(15);
  for (size_t n : {1, 2, 3, 7, 16, 33, 70, 1000, 4099, 65537}) {
    for (Row row : kAllRows) {
      std::vector<double> l = MakeRow(row, n, rng);
      for (double& v : l) v = static_cast<float>(v);
      for (double divisor : kF32Divisors) {
        CheckRow(l, divisor, RowName(row) + " in f32");
        if (HasFatalFailure()) return;
      }
    }
  }
}

// Neighbouring f32 values at the ends of the f32 range, where a quotient
// near the ends of f64's could merge them.
TEST(TopK, F32RowsAtTheEndsOfTheRange) {
  std::vector<double> l;
  for (float v : {std::numeric_limits<float>::max(), std::numeric_limits<float>::denorm_min(),
                  std::numeric_limits<float>::min(), 1.0f}) {
    for (float w : {v, std::nextafter(v, 0.0f), std::nextafter(v, INFINITY), -v}) {
      l.push_back(w);
      l.push_back(w);  // a tie, ordered by id
    }
  }
  for (double divisor : kF32Divisors) {
    CheckRow(l, divisor, "f32 range ends");
    if (HasFatalFailure()) return;
  }
}

// A temperature so small that l / T overflows to -inf for most negative l
// while the largest t stays finite: those ids are ordered by id.
TEST(TopK, FiniteLogitsTemperedToMinusInf) {
  test::SplitMix rng(14);
  std::normal_distribution<double> normal(0.0, 1.5);
  for (size_t n : {7, 64, 1000, 70001}) {
    std::vector<double> l(n);
    for (double& v : l) {
      v = rng() % 4 == 0 ? 1e-300 * (1.0 + std::fabs(normal(rng)))
                         : -std::fabs(normal(rng));
    }
    l[rng() % n] = -INFINITY;
    CheckRow(l, 1e-309, "overflowing");
    if (HasFatalFailure()) return;
  }
}

}  // namespace
}  // namespace exactsample::test
