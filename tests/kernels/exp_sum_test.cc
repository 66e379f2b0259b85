// simd::ExpSum on every compiled and supported target and for every exp
// variant, against its scalar definition bit for bit: Z, and every stored e.

#include "scalar_ref/twins/exp_sum.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <limits>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "hwy/highway.h"
#include "hwy/targets.h"
#include "scalar_ref/twins/exp_glibc.hpp"
#include "simd/exp_sum.hpp"
#include "simd/exp_choice.hpp"
#include "tests/support/test_util.hpp"
#include "tests/support/run_self.hpp"

namespace exactsample::simd {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

using test::Bits;

using Rng = test::SplitMix;

// One softmax input: logits (f32 values widened, as the pipeline has them,
// or any doubles) and the divisor.
struct Case {
  std::string name;
  std::vector<double> l;
  double divisor = 1.0;
};

std::vector<double> NormalLogits(Rng& rng, size_t n, double sigma) {
  std::vector<double> l(n);
  for (double& v : l) v = static_cast<float>(rng.Normal(sigma));
  return l;
}

// The arrays of one length n.
std::vector<Case> CasesOfLength(size_t n, Rng& rng) {
  std::vector<Case> cases;
  cases.push_back({"narrow", NormalLogits(rng, n, 1.0)});
  {
    Case c{"peaks", NormalLogits(rng, n, 1.5)};
    for (int k = 0; k < 20; ++k) {
      c.l[rng.Next() % n] += 8.0 + 6.0 * rng.Uniform(0, 1);
    }
    cases.push_back(c);
  }
  {
    Case c{"wide", std::vector<double>(n)};  // special path and subnormals
    for (double& v : c.l) v = rng.Uniform(-800.0, 0.0);
    cases.push_back(c);
  }
  {
    Case c{"very_wide", std::vector<double>(n)};  // arguments down to -2100
    for (double& v : c.l) v = rng.Uniform(-2000.0, 100.0);
    cases.push_back(c);
  }
  {
    Case c{"inf_runs", NormalLogits(rng, n, 3.0)};
    for (size_t i = 0; i < n; ++i) {
      if (rng.Next() % 8 == 0) {
        const size_t run = 1 + rng.Next() % 40;
        for (size_t j = i; j < std::min(n, i + run); ++j) c.l[j] = -kInf;
        i += run;
      }
    }
    c.l[rng.Next() % n] = 1.0;  // at least one finite logit
    cases.push_back(c);
  }
  {
    Case c{"leading_inf", NormalLogits(rng, n, 2.0)};
    std::fill(c.l.begin(), c.l.begin() + (n - 1) * 3 / 4, -kInf);
    cases.push_back(c);
  }
  cases.push_back({"all_equal", std::vector<double>(n, 0.75)});
  {
    Case c{"ascending", std::vector<double>(n)};
    for (size_t i = 0; i < n; ++i) c.l[i] = 0.001 * static_cast<double>(i);
    cases.push_back(c);
  }
  {
    // e climbs from subnormal through every binade up to 1: the running sum
    // crosses many binades and meets many ties.
    Case c{"climbing", std::vector<double>(n)};
    for (size_t i = 0; i < n; ++i) {
      c.l[i] =
          -745.0 + 745.0 * static_cast<double>(i + 1) / static_cast<double>(n);
    }
    cases.push_back(c);
  }
  {
    Case c{"descending_binades", std::vector<double>(n)};
    for (size_t i = 0; i < n; ++i) {
      c.l[i] = -0.6931471805599453 * static_cast<double>(i % 1100);
    }
    cases.push_back(c);
  }
  for (double divisor : {0.7, 1.3, 1e-3, 3.0}) {
    Case c{"divisor", NormalLogits(rng, n, 2.0), divisor};
    cases.push_back(c);
  }
  return cases;
}

// Every short length (each tail shape of every vector width), then block
// boundaries of the kernel and of AccumulateExact, up to large vocabularies.
std::vector<size_t> Lengths() {
  std::vector<size_t> lengths;
  for (size_t n = 1; n <= 70; ++n) lengths.push_back(n);
  for (size_t n : {127, 128, 129, 255, 256, 257, 511, 512, 513, 1000, 1023,
                   1024, 1025, 1537, 4097, 32000, 128256, 262144}) {
    if (n <= 32000 || test::ShareDivisor() == 1) lengths.push_back(n);
  }
  return lengths;
}

// Z (and e) by the scalar definition for variant v: twins::ExpSum where
// std::exp is v's exp, else the same loop with v's scalar replica.
// s is the sum the row's earlier pieces left.
double Reference(const Case& c, double shift, ExpVariant v, double* e, double s) {
  if (v == ExpVariant::libm || v == ProcessExp().variant) {
    return twins::ExpSum(c.l.data(), c.l.size(), c.divisor, shift, e, s);
  }
  double (*exp)(double) =
      v == ExpVariant::fused ? twins::ExpFused : twins::ExpUnfused;
  double z = s;
  for (size_t i = 0; i < c.l.size(); ++i) {
    e[i] = exp(c.l[i] / c.divisor - shift);
    z += e[i];
  }
  return z;
}

// Runs every case for variant v: the scalar definition once, then the
// kernel on every target, the replica's table read by gathers and by pair
// loads (ExpTable); returns failures.
int CheckAll(ExpVariant v) {
  int failures = 0;
  Rng rng{12345};
  for (size_t n : Lengths()) {
    for (const Case& c : CasesOfLength(n, rng)) {
      double shift = -kInf;
      for (double x : c.l) shift = std::max(shift, x / c.divisor);
      std::vector<double> want_e(n);
      const double want = Reference(c, shift, v, want_e.data(), 0.0);
      // Continuing the sum of earlier pieces: a tiny one (below the exact
      // sum's grid) and one a peaked row's head leaves.
      const double s = n % 2 ? 0x1.8p-1000 : 1.25;
      const double want_on = Reference(c, shift, v, want_e.data(), s);
      for (ExpTable table : {ExpTable::gather, ExpTable::loads}) {
        ForceExpTable(table);
        test::ForEachTarget([&](int64_t target) {
          std::vector<double> got_e(n, -1.0);
          const double got_stored =
              ExpSum(c.l.data(), n, c.divisor, shift, got_e.data(), v);
          const double got = ExpSum(c.l.data(), n, c.divisor, shift, nullptr, v);
          const double got_on = ExpSum(c.l.data(), n, c.divisor, shift, nullptr, v, s);
          size_t e_mismatch = 0;
          for (size_t i = 0; i < n; ++i) {
            e_mismatch += Bits(got_e[i]) != Bits(want_e[i]);
          }
          if (Bits(got) != Bits(want) || Bits(got_stored) != Bits(want) ||
              Bits(got_on) != Bits(want_on) || e_mismatch) {
            if (failures++ < 10) {
              std::printf("%s%s %s %s n=%zu: Z want %a got %a / %a; from %a want %a "
                          "got %a; %zu e differ\n",
                          hwy::TargetName(target),
                          table == ExpTable::gather ? " gathers" : " loads", ToString(v),
                          c.name.c_str(), n, want, got, got_stored, s, want_on, got_on,
                          e_mismatch);
            }
          }
        });
      }
    }
  }
  ForceExpTable(ExpTable::automatic);
  return failures;
}

// Every variant (a test per variant keeps each one short).
void CheckEveryTarget(ExpVariant v) { EXPECT_EQ(0, CheckAll(v)); }

TEST(ExpSumTest, Fused) { CheckEveryTarget(ExpVariant::fused); }
TEST(ExpSumTest, Unfused) { CheckEveryTarget(ExpVariant::unfused); }
TEST(ExpSumTest, Libm) { CheckEveryTarget(ExpVariant::libm); }

// Again where std::exp is glibc's non-FMA variant: the fused kernels then run
// the vector replica on every target, not std::exp.
TEST(ExpSumTest, NonFmaGlibc) {
  EXPECT_EQ(0, test::RunSelf("EXACTSAMPLE_FORCE_LIBM_EXP=0 "
                             "GLIBC_TUNABLES=glibc.cpu.hwcaps=-AVX2",
                             "ExpSumTest.Fused:ExpSumTest.Unfused"));
}

// In place: e_out == l.
TEST(ExpSumTest, InPlace) {
  Rng rng{99};
  const std::vector<double> l = NormalLogits(rng, 1000, 2.0);
  const double shift = *std::max_element(l.begin(), l.end());
  const ExpVariant v = ProcessExp().variant;
  test::ForEachTarget([&](int64_t target) {
    std::vector<double> want(l.size());
    const double z =
        twins::ExpSum(l.data(), l.size(), 1.0, shift, want.data());
    std::vector<double> e = l;
    EXPECT_EQ(Bits(z), Bits(ExpSum(e.data(), e.size(), 1.0, shift, e.data(), v)))
        << hwy::TargetName(target);
    for (size_t i = 0; i < e.size(); ++i) ASSERT_EQ(Bits(want[i]), Bits(e[i]));
  });
}

// ExpStore writes ExpSum's e values (the twin's) and nothing else.
TEST(ExpSumTest, StoreWithoutSum) {
  Rng rng{7};
  const ExpVariant v = ProcessExp().variant;
  for (size_t n : {1, 5, 511, 512, 513, 40000}) {
    const std::vector<double> l = NormalLogits(rng, n, 3.0);
    const double shift = *std::max_element(l.begin(), l.end()) / 0.7;
    std::vector<double> want(n);
    twins::ExpSum(l.data(), n, 0.7, shift, want.data());
    test::ForEachTarget([&](int64_t target) {
      std::vector<double> e(n + 1, -1.0);
      ExpStore({l.data()}, n, 0.7, shift, e.data(), v);
      for (size_t i = 0; i < n; ++i) {
        ASSERT_EQ(Bits(want[i]), Bits(e[i])) << hwy::TargetName(target) << " n " << n;
      }
      ASSERT_EQ(e[n], -1.0);
    });
  }
}

// ExpSum and ExpStore reading an f32 row (with -inf), widened on the way:
// the e values and Z of ExpSum over the widened row, for every variant on
// every target, from 0 and from an earlier piece's sum.
TEST(ExpSumTest, FromF32Row) {
  Rng rng{21};
  std::vector<size_t> lengths;
  for (size_t n = 1; n <= 40; ++n) lengths.push_back(n);
  for (size_t n : {511, 512, 513, 1025, 40000}) lengths.push_back(n);
  for (ExpVariant v : {ExpVariant::fused, ExpVariant::unfused, ExpVariant::libm}) {
    for (size_t n : lengths) {
      Case c{"f32", NormalLogits(rng, n, 2.0), n % 3 ? 1.0 : 0.7};
      for (size_t i = 0; i < n; ++i) {
        c.l[i] = i % 7 == 3 ? -kInf : static_cast<float>(c.l[i]);
      }
      if (n % 7 == 4) c.l[0] = 0.0;  // a row whose maximum is zero
      const std::vector<float> x(c.l.begin(), c.l.end());
      double shift = -kInf;
      for (double l : c.l) shift = std::max(shift, l / c.divisor);
      if (shift == -kInf) continue;
      const double s = n % 2 ? 0.0 : 1.25;
      std::vector<double> want_e(n);
      const double want = Reference(c, shift, v, want_e.data(), s);
      test::ForEachTarget([&](int64_t target) {
        const std::string at = std::string(hwy::TargetName(target)) + " " +
                               ToString(v) + " n " + std::to_string(n);
        std::vector<double> e(n + 1, -1.0), stored(n + 1, -1.0);
        const ExpSource src{nullptr, x.data()};
        ASSERT_EQ(Bits(ExpSum(src, n, c.divisor, shift, e.data(), v, s)), Bits(want)) << at;
        ASSERT_EQ(Bits(ExpSum(src, n, c.divisor, shift, nullptr, v, s)), Bits(want)) << at;
        ExpStore(src, n, c.divisor, shift, stored.data(), v);
        for (size_t i = 0; i < n; ++i) {
          ASSERT_EQ(Bits(e[i]), Bits(want_e[i])) << at << " i " << i;
          ASSERT_EQ(Bits(stored[i]), Bits(want_e[i])) << at << " i " << i;
        }
        ASSERT_EQ(e[n], -1.0);
        ASSERT_EQ(stored[n], -1.0);
      });
    }
  }
}

// An f32 row with penalised ids (ExpSource::penalised_ids, their f64 logits in
// penalised_l): the twin over the f64 row they make, on every target, whole and
// in pieces (ExpSource::At), penalised ids in the first and last ids, in runs,
// at -inf and in the special path, a block's length apart.
TEST(ExpSumTest, FromPenalisedF32Row) {
  Rng rng{23};
  for (ExpVariant v : {ExpVariant::fused, ExpVariant::unfused, ExpVariant::libm}) {
    for (size_t n : {1, 9, 513, 1025, 40000}) {
      Case c{"penalised", NormalLogits(rng, n, 2.0), n % 2 ? 0.7 : 1.0};
      const std::vector<float> x(c.l.begin(), c.l.end());
      std::vector<int32_t> ids = {0, static_cast<int32_t>(n - 1)};
      for (size_t j = 0; j < n / 40; ++j) ids.push_back(static_cast<int32_t>(rng.Next() % n));
      for (size_t j = 512; j + 2 < n; j += 512) ids.insert(ids.end(), {int32_t(j), int32_t(j + 1)});
      std::sort(ids.begin(), ids.end());
      ids.erase(std::unique(ids.begin(), ids.end()), ids.end());
      std::vector<double> penalised_l(n, 12345.0);  // read only at the penalised ids
      for (size_t j = 0; j < ids.size(); ++j) {
        const double w = j % 5 == 1 ? -kInf : j % 5 == 2 ? -600.0 : c.l[ids[j]] * 1.3 + 0.1;
        penalised_l[ids[j]] = c.l[ids[j]] = w;
      }
      double shift = -kInf;
      for (double l : c.l) shift = std::max(shift, l / c.divisor);
      std::vector<double> want_e(n);
      const double want = Reference(c, shift, v, want_e.data(), 0.0);
      const ExpSource src{nullptr, x.data(), ids.data(), penalised_l.data(), ids.size()};
      test::ForEachTarget([&](int64_t target) {
        const std::string at = std::string(hwy::TargetName(target)) + " " + ToString(v) +
                               " n " + std::to_string(n);
        std::vector<double> e(n, -1.0), stored(n, -1.0);
        ASSERT_EQ(Bits(ExpSum(src, n, c.divisor, shift, e.data(), v)), Bits(want)) << at;
        // In pieces of 700 ids, each from the sum so far, stored alike.
        double z = 0.0;
        for (size_t begin = 0; begin < n; begin += 700) {
          const size_t m = std::min<size_t>(700, n - begin);
          z = ExpSum(src.At(begin), m, c.divisor, shift, nullptr, v, z);
          ExpStore(src.At(begin), m, c.divisor, shift, stored.data() + begin, v);
        }
        ASSERT_EQ(Bits(z), Bits(want)) << at << " in pieces";
        for (size_t i = 0; i < n; ++i) {
          ASSERT_EQ(Bits(e[i]), Bits(want_e[i])) << at << " i " << i;
          ASSERT_EQ(Bits(stored[i]), Bits(want_e[i])) << at << " i " << i;
        }
      });
    }
  }
}

}  // namespace
}  // namespace exactsample::simd

namespace exactsample::simd {
namespace {

// ExpVariantOn reads a target's answer without dispatching to it: the same
// as dispatching there, on every target and for every process variant.
TEST(ExpSumTest, VariantOnEachTargetWithoutDispatch) {
  for (ExpVariant v : {ExpVariant::fused, ExpVariant::unfused, ExpVariant::libm}) {
    test::ForEachTarget([&](int64_t target) {
      EXPECT_EQ(ExpVariantOn(target, v), ExpVariantOnTarget(v)) << hwy::TargetName(target);
    });
  }
}

}  // namespace
}  // namespace exactsample::simd
