// simd::ExpSumBounds on every compiled and supported target, and its twin:
// each interval holds the spec's Z (the exact ascending sum with the
// process's exp), and is narrow. ExpApprox within its stated error.

#include "scalar_ref/twins/exp_bound.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "gtest/gtest.h"
#include "hwy/targets.h"
#include "scalar_ref/twins/exp_sum.hpp"
#include "simd/exp_bound.hpp"
#include "tests/support/test_util.hpp"

namespace exactsample {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

// The widest interval allowed for Z over n ids: the kernel's slack is about
// 2.2 (2^-31 + (2n + 64) 2^-53) Z for the shifts here.
double Width(double z, size_t n) {
  return (0x1p-29 + static_cast<double>(4 * n + 256) * 0x1p-53) * z + 0x1p-990;
}

// A row as the kernel reads it: f64 logits, or an f32 row with penalised ids.
struct Row {
  Row(std::string name_, std::vector<double> l_) : name(std::move(name_)), l(std::move(l_)) {}
  std::string name;
  std::vector<double> l;  // every id's logit (the penalised row when x is set)
  std::vector<float> x;   // empty: an f64 row
  std::vector<int32_t> penalised_ids;
  std::vector<double> penalised_l;  // indexed by id
  double divisor = 1.0;
};

simd::ExpSource SourceOf(const Row& r) {
  if (r.x.empty()) return {r.l.data()};
  return {nullptr, r.x.data(), r.penalised_ids.data(), r.penalised_l.data(),
          r.penalised_ids.size()};
}

// The rows of one length: the shapes of exp_sum_test (narrow, peaked, wide
// down to underflow, runs of -inf, ties, divisors), each also as an f32 row
// with some ids penalised (raised, lowered, or to -inf).
std::vector<Row> RowsOfLength(size_t n, test::SplitMix& rng) {
  std::vector<Row> rows;
  const auto normal = [&](double sigma) {
    std::vector<double> l(n);
    for (double& v : l) v = static_cast<float>(rng.Normal(sigma));
    return l;
  };
  rows.emplace_back("narrow", normal(1.0));
  {
    Row r{"peaks", normal(1.5)};
    for (int k = 0; k < 20; ++k) r.l[rng.Next() % n] += 8.0 + 6.0 * rng.Uniform(0, 1);
    rows.push_back(r);
  }
  {
    Row r{"wide", std::vector<double>(n)};
    for (double& v : r.l) v = static_cast<float>(rng.Uniform(-2000.0, 100.0));
    rows.push_back(r);
  }
  {
    Row r{"inf_runs", normal(3.0)};
    for (size_t i = 0; i < n; ++i) {
      if (rng.Next() % 8 == 0) {
        const size_t run = 1 + rng.Next() % 40;
        for (size_t j = i; j < std::min(n, i + run); ++j) r.l[j] = -kInf;
        i += run;
      }
    }
    r.l[rng.Next() % n] = 1.0;
    rows.push_back(r);
  }
  rows.emplace_back("all_equal", std::vector<double>(n, 0.75));
  {
    Row r{"large_logits", normal(2.0)};
    for (double& v : r.l) v = static_cast<float>(v + 30000.0);
    rows.push_back(r);
  }
  for (double divisor : {0.7, 1.3, 1e-3, 3.0}) {
    Row r{"divisor", normal(2.0)};
    r.divisor = divisor;
    rows.push_back(r);
  }
  const size_t shapes = rows.size();
  for (size_t k = 0; k < shapes; ++k) {
    Row r = rows[k];
    r.name += "_f32_penalised";
    r.x.assign(r.l.begin(), r.l.end());
    r.l.assign(r.x.begin(), r.x.end());  // the row's own logits are f32
    r.penalised_l.assign(n, 0.0);
    for (size_t i = 0; i < n; ++i) {
      if (rng.Next() % 7 != 0) continue;
      r.penalised_ids.push_back(static_cast<int32_t>(i));
      const uint64_t how = rng.Next() % 3;
      r.penalised_l[i] = how == 0 ? -kInf : r.l[i] + (how == 1 ? 2.5 : -1.25);
      r.l[i] = r.penalised_l[i];
    }
    if (std::all_of(r.l.begin(), r.l.end(), [](double v) { return v == -kInf; })) continue;
    rows.push_back(r);
  }
  return rows;
}

// Z as the spec computes it: e in ascending id order with the process's exp.
double SpecZ(const Row& r, double shift) {
  return twins::ExpSum(r.l.data(), r.l.size(), r.divisor, shift, nullptr);
}

TEST(ExpSumBounds, HoldZOnEveryTarget) {
  test::SplitMix rng{77};
  std::vector<size_t> lengths;
  for (size_t n = 1; n <= 70; ++n) lengths.push_back(n);
  for (size_t n : {127, 1000, 4097, 32000, 128256}) {
    if (n <= 32000 || test::ShareDivisor() == 1) lengths.push_back(n);
  }
  size_t checked = 0;
  for (size_t n : lengths) {
    for (const Row& r : RowsOfLength(n, rng)) {
      double shift = -kInf;
      for (double v : r.l) shift = std::max(shift, v / r.divisor);
      const double z = SpecZ(r, shift);
      const std::string what = r.name + " n=" + std::to_string(n);
      if (r.x.empty()) {
        const twins::ZBounds twin = twins::ExpSumBounds(r.l.data(), n, r.divisor, shift);
        ASSERT_LE(twin.lo, z) << "twin " << what;
        ASSERT_GE(twin.hi, z) << "twin " << what;
        ASSERT_LE(twin.hi - twin.lo, Width(z, n)) << "twin " << what;
      }
      test::ForEachTarget([&](int64_t target) {
        const simd::ZBounds got = simd::ExpSumBounds(SourceOf(r), n, r.divisor, shift);
        ASSERT_LE(got.lo, z) << what << " on " << hwy::TargetName(target);
        ASSERT_GE(got.hi, z) << what << " on " << hwy::TargetName(target);
        ASSERT_LE(got.hi - got.lo, Width(z, n))
            << what << " on " << hwy::TargetName(target);
        ++checked;
      });
    }
  }
  EXPECT_GT(checked, 1000u);
}

// One finite term in every lane position, the rest -inf: the interval holds
// that term's exp, through each target's vector lanes and its tail.
TEST(ExpSumBounds, HoldEachLanesTerm) {
  test::SplitMix rng{78};
  for (size_t n : {1, 7, 16, 33, 64}) {
    for (size_t at = 0; at < n; ++at) {
      std::vector<double> l(n, -kInf);
      l[at] = rng.Uniform(-720.0, 0.0);
      const double z = twins::ExpSum(l.data(), n, 1.0, 0.0, nullptr);
      test::ForEachTarget([&](int64_t target) {
        const simd::ZBounds got = simd::ExpSumBounds({l.data()}, n, 1.0, 0.0);
        ASSERT_LE(got.lo, z) << l[at] << " at " << at << " of " << n << " on "
                             << hwy::TargetName(target);
        ASSERT_GE(got.hi, z) << l[at] << " at " << at << " on " << hwy::TargetName(target);
        ASSERT_LE(got.hi - got.lo, Width(z, n)) << l[at] << " on " << hwy::TargetName(target);
      });
    }
  }
}

// ExpApprox within 2^-31 of exp (std::exp's own error, under an ulp, aside)
// over [-700, 0], densest near the reduction's boundaries (r = +-ln 2 / 2).
TEST(ExpApprox, WithinItsBound) {
  test::SplitMix rng{79};
  std::vector<double> xs = {0.0, -0.0, -0x1p-60, -700.0, -699.99, -1e-300};
  for (int k = 0; k < 1010; ++k) {
    const double edge = -(k + 0.5) * 0.6931471805599453;
    if (edge < -700.0) break;
    for (double d : {-1e-9, 0.0, 1e-9}) xs.push_back(std::min(edge + d, 0.0));
  }
  for (int i = 0; i < 200000; ++i) xs.push_back(rng.Uniform(-700.0, 0.0));
  for (int i = 0; i < 20000; ++i) xs.push_back(rng.Uniform(-2.0, 0.0));
  for (const double x : xs) {
    const double want = std::exp(x);
    const double got = twins::ExpApprox(x);
    ASSERT_LE(std::fabs(got - want), (0x1p-31 + 0x1p-51) * want) << x;
  }
  // Below -700: e^-700, never more.
  for (const double x : {-700.5, -745.2, -1e6, -kInf}) {
    ASSERT_EQ(twins::ExpApprox(x), twins::ExpApprox(-700.0)) << x;
  }
}

}  // namespace
}  // namespace exactsample
