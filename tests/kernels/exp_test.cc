// The vector replica of glibc's exp (simd/exp-inl.h) on every compiled and
// supported target: the process's variant against std::exp, and each
// variant against its scalar replica (scalar_ref/twins/exp_glibc.hpp), bit for
// bit on more than 1e7 inputs per target. Also the scalar replica against
// std::exp and the start-up choice (simd/exp_choice.hpp).

#if defined(__x86_64__) || defined(__i386__)
#include <xmmintrin.h>
#endif

#include <bit>
#include <cfenv>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <string>
#include <vector>

#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "tests/kernels/exp_test.cc"
#include "hwy/foreach_target.h"  // IWYU pragma: keep
#include "hwy/highway.h"
#include "hwy/tests/hwy_gtest.h"
#include "hwy/tests/test_util-inl.h"
#include "simd/exp-inl.h"

#ifndef EXACTSAMPLE_TESTS_EXP_TEST_ONCE_
#define EXACTSAMPLE_TESTS_EXP_TEST_ONCE_

// Flush-to-zero on, and its register's name, where the architecture has one.
#if defined(__x86_64__) || defined(__i386__)
#define EXACTSAMPLE_TEST_FTZ "MXCSR"
unsigned ControlRegister() { return _mm_getcsr(); }
void SetControlRegister(unsigned c) { _mm_setcsr(c); }
constexpr unsigned kFlushToZero = 0x8040;  // FTZ and DAZ
#elif defined(__aarch64__)
#define EXACTSAMPLE_TEST_FTZ "FPCR"
unsigned ControlRegister() { return __builtin_aarch64_get_fpcr(); }
void SetControlRegister(unsigned c) { __builtin_aarch64_set_fpcr(c); }
constexpr unsigned kFlushToZero = 1u << 24;  // FZ
#endif

#include "scalar_ref/twins/exp_glibc.hpp"
#include "simd/exp_choice.hpp"
#include "tests/support/test_util.hpp"
#include "tests/support/run_self.hpp"

namespace exactsample::exp_test {

constexpr double kInf = std::numeric_limits<double>::infinity();

using test::Bits;

using Rng = test::SplitMix;

void AddUniform(std::vector<double>& xs, Rng& rng, size_t n, double lo,
                double hi) {
  for (size_t i = 0; i < n; ++i) xs.push_back(rng.Uniform(lo, hi));
}

// Dense neighbourhood of b: `ulps` consecutive doubles on each side, and
// uniform inputs within b * (1 +- 1e-6).
void AddAround(std::vector<double>& xs, Rng& rng, double b, int ulps) {
  double up = b;
  double down = b;
  for (int i = 0; i < ulps; ++i) {
    xs.push_back(up);
    xs.push_back(down);
    up = std::nextafter(up, kInf);
    down = std::nextafter(down, -kInf);
  }
  const double w = std::abs(b) * 1e-6;
  AddUniform(xs, rng, 20000, b - w, b + w);
}

// Over 1e7 inputs: the softmax range, the whole finite range, every
// boundary between code paths, and special values.
const std::vector<double>& Inputs() {
  static const std::vector<double> inputs = [] {
    std::vector<double> xs;
    Rng rng{20240917};
    AddUniform(xs, rng, test::Share(3000000), -746.0, 0.0);
    AddUniform(xs, rng, test::Share(1500000), -40.0, 0.0);
    AddUniform(xs, rng, test::Share(1500000), -1100.0, 1100.0);
    for (size_t i = 0; i < test::Share(3200000); ++i) {  // random bits: every exponent
      xs.push_back(std::bit_cast<double>(rng.Next()));
    }
    for (double b :
         {-745.1332191019412, -708.3964185322641, -708.4, -512.0, 512.0,
          709.782712893384, -1024.0, 1024.0, -744.4400719213812, 0x1p-54,
          -0x1p-54, 0x1p-53, -0x1p-53}) {
      AddAround(xs, rng, b, 20000);
    }
    for (int i = 0; i < 200000; ++i) {  // subnormal inputs
      const double s = std::bit_cast<double>(rng.Next() & 0x800fffffffffffff);
      xs.push_back(s);
    }
    using L = std::numeric_limits<double>;
    const double nan_payload = std::bit_cast<double>(0x7ff8000000012345ull);
    // clang-format off
    const double specials[] = {
        0.0, -0.0, kInf, -kInf,
        L::quiet_NaN(), -L::quiet_NaN(), L::signaling_NaN(), nan_payload,
        L::denorm_min(), -L::denorm_min(), L::min(), -L::min(),
        L::max(), -L::max()};
    // clang-format on
    xs.insert(xs.end(), std::begin(specials), std::end(specials));
    EXPECT_GE(xs.size(), test::Share(10000000));
    return xs;
  }();
  return inputs;
}

// The inputs shuffled, so that each lane sees a mix of paths: neighbours of
// every kind. Made once, for every target.
const std::vector<double>& InterleavedInputs() {
  static const std::vector<double> mixed = [] {
    std::vector<double> xs = Inputs();
    Rng rng{7};
    for (size_t i = xs.size() - 1; i > 0; --i) {
      std::swap(xs[i], xs[rng.Next() % (i + 1)]);
    }
    return xs;
  }();
  return mixed;
}

using ScalarExp = double (*)(double);

// `exp(x)` through a pointer, so the compiler cannot fold it.
double StdExp(double x) { return std::exp(x); }

ScalarExp ProcessScalarExp() {
  switch (simd::ProcessExp().variant) {
    case simd::ExpVariant::fused:
      return twins::ExpFused;
    case simd::ExpVariant::unfused:
      return twins::ExpUnfused;
    case simd::ExpVariant::libm:
      break;
  }
  return nullptr;
}

// Compares got[i] with want(xs[i]) bitwise; prints the first mismatches.
size_t CountMismatches(const char* what, const std::vector<double>& xs,
                       const std::vector<double>& got, ScalarExp want) {
  size_t mismatches = 0;
  for (size_t i = 0; i < xs.size(); ++i) {
    const double w = want(xs[i]);
    if (Bits(got[i]) != Bits(w) && mismatches++ < 5) {
      std::printf("%s: x=%a got=%a want=%a\n", what, xs[i], got[i], w);
    }
  }
  return mismatches;
}

}  // namespace exactsample::exp_test

#endif  // EXACTSAMPLE_TESTS_EXP_TEST_ONCE_

HWY_BEFORE_NAMESPACE();
namespace exactsample::simd::HWY_NAMESPACE {
namespace {

namespace hn = hwy::HWY_NAMESPACE;
namespace et = exactsample::exp_test;

// The table read by gathers or by pair loads (both exact;
// exp_detail::LoadTablePairs).
template <Fma kFma, TableRead kRead = TableRead::kPairLoads>
std::vector<double> VectorExp(const std::vector<double>& xs) {
  const hn::ScalableTag<double> d;
  const size_t lanes = hn::Lanes(d);
  std::vector<double> out(xs.size());
  size_t i = 0;
  for (; i + lanes <= xs.size(); i += lanes) {
    hn::StoreU(ExpGlibc<kFma, kRead>(d, hn::LoadU(d, xs.data() + i)), d,
               out.data() + i);
  }
  for (; i < xs.size(); ++i) {  // one lane at a time
    const hn::CappedTag<double, 1> d1;
    out[i] = hn::GetLane(ExpGlibc<kFma, kRead>(d1, hn::Set(d1, xs[i])));
  }
  return out;
}

void TestFusedMatchesReplica() {
  const auto& xs = et::Inputs();
  EXPECT_EQ(0u, et::CountMismatches("fused", xs, VectorExp<Fma::kFused>(xs),
                                    twins::ExpFused));
  EXPECT_EQ(0u, et::CountMismatches("fused, gathers", xs,
                                    VectorExp<Fma::kFused, TableRead::kGathers>(xs),
                                    twins::ExpFused));
}

void TestUnfusedMatchesReplica() {
  const auto& xs = et::Inputs();
  EXPECT_EQ(0u, et::CountMismatches("unfused", xs, VectorExp<Fma::kUnfused>(xs),
                                    twins::ExpUnfused));
  EXPECT_EQ(0u, et::CountMismatches("unfused, gathers", xs,
                                    VectorExp<Fma::kUnfused, TableRead::kGathers>(xs),
                                    twins::ExpUnfused));
}

// The replica for the process's variant is std::exp, lanes mixed.
void TestProcessVariantMatchesStdExp() {
  const ExpVariant v = ProcessExp().variant;
  if (v == ExpVariant::libm) GTEST_SKIP() << "std::exp used directly";
  const std::vector<double>& xs = et::InterleavedInputs();
  const std::vector<double> got =
      v == ExpVariant::fused ? VectorExp<Fma::kFused>(xs) : VectorExp<Fma::kUnfused>(xs);
  EXPECT_EQ(0u, et::CountMismatches("std::exp", xs, got, et::StdExp));
}

// Every partial vector of doubles (capped to 1, 2, 4, ... lanes, and
// fractions of a scalable vector), where Lanes(d) is below MaxLanes(d) on
// SVE: each lane still equals the scalar replica. Inputs sampled across
// the whole set, so every code path is met at every width.
struct TestPartial {
  template <class T, class D>
  HWY_NOINLINE void operator()(T /*unused*/, D d) {
    const auto& xs = et::Inputs();
    const size_t lanes = hn::Lanes(d);
    const size_t n = test::Share(size_t{1} << 18) / lanes * lanes;
    const size_t stride = xs.size() / n;
    std::vector<double> in(n), fused(n), unfused(n);
    for (size_t k = 0; k < n; ++k) in[k] = xs[k * stride];
    for (size_t i = 0; i < n; i += lanes) {
      const auto v = hn::LoadU(d, in.data() + i);
      hn::StoreU(ExpGlibc<Fma::kFused>(d, v), d, fused.data() + i);
      hn::StoreU(ExpGlibc<Fma::kUnfused>(d, v), d, unfused.data() + i);
    }
    EXPECT_EQ(0u, et::CountMismatches("fused", in, fused, twins::ExpFused)) << lanes;
    EXPECT_EQ(0u, et::CountMismatches("unfused", in, unfused, twins::ExpUnfused)) << lanes;
  }
};

void TestPartialVectorsMatchReplica() { hn::ForPartialVectors<TestPartial>()(double()); }

}  // namespace
// NOLINTNEXTLINE(google-readability-namespace-comments)
}  // namespace exactsample::simd::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace exactsample::simd {
namespace {

namespace et = exactsample::exp_test;

HWY_BEFORE_TEST(ExpVectorTest);
HWY_EXPORT_AND_TEST_P(ExpVectorTest, TestFusedMatchesReplica);
HWY_EXPORT_AND_TEST_P(ExpVectorTest, TestUnfusedMatchesReplica);
HWY_EXPORT_AND_TEST_P(ExpVectorTest, TestProcessVariantMatchesStdExp);
HWY_EXPORT_AND_TEST_P(ExpVectorTest, TestPartialVectorsMatchReplica);

TEST(ExpScalarTest, ProcessReplicaMatchesStdExp) {
  const et::ScalarExp replica = et::ProcessScalarExp();
  if (replica == nullptr) GTEST_SKIP() << "std::exp used directly";
  const auto& xs = et::Inputs();
  std::vector<double> got(xs.size());
  for (size_t i = 0; i < xs.size(); ++i) got[i] = replica(xs[i]);
  EXPECT_EQ(0u, et::CountMismatches("scalar", xs, got, et::StdExp));
}

// glibc on x86 picks its FMA variant when FMA and AVX2 are usable. A child process
// may state the expected variant in EXACTSAMPLE_EXPECT_EXP.
TEST(ProcessExpTest, MatchesEnvironment) {
  std::string expected;
  if (const char* e = std::getenv("EXACTSAMPLE_EXPECT_EXP")) {
    expected = e;
  } else if (const char* f = std::getenv("EXACTSAMPLE_FORCE_LIBM_EXP");
             f != nullptr && std::string(f) != "" && std::string(f) != "0") {
    expected = "libm";
  } else {
#if defined(__x86_64__) || defined(__i386__)
    __builtin_cpu_init();
    // GLIBC_TUNABLES=glibc.cpu.hwcaps=-AVX2 (or -FMA) hides them from glibc.
    const char* t = std::getenv("GLIBC_TUNABLES");
    const std::string tunables = t != nullptr ? t : "";
    const bool masked = tunables.find("-AVX2") != std::string::npos ||
                        tunables.find("-FMA") != std::string::npos;
    const bool fma_variant = __builtin_cpu_supports("fma") &&
                             __builtin_cpu_supports("avx2") && !masked;
    expected = fma_variant ? "fused" : "unfused";
#else
    // Off x86, glibc has one exp, built with FMA contraction on aarch64,
    // ppc64le and s390x (each has a fused multiply-add in its base ISA).
    expected = "fused";
#endif
  }
  const ExpChoice& choice = ProcessExp();
  EXPECT_EQ(expected, ToString(choice.variant)) << choice.reason;
  EXPECT_EQ(&choice, &ProcessExp());  // computed once
}

// The start-up choice and std::exp tests again, in a child process.
int RunChild(const std::string& env) {
  return test::RunSelf(env,
                       "ProcessExpTest.MatchesEnvironment:ExpScalarTest.*:"
                       "*TestProcessVariantMatchesStdExp*");
}

TEST(ProcessExpTest, NonFmaGlibcIsUnfused) {
#if !defined(__x86_64__) && !defined(__i386__)
  GTEST_SKIP() << "glibc has no non-FMA exp variant off x86";
#endif
  EXPECT_EQ(0, RunChild("EXACTSAMPLE_FORCE_LIBM_EXP=0 "
                        "GLIBC_TUNABLES=glibc.cpu.hwcaps=-AVX2 "
                        "EXACTSAMPLE_EXPECT_EXP=unfused"));
}

TEST(ProcessExpTest, ForcedLibm) {
  EXPECT_EQ(0, RunChild("EXACTSAMPLE_FORCE_LIBM_EXP=1 "
                        "EXACTSAMPLE_EXPECT_EXP=libm"));
}

// A non-default floating-point environment changes exp's subnormal results
// (FTZ/DAZ) or every rounding: only std::exp itself is then exact.
TEST(ProcessExpTest, NonDefaultEnvironmentUsesLibm) {
  // libm already in the default environment: forced, nothing to tell apart.
  if (ChooseExp().variant == ExpVariant::libm) GTEST_SKIP() << "forced";
#ifdef EXACTSAMPLE_TEST_FTZ
  const unsigned csr = ControlRegister();
  SetControlRegister(csr | kFlushToZero);
  const ExpChoice ftz = ChooseExp();
  SetControlRegister(csr);
  EXPECT_EQ(ExpVariant::libm, ftz.variant) << ftz.reason;
  EXPECT_NE(std::string::npos, ftz.reason.find(EXACTSAMPLE_TEST_FTZ)) << ftz.reason;
#endif

  ASSERT_EQ(0, std::fesetround(FE_UPWARD));
  const ExpChoice upward = ChooseExp();
  std::fesetround(FE_TONEAREST);
  EXPECT_EQ(ExpVariant::libm, upward.variant) << upward.reason;

  EXPECT_NE(ExpVariant::libm, ChooseExp().variant);  // restored
}

// The first caller's FTZ/DAZ does not decide the process's choice: the
// probe runs in the default environment; only that caller's calls use libm.
// Runs in a child, whose first ProcessExp() call comes from this test.
TEST(ProcessExpTest, FirstCallerInFtzChild) {
  if (std::getenv("EXACTSAMPLE_FTZ_FIRST") == nullptr) GTEST_SKIP() << "child only";
#ifdef EXACTSAMPLE_TEST_FTZ
  const unsigned csr = ControlRegister();
  SetControlRegister(csr | kFlushToZero);
  const ExpChoice& choice = ProcessExp();
  const ExpVariant caller = CallerExp();
  EXPECT_EQ(csr | kFlushToZero, ControlRegister());  // the caller's mode is restored
  SetControlRegister(csr);
  EXPECT_NE(ExpVariant::libm, choice.variant) << choice.reason;
  EXPECT_EQ(ExpVariant::libm, caller);
  EXPECT_EQ(choice.variant, CallerExp());
#else
  GTEST_SKIP() << "no flush-to-zero mode on this architecture";
#endif
}

TEST(ProcessExpTest, FirstCallerWithFtzDoesNotDecide) {
  EXPECT_EQ(0, test::RunSelf("EXACTSAMPLE_FORCE_LIBM_EXP=0 EXACTSAMPLE_FTZ_FIRST=1",
                             "ProcessExpTest.FirstCallerInFtzChild"));
}

TEST(ProcessExpTest, Names) {
  EXPECT_STREQ("fused", ToString(ExpVariant::fused));
  EXPECT_STREQ("unfused", ToString(ExpVariant::unfused));
  EXPECT_STREQ("libm", ToString(ExpVariant::libm));
}

}  // namespace
}  // namespace exactsample::simd
#endif  // HWY_ONCE
