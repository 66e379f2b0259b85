// simd::AccumulateExact and simd::ExactSum against their sequential twins,
// bit for bit, on every compiled and supported target: random arrays of many
// shapes, each shape aimed at one part of the grid argument (ties, binade
// crossings, s zero or tiny, overflow of e / u, sums reaching powers of two).
#include "scalar_ref/twins/exact_sum.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

#include "simd/exact_sum.hpp"
#include "tests/support/test_util.hpp"
#include "tests/support/walk_test_util.hpp"

namespace exactsample {
namespace {

using test::Bits;
using Rng = test::SplitMix;

double Uniform(Rng& rng, double lo, double hi) {
  return std::uniform_real_distribution<double>(lo, hi)(rng);
}

// exp(N(0, sigma^2) - max), sigma log-uniform in [0.1, 100]: softmax terms.
std::vector<double> SoftmaxTerms(Rng& rng, size_t n) {
  std::normal_distribution<double> normal(
      0.0, std::exp(Uniform(rng, std::log(0.1), std::log(100.0))));
  std::vector<double> x(n);
  for (double& v : x) v = normal(rng);
  const double m = n ? *std::max_element(x.begin(), x.end()) : 0.0;
  for (double& v : x) v = std::exp(v - m);
  return x;
}

enum Shape {
  kSoftmax,
  kMasked,     // softmax terms, most of them zeros (+0.0 or -0.0)
  kSubnormal,  // subnormal terms with some normal ones
  kGridTies,   // a power of two, then odd multiples of half its ulp
  kAllEqual,   // one value repeated (powers of two reach 2^(k+1) exactly)
  kAscending,
  kDescending,
  kClimbing,       // geometric growth through many binades
  kHugeFirst,      // one huge term, then tiny ones
  kTinyFirst,      // tiny terms, then huge ones (up to overflow of the sum)
  kDyadic,         // few-bit dyadic terms: exact sums, powers of two, ties
  kWideExponents,  // 2^U(-1074, 1000): e / u overflows when s is small
  kShapes
};

std::vector<double> MakeTerms(Rng& rng, Shape shape, size_t n) {
  std::vector<double> e;
  switch (shape) {
    case kSoftmax:
      return SoftmaxTerms(rng, n);
    case kMasked: {
      e = SoftmaxTerms(rng, n);
      const double keep = std::exp(Uniform(rng, std::log(0.003), 0.0));
      for (double& v : e) {
        if (Uniform(rng, 0, 1) > keep) v = rng() % 8 ? 0.0 : -0.0;
      }
      return e;
    }
    case kSubnormal:
      e.resize(n);
      for (double& v : e) {
        v = rng() % 16
                ? std::ldexp(static_cast<double>(rng() % (1ull << 52)), -1074)
                : std::exp(Uniform(rng, -745.0, -700.0));
      }
      return e;
    case kGridTies: {
      const int a = static_cast<int>(rng() % 80) - 40;
      e.resize(n);
      for (size_t i = 0; i < n; ++i) {
        const int below = 53 + static_cast<int>(rng() % 6);
        const double odd = static_cast<double>(2 * (rng() % 4096) + 1);
        e[i] = i == 0 ? std::ldexp(1.0, a) : std::ldexp(odd, a - below);
      }
      return e;
    }
    case kAllEqual: {
      const double v = rng() % 2
                           ? std::ldexp(1.0, static_cast<int>(rng() % 60) - 30)
                           : Uniform(rng, 0.0, 1.0);
      return std::vector<double>(n, v);
    }
    case kAscending:
      e = SoftmaxTerms(rng, n);
      std::sort(e.begin(), e.end());
      return e;
    case kDescending:
      e = SoftmaxTerms(rng, n);
      std::sort(e.begin(), e.end(), std::greater<>());
      return e;
    case kClimbing: {
      const double ratio = 1.0 + Uniform(rng, 0.0001, 0.1);
      double v =
          std::ldexp(Uniform(rng, 1.0, 2.0), -static_cast<int>(rng() % 200));
      e.resize(n);
      for (double& x : e) {
        x = v * Uniform(rng, 0.5, 1.0);
        v = std::min(v * ratio, 1e300);
      }
      return e;
    }
    case kHugeFirst:
      e = SoftmaxTerms(rng, n);
      if (n) e[0] = std::ldexp(1.0, static_cast<int>(rng() % 1000));
      for (size_t i = 1; i < n; ++i)
        e[i] *= std::ldexp(1.0, -static_cast<int>(rng() % 1100));
      return e;
    case kTinyFirst: {
      e.resize(n);
      const size_t tiny = n ? rng() % n : 0;
      const int top = static_cast<int>(rng() % 1024);
      for (size_t i = 0; i < n; ++i) {
        e[i] = i < tiny ? std::ldexp(Uniform(rng, 0, 1),
                                     -1000 - static_cast<int>(rng() % 74))
                        : std::ldexp(Uniform(rng, 0, 1), top);
      }
      return e;
    }
    case kDyadic: {
      const int b = static_cast<int>(rng() % 8);
      e.resize(n);
      for (double& v : e) v = std::ldexp(static_cast<double>(rng() % 16), -b);
      return e;
    }
    case kWideExponents:
      e.resize(n);
      for (double& v : e) {
        v = std::ldexp(Uniform(rng, 1.0, 2.0),
                       static_cast<int>(rng() % 2074) - 1074);
      }
      return e;
    case kShapes:
      break;
  }
  return e;
}

// Mostly 0: ExactSum. Otherwise starting points around the grid's limits.
double MakeStart(Rng& rng) {
  switch (rng() % 16) {
    case 0:
      return Uniform(rng, 0.0, 4.0);
    case 1:
      return std::ldexp(Uniform(rng, 0.0, 1.0), -1060);  // subnormal
    case 2:
      return 0x1p-900;
    case 3:
      return std::nextafter(0x1p-900, 0.0);
    case 4:
      return -0.0;
    case 5:
      return std::ldexp(1.0, static_cast<int>(rng() % 2000) - 1000);
    case 6:
      return DBL_MAX;
    default:
      return 0.0;
  }
}

// Lengths 0..5000, log-uniform so short tails are common; a few of 262144.
size_t MakeLength(Rng& rng) {
  if (rng() % 2000 == 0) return 262144;
  return static_cast<size_t>(std::exp(Uniform(rng, 0.0, std::log(5001.0)))) - 1;
}

struct Case {
  double s;
  std::vector<double> e;
};

TEST(ExactSumTest, MatchesSequentialSumOnManyShapes) {
  Rng rng(20240531);
  // 50000 arrays in all: every shape thousands of times, every start, and
  // about 25 arrays of 262144 terms.
  constexpr int kBatches = 50;
  constexpr int kPerBatch = 1000;
  for (int batch = 0; batch < static_cast<int>(test::Share(kBatches)); ++batch) {
    std::vector<Case> cases(kPerBatch);
    std::vector<double> want(kPerBatch);
    for (int k = 0; k < kPerBatch; ++k) {
      const Shape shape = static_cast<Shape>((batch * kPerBatch + k) % kShapes);
      cases[k].e = MakeTerms(rng, shape, MakeLength(rng));
      cases[k].s = MakeStart(rng);
      want[k] = twins::AccumulateExact(cases[k].s, cases[k].e.data(),
                                            cases[k].e.size());
    }
    test::ForEachTarget([&](int64_t target) {
      for (int k = 0; k < kPerBatch; ++k) {
        const Case& c = cases[k];
        const double got =
            c.s == 0.0 && !std::signbit(c.s)
                ? simd::ExactSum(c.e.data(), c.e.size())
                : simd::AccumulateExact(c.s, c.e.data(), c.e.size());
        ASSERT_EQ(Bits(got), Bits(want[k]))
            << hwy::TargetName(target) << " batch " << batch << " case " << k
            << " shape " << (batch * kPerBatch + k) % kShapes << " n "
            << c.e.size() << " s " << c.s << ": got " << got << " want "
            << want[k];
      }
    });
  }
}

// AccumulateUntil against its twin: the index and the running sum where
// each stops, for targets on a partial sum of the twin, just above and
// below one, anywhere between start and end, and beyond the end.
TEST(ExactSumTest, AccumulateUntilMatchesSequentialWalk) {
  Rng rng(20240601);
  for (int batch = 0; batch < static_cast<int>(test::Share(20)); ++batch) {
    std::vector<Case> cases(1000);
    std::vector<double> targets(cases.size());
    std::vector<size_t> want_at(cases.size());
    std::vector<double> want_s(cases.size());
    for (size_t k = 0; k < cases.size(); ++k) {
      Case& c = cases[k];
      c.e = MakeTerms(rng, static_cast<Shape>((batch * 1000 + k) % kShapes), MakeLength(rng));
      c.s = MakeStart(rng);
      double end = c.s;
      std::vector<double> partial;
      for (double v : c.e) partial.push_back(end += v);
      const double on = partial.empty() ? end : partial[rng() % partial.size()];
      switch (rng() % 5) {
        case 0: targets[k] = on; break;
        case 1: targets[k] = std::nextafter(on, INFINITY); break;
        case 2: targets[k] = std::nextafter(on, -INFINITY); break;
        case 3: targets[k] = Uniform(rng, 0.0, 1.0) * end; break;
        default: targets[k] = end < INFINITY ? std::nextafter(end, INFINITY) : end;
      }
      want_s[k] = c.s;
      want_at[k] = twins::AccumulateUntil(want_s[k], c.e.data(), c.e.size(), targets[k]);
    }
    test::ForEachTarget([&](int64_t target) {
      for (size_t k = 0; k < cases.size(); ++k) {
        double s = cases[k].s;
        const size_t at =
            simd::AccumulateUntil(s, cases[k].e.data(), cases[k].e.size(), targets[k]);
        ASSERT_EQ(at, want_at[k]) << hwy::TargetName(target) << " batch " << batch
                                  << " case " << k << " target " << targets[k];
        ASSERT_EQ(Bits(s), Bits(want_s[k])) << hwy::TargetName(target) << " case " << k;
      }
    });
  }
}

// Hand-made edges of the grid argument.
TEST(ExactSumTest, Edges) {
  const double ulp1 = 0x1p-52;
  const std::vector<std::vector<double>> arrays = {
      {},
      {0.0},
      {-0.0},
      {-0.0, -0.0, 0.0},
      {0x1p-1074},
      {DBL_MAX, DBL_MAX},                             // overflows to +inf
      {1.0, ulp1 / 2, ulp1 / 2, ulp1 / 2, ulp1 / 2},  // ties, to even
      {1.5, 0.25, 0.25, ulp1, ulp1},                  // reaches 2.0 exactly
      std::vector<double>(1000, 0x1p-10),             // hits powers of two
      std::vector<double>(5000, ulp1 / 2),            // every term a tie
      std::vector<double>(300, 0x1p-1074),            // all subnormal
  };
  for (const auto& e : arrays) {
    const double want = twins::ExactSum(e.data(), e.size());
    test::ForEachTarget([&](int64_t target) {
      const double got = simd::ExactSum(e.data(), e.size());
      EXPECT_EQ(Bits(got), Bits(want))
          << hwy::TargetName(target) << " n " << e.size();
    });
  }
  // A -0.0 start stays -0.0 only while the terms are -0.0.
  const std::vector<double> zeros = {-0.0, -0.0, 0.0, -0.0};
  for (size_t n = 0; n <= zeros.size(); ++n) {
    const double want = twins::AccumulateExact(-0.0, zeros.data(), n);
    test::ForEachTarget([&](int64_t target) {
      EXPECT_EQ(Bits(simd::AccumulateExact(-0.0, zeros.data(), n)), Bits(want))
          << hwy::TargetName(target) << " n " << n;
    });
  }
}

}  // namespace
}  // namespace exactsample
