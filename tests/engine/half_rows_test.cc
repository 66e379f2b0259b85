// 16-bit rows (Request::logits16, f16 and bf16 words): the widening against
// an independent conversion over all 65536 words, the kernels that read a
// row against their twins on every target, and whole requests on both
// engines (every target, one to three threads, sample and sample_batch)
// against the oracle the issue fixes: the same row widened to f32 by the
// caller and passed as f32 gives the same id, logprob bits, processed
// logprob, top logprobs, errors and generator position.
#include "tools/lib/half_rows.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <iostream>
#include <string>
#include <vector>

#include "exactsample.h"
#include "exactsample/batch.hpp"
#include "exactsample/exactsample.hpp"
#include "exactsample/targets.hpp"
#include "exactsample/testing.hpp"
#include "hwy/tests/hwy_gtest.h"
#include "scalar_ref/twins/half.hpp"
#include "scalar_ref/twins/max.hpp"
#include "simd/max.hpp"
#include "tests/support/c_handles.hpp"
#include "tests/support/random_requests.hpp"
#include "tests/support/test_util.hpp"

// The compiler's IEEE half type is the f16 oracle where C++ has one
// (_Float16 on x86-64, __fp16 on aarch64); elsewhere (ppc64le, s390x) the
// oracle widens by arithmetic and rows are narrowed with the tools' rounding.
#if defined(__x86_64__) && defined(__FLT16_MAX__)
#define EXACTSAMPLE_TEST_FLOAT16 1
using CompilerHalf = _Float16;
#elif defined(__aarch64__)
#define EXACTSAMPLE_TEST_FLOAT16 1
using CompilerHalf = __fp16;
#endif

namespace exactsample {
namespace {

constexpr LogitType kHalfTypes[] = {LogitType::f16, LogitType::bf16};

std::string Name(LogitType t) { return t == LogitType::f16 ? "f16" : "bf16"; }

// The oracle's widening, independent of the library's: the compiler's
// _Float16 conversion (or the value by arithmetic: sign, exponent and
// significand; NaNs compared by sign only), and bf16 as the upper half of an
// f32's bits.
float OracleWiden(uint16_t w, LogitType t) {
  if (t == LogitType::f16) {
#ifdef EXACTSAMPLE_TEST_FLOAT16
    return static_cast<float>(std::bit_cast<CompilerHalf>(w));
#else
    const float sign = (w & 0x8000) ? -1.0f : 1.0f;
    const int exponent = (w >> 10) & 0x1F;
    const int significand = w & 0x3FF;
    if (exponent == 0x1F) return std::copysign(significand ? NAN : INFINITY, sign);
    if (exponent == 0) return sign * std::ldexp(static_cast<float>(significand), -24);
    return sign * std::ldexp(static_cast<float>(1024 + significand), exponent - 25);
#endif
  }
  return std::bit_cast<float>(uint32_t{w} << 16);
}

// f32 to the nearest 16-bit word (ties to even): what a runtime's row holds.
uint16_t Narrow(float x, LogitType t) {
#ifdef EXACTSAMPLE_TEST_FLOAT16
  if (t == LogitType::f16) return std::bit_cast<uint16_t>(static_cast<CompilerHalf>(x));
#else
  if (t == LogitType::f16) return tools::F32ToF16(x);
#endif
  const uint32_t b = std::bit_cast<uint32_t>(x);
  if (std::isnan(x)) return static_cast<uint16_t>((b >> 16) | 0x40);
  return static_cast<uint16_t>((b + 0x7FFF + ((b >> 16) & 1)) >> 16);
}

std::vector<float> OracleRow(const std::vector<uint16_t>& words, LogitType t) {
  std::vector<float> x(words.size());
  for (size_t i = 0; i < words.size(); ++i) x[i] = OracleWiden(words[i], t);
  return x;
}

uint64_t Bits(double v) { return std::bit_cast<uint64_t>(v); }

// Every word, in order, as one row: each lane position sees every kind.
std::vector<uint16_t> AllWords() {
  std::vector<uint16_t> w(65536);
  for (size_t i = 0; i < w.size(); ++i) w[i] = static_cast<uint16_t>(i);
  return w;
}

TEST(HalfWiden, EveryWordMatchesTheCompilersConversion) {
  for (uint32_t w = 0; w < 65536; ++w) {
    const auto word = static_cast<uint16_t>(w);
    for (LogitType t : kHalfTypes) {
      const float want = OracleWiden(word, t);
      const float got = t == LogitType::f16 ? twins::F16ToF32(word) : twins::Bf16ToF32(word);
      if (std::isnan(want)) {
        ASSERT_TRUE(std::isnan(got)) << Name(t) << " word " << w;
        ASSERT_EQ(std::signbit(want), std::signbit(got)) << Name(t) << " word " << w;
      } else {
        ASSERT_EQ(std::bit_cast<uint32_t>(want), std::bit_cast<uint32_t>(got))
            << Name(t) << " word " << w;
      }
      // Narrowing the widened value gives the word back (NaNs aside).
      if (!std::isnan(want)) {
        ASSERT_EQ(Narrow(want, t), word) << Name(t) << " word " << w;
      }
    }
  }
  // Landmarks: the smallest f16 subnormal, the largest f16, bf16's smallest
  // subnormal (an f32 subnormal), and the infinities.
  EXPECT_EQ(twins::F16ToF32(0x0001), 0x1p-24f);
  EXPECT_EQ(twins::F16ToF32(0x7BFF), 65504.0f);
  EXPECT_EQ(twins::F16ToF32(0xFC00), -INFINITY);
  EXPECT_EQ(twins::Bf16ToF32(0x0001), 0x1p-133f);
  EXPECT_EQ(twins::Bf16ToF32(0x7F80), INFINITY);
}

// The tools' rounding (bench --dtype) against the compiler's, ties to even:
// every f32 near the f16 and bf16 boundaries and a million random bit
// patterns.
TEST(HalfWiden, ToolsRoundingMatchesTheCompilers) {
  test::SplitMix rng(18);
  std::vector<uint32_t> patterns;
  for (uint32_t w = 0; w < 65536; ++w) {
    for (uint32_t low : {0u, 0x0FFFu, 0x1000u, 0x1001u, 0x7FFFu, 0x8000u, 0x8001u, 0xFFFFu}) {
      patterns.push_back(w << 16 | low);
    }
  }
  for (size_t i = 0; i < test::Share(1000000); ++i) {
    patterns.push_back(static_cast<uint32_t>(rng.Next()));
  }
  for (uint32_t b : patterns) {
    const float x = std::bit_cast<float>(b);
    if (std::isnan(x)) {
      EXPECT_TRUE(std::isnan(twins::F16ToF32(tools::F32ToF16(x))));
      EXPECT_TRUE(std::isnan(twins::Bf16ToF32(tools::F32ToBf16(x))));
      continue;
    }
#ifdef EXACTSAMPLE_TEST_FLOAT16
    ASSERT_EQ(tools::F32ToF16(x), std::bit_cast<uint16_t>(static_cast<CompilerHalf>(x))) << b;
#endif
    if (std::isinf(x)) {
      ASSERT_EQ(twins::Bf16ToF32(tools::F32ToBf16(x)), x) << b;
      continue;
    }
    // bf16: the nearest of the two neighbours, ties to the even word.
    const uint16_t got = tools::F32ToBf16(x);
    const uint16_t down = static_cast<uint16_t>(b >> 16);
    const double d_got = std::fabs(static_cast<double>(twins::Bf16ToF32(got)) - x);
    const double d_down = std::fabs(static_cast<double>(twins::Bf16ToF32(down)) - x);
    const double d_up = std::fabs(
        static_cast<double>(twins::Bf16ToF32(static_cast<uint16_t>(down + 1))) - x);
    if (std::isinf(twins::Bf16ToF32(got)) && !std::isinf(x)) {
      ASSERT_GE(std::fabs(x), 0x1.FFp127f) << b;  // rounds past the largest bf16
      continue;
    }
    ASSERT_LE(d_got, std::min(d_down, d_up)) << b;
    if (d_down == d_up) {
      ASSERT_EQ(got & 1, 0) << b;
    }
  }
}

// simd::WidenMax over a 16-bit row against its twin (and the
// twins against the oracle), NaN words compared as NaN: a signalling NaN's
// quiet bit is the conversion instruction's choice, and such a row is
// rejected whatever its bits.
void CheckRow(const std::vector<uint16_t>& w, LogitType t, const uint32_t* bits,
              const std::string& what) {
  const size_t n = w.size();
  const simd::Row row(w.data(), t);
  std::vector<double> l(n, 7.0), l_ref(n, 7.0);
  const simd::WidenResult r = simd::WidenMax(row, n, l.data(), {bits});
  const twins::WidenResult r_ref = twins::WidenMax(row, n, l_ref.data(), {bits});
  ASSERT_EQ(r.bad, r_ref.bad) << what;
  bool bad = false;
  for (size_t i = 0; i < n; ++i) {
    const double want = static_cast<double>(OracleWiden(w[i], t));
    bad |= !(want < INFINITY);
    const bool allowed = bits == nullptr || ((bits[i / 32] >> (i % 32)) & 1) != 0;
    if (std::isnan(want) && allowed) {
      ASSERT_TRUE(std::isnan(l[i]) && std::isnan(l_ref[i])) << what << " id " << i;
    } else {
      const double expect = allowed ? want : -INFINITY;
      ASSERT_EQ(Bits(l[i]), Bits(expect)) << what << " id " << i;
      ASSERT_EQ(Bits(l_ref[i]), Bits(expect)) << what << " id " << i;
    }
  }
  ASSERT_EQ(r_ref.bad, bad) << what;
  if (!bad) {
    ASSERT_EQ(Bits(r.max), Bits(r_ref.max)) << what;
  }
}

// A random row of words: a normal body, some subnormal, zero and -inf words.
std::vector<uint16_t> RandomWords(size_t n, LogitType t, test::SplitMix& rng) {
  std::vector<uint16_t> w(n);
  for (size_t i = 0; i < n; ++i) {
    const uint64_t r = rng.Next();
    const uint16_t sign = (r >> 40) & 1 ? 0x8000 : 0;
    switch (r % 16) {
      case 0:  // subnormal (f16: widens to a normal f32; bf16: to a subnormal)
        w[i] = static_cast<uint16_t>(sign | (1 + (r >> 8) % 0x7F));
        break;
      case 1:
        w[i] = sign;  // +-0
        break;
      case 2:
        w[i] = t == LogitType::f16 ? 0xFC00 : 0xFF80;  // -inf
        break;
      default:
        w[i] = Narrow(static_cast<float>(rng.Normal(3.0)), t);
    }
  }
  return w;
}

}  // namespace
}  // namespace exactsample

// Highway's per-target fixture names ::testing, which exactsample::testing
// would hide.
namespace half_kernel_test {
namespace {

using exactsample::LogitType;
using exactsample::test::SplitMix;
namespace simd = exactsample::simd;
namespace twins = exactsample::twins;
using exactsample::AllWords;
using exactsample::Bits;
using exactsample::CheckRow;
using exactsample::kHalfTypes;
using exactsample::Name;
using exactsample::OracleWiden;
using exactsample::RandomWords;

class HalfKernelTest : public hwy::TestWithParamTarget {};
HWY_TARGET_INSTANTIATE_TEST_SUITE_P(HalfKernelTest);

TEST_P(HalfKernelTest, WidenMaxMatchesTwinsAndOracle) {
  SplitMix rng(14);
  std::vector<uint32_t> mask(262144 / 32 + 1);
  for (uint32_t& m : mask) m = static_cast<uint32_t>(rng.Next());
  for (LogitType t : kHalfTypes) {
    CheckRow(AllWords(), t, nullptr, Name(t) + " every word");
    CheckRow(AllWords(), t, mask.data(), Name(t) + " every word, masked");
    std::vector<size_t> sizes;
    for (size_t n = 1; n <= 70; ++n) sizes.push_back(n);
    for (size_t n : {127, 1000, 4099, 128256}) sizes.push_back(n);
    for (size_t n : sizes) {
      const std::string at = Name(t) + " n = " + std::to_string(n);
      std::vector<uint16_t> w = RandomWords(n, t, rng);
      CheckRow(w, t, nullptr, at);
      CheckRow(w, t, mask.data(), at + " masked");
      // One NaN or +inf word anywhere makes the row bad.
      const uint16_t special[] = {static_cast<uint16_t>(t == LogitType::f16 ? 0x7C00 : 0x7F80),
                                  static_cast<uint16_t>(t == LogitType::f16 ? 0x7E00 : 0x7FC0),
                                  static_cast<uint16_t>(t == LogitType::f16 ? 0xFC01 : 0xFF81)};
      for (uint16_t s : special) {
        w[rng.Next() % n] = s;
        CheckRow(w, t, nullptr, at + " with word " + std::to_string(s));
      }
    }
  }
}

}  // namespace
}  // namespace half_kernel_test

namespace exactsample {
namespace {

constexpr uint64_t kErrorMark = uint64_t{1} << 63;

// Everything a call gave: the token's every output as bits, or the error's
// code, field and message; and the generator's position.
std::vector<uint64_t> OutcomeOf(const Result<Token>& r, const Pcg32& rng) {
  std::vector<uint64_t> out;
  if (r) {
    out = {static_cast<uint64_t>(r->id), Bits(r->logprob), Bits(r->processed_logprob)};
    for (const TopLogprob& e : r->top_logprobs()) {
      out.push_back(static_cast<uint64_t>(e.id));
      out.push_back(Bits(e.logprob));
    }
  } else {
    out.push_back(kErrorMark + static_cast<uint64_t>(r.error().code));
    for (char ch : r.error().field + ": " + r.error().message) {
      out.push_back(static_cast<uint64_t>(ch));
    }
  }
  out.push_back(rng.draws_u32());
  out.push_back(rng.state());
  return out;
}

// A case's row as 16-bit words, with special words mixed in: subnormals,
// +-0, -inf and, rarely, a NaN or +inf word (rejected).
std::vector<uint16_t> HalfRow(const test::RandomCase& c, LogitType t, test::CaseMaker& maker) {
  std::vector<uint16_t> w(c.logits.size());
  for (size_t i = 0; i < w.size(); ++i) w[i] = Narrow(c.logits[i], t);
  if (maker.Chance(0.3)) {
    const auto n = static_cast<uint32_t>(w.size());
    const uint32_t count = 1 + maker.Below(8);
    for (uint32_t j = 0; j < count; ++j) {
      const double r = maker.Uniform();
      const auto sign = static_cast<uint16_t>(maker.Chance(0.5) ? 0x8000 : 0);
      w[maker.Below(n)] = r < 0.4   ? static_cast<uint16_t>(sign | (1 + maker.Below(0x7F)))
                          : r < 0.7 ? sign
                          : r < 0.95 ? static_cast<uint16_t>(t == LogitType::f16 ? 0xFC00 : 0xFF80)
                          : r < 0.975 ? static_cast<uint16_t>(t == LogitType::f16 ? 0x7C00 : 0x7F80)
                                      : static_cast<uint16_t>(t == LogitType::f16 ? 0x7E01 : 0xFFC1);
    }
  }
  return w;
}

struct HalfCase {
  test::RandomCase c;
  LogitType type;
  std::vector<uint16_t> words;
  std::vector<float> widened;  // the oracle's f32 row

  Request Half(std::span<const int32_t> generated) const {
    Request r = c.At(generated);
    r.logits = {};
    r.logits16 = words;
    r.logits_type = type;
    return r;
  }
  Request F32(std::span<const int32_t> generated) const {
    Request r = c.At(generated);
    r.logits = widened;
    return r;
  }
};

HalfCase MakeCase(uint64_t seed, size_t max_vocab) {
  test::CaseMaker maker(seed ^ 0x5EED);
  HalfCase h{test::CaseMaker(seed).Make(seed, max_vocab, maker.Chance(0.5)),
             maker.Chance(0.5) ? LogitType::f16 : LogitType::bf16, {}, {}};
  h.words = HalfRow(h.c, h.type, maker);
  h.widened = OracleRow(h.words, h.type);
  return h;
}

// Three tokens, each appended to the history.
template <class MakeRequest>
std::vector<uint64_t> RunSteps(const HalfCase& h, const MakeRequest& request,
                               const SampleOptions& options, Workspace& ws) {
  Pcg32 rng = stream(h.c.seed, Purpose::sample);
  std::vector<int32_t> generated = h.c.generated;
  std::vector<uint64_t> out;
  for (int step = 0; step < 3; ++step) {
    const Result<Token> t = sample(request(generated), rng, ws, options);
    const std::vector<uint64_t> o = OutcomeOf(t, rng);
    out.insert(out.end(), o.begin(), o.end());
    if (!t) break;
    generated.push_back(t->id);
  }
  return out;
}

std::string Describe(const HalfCase& h) {
  return "seed " + std::to_string(h.c.seed) + " " + Name(h.type) + " V " +
         std::to_string(h.words.size()) + " T " + std::to_string(h.c.params.temperature) +
         " N " + std::to_string(h.c.params.top_logprobs);
}

// Counts of requests compared, reported by the tests that run them.
void ExpectHalfEqualsWidened(uint64_t first_seed, int count, size_t max_vocab,
                             int threads) {
  Workspace ws;
  int errors = 0;
  const std::vector<TargetInfo> targets = compiled_targets();
  const auto supported = static_cast<size_t>(std::count_if(
      targets.begin(), targets.end(), [](const TargetInfo& t) { return t.supported; }));
  for (int i = 0; i < static_cast<int>(test::Share(count)); ++i) {
    const HalfCase h = MakeCase(first_seed + static_cast<uint64_t>(i), max_vocab);
    const auto half = [&](std::span<const int32_t> g) { return h.Half(g); };
    const auto f32 = [&](std::span<const int32_t> g) { return h.F32(g); };
    const std::vector<uint64_t> want = RunSteps(h, f32, {.engine = Engine::reference}, ws);
    errors += want[0] >= kErrorMark;
    ASSERT_EQ(RunSteps(h, half, {.engine = Engine::reference}, ws), want) << Describe(h);
    Trace trace_half, trace_f32;
    // Every target with the logprob; without it and traced (other outputs
    // of the same rows through the same widening) one target per case in
    // turn, so each target meets them on count / targets cases.
    size_t k = 0;
    for (const TargetInfo& t : targets) {
      if (!t.supported) continue;
      ASSERT_TRUE(testing::force_target(t.name));
      const bool in_turn = k++ == static_cast<size_t>(i) % supported;
      for (bool logprob : {true, false}) {
        if (!logprob && !in_turn) continue;
        const SampleOptions options{.engine = Engine::fast, .logprob = logprob,
                                    .threads = threads};
        const std::vector<uint64_t> f32_fast = RunSteps(h, f32, options, ws);
        if (logprob) {
          ASSERT_EQ(f32_fast, want) << t.name << " " << Describe(h);
        }
        ASSERT_EQ(RunSteps(h, half, options, ws), f32_fast)
            << t.name << " logprob " << logprob << " " << Describe(h);
      }
      if (!in_turn) continue;
      // Traced: the same intermediate values too.
      Pcg32 a = stream(h.c.seed, Purpose::sample), b = a;
      const auto ta = sample(h.Half(h.c.generated), a, ws,
                             {.engine = Engine::fast, .trace = &trace_half});
      const auto tb = sample(h.F32(h.c.generated), b, ws,
                             {.engine = Engine::fast, .trace = &trace_f32});
      ASSERT_EQ(OutcomeOf(ta, a), OutcomeOf(tb, b)) << t.name << " traced " << Describe(h);
      if (ta) {
        ASSERT_EQ(trace_half.penalized.size(), trace_f32.penalized.size());
        ASSERT_EQ(0, std::memcmp(trace_half.penalized.data(), trace_f32.penalized.data(),
                                 trace_f32.penalized.size() * sizeof(double)));
        ASSERT_EQ(Bits(trace_half.z_all), Bits(trace_f32.z_all));
        ASSERT_EQ(trace_half.kept_min_p, trace_f32.kept_min_p);
      }
    }
    ASSERT_TRUE(testing::force_target(""));
  }
  std::cout << count << " requests (" << errors << " rejected) compared, 16-bit against f32\n";
}

TEST(HalfRows, SmallAndMediumVocabulariesEqualTheWidenedRow) {
  ExpectHalfEqualsWidened(140000, 2000, 5000, 1);
}

TEST(HalfRows, LargeVocabulariesOnThreeThreadsEqualTheWidenedRow) {
  ExpectHalfEqualsWidened(150000, 40, 262144, 3);
}

// The plain path (temperature 1, nothing else: an f32 row is read in place
// by both passes, a 16-bit one widened by the first) at V = 128256 across
// threads, with and without top-N.
TEST(HalfRows, PlainRowsReadInPlaceAcrossThreads) {
  Workspace ws;
  test::SplitMix rng(16);
  for (LogitType t : kHalfTypes) {
    for (int rep = 0; rep < 4; ++rep) {
      std::vector<uint16_t> words(128256);
      for (auto& w : words) w = Narrow(static_cast<float>(rng.Normal(2.0)), t);
      const std::vector<float> widened = OracleRow(words, t);
      for (int64_t top_logprobs : {0, 5, 20}) {
        SamplingParams p;
        p.top_logprobs = top_logprobs;
        Request half{{}, {}, {}, p};
        half.logits16 = words;
        half.logits_type = t;
        const Request f32{widened, {}, {}, p};
        for (int threads : {1, 2, 4}) {
          Pcg32 a = stream(rep, Purpose::sample), b = a;
          const SampleOptions o{.threads = threads};
          ASSERT_EQ(OutcomeOf(sample(half, a, ws, o), a), OutcomeOf(sample(f32, b, ws, o), b))
              << Name(t) << " threads " << threads << " N " << top_logprobs;
        }
      }
    }
  }
}

TEST(HalfRows, BatchRowsEqualTheWidenedRow) {
  std::vector<HalfCase> cases;
  for (uint64_t seed = 160000; seed < 160200; ++seed) cases.push_back(MakeCase(seed, 40000));
  std::vector<Pcg32> rng_half, rng_f32;
  std::vector<BatchRow> half, f32;
  for (const HalfCase& h : cases) {
    rng_half.push_back(stream(h.c.seed, Purpose::sample));
    rng_f32.push_back(stream(h.c.seed, Purpose::sample));
  }
  for (size_t i = 0; i < cases.size(); ++i) {
    half.push_back({cases[i].Half(cases[i].c.generated), &rng_half[i]});
    f32.push_back({cases[i].F32(cases[i].c.generated), &rng_f32[i]});
  }
  BatchWorkspace ws;
  for (int threads : {1, 3}) {
    std::vector<Result<Token>> got, want;
    sample_batch(half, got, ws, {}, threads);
    sample_batch(f32, want, ws, {}, threads);
    ASSERT_EQ(got.size(), want.size());
    for (size_t i = 0; i < got.size(); ++i) {
      ASSERT_EQ(OutcomeOf(got[i], rng_half[i]), OutcomeOf(want[i], rng_f32[i]))
          << "row " << i << " threads " << threads << " " << Describe(cases[i]);
    }
  }
}

TEST(HalfRows, NanAndInfinityWordsAreRejectedNamingLogits) {
  Workspace ws;
  for (LogitType t : kHalfTypes) {
    const bool f16 = t == LogitType::f16;
    const uint16_t bad[] = {static_cast<uint16_t>(f16 ? 0x7C00 : 0x7F80),   // +inf
                            static_cast<uint16_t>(f16 ? 0x7E00 : 0x7FC0),   // NaN
                            static_cast<uint16_t>(f16 ? 0x7C01 : 0x7F81),   // signalling
                            static_cast<uint16_t>(f16 ? 0xFE00 : 0xFFC0)};  // -NaN
    for (uint16_t word : bad) {
      for (size_t at : {size_t{0}, size_t{37}, size_t{99}}) {
        std::vector<uint16_t> words(100, f16 ? 0x3C00 : 0x3F80);  // 1.0
        words[at] = word;
        Request r{{}, {}, {}, {}};
        r.logits16 = words;
        r.logits_type = t;
        const auto v = validate(r);
        ASSERT_FALSE(v);
        EXPECT_EQ(v.error().code, ErrorCode::invalid_logits);
        EXPECT_EQ(v.error().field, "logits");
        EXPECT_NE(v.error().message.find("logits[" + std::to_string(at) + "]"),
                  std::string::npos) << v.error().message;
        for (Engine engine : {Engine::reference, Engine::fast}) {
          Pcg32 rng = stream(1, Purpose::sample);
          const auto s = sample(r, rng, ws, {.engine = engine});
          ASSERT_FALSE(s);
          EXPECT_EQ(s.error().message, v.error().message);
          EXPECT_EQ(rng.draws_u32(), 0u);
        }
      }
    }
    // Every word -inf: the f32 rule too.
    std::vector<uint16_t> minus_inf(10, f16 ? 0xFC00 : 0xFF80);
    Request r{{}, {}, {}, {}};
    r.logits16 = minus_inf;
    r.logits_type = t;
    ASSERT_FALSE(validate(r));
    EXPECT_EQ(validate(r).error().code, ErrorCode::invalid_logits);
  }
}

TEST(HalfRows, TheRowMustBeTheOneTheTypeSelects) {
  const std::vector<float> x(4, 1.0f);
  const std::vector<uint16_t> w(4, 0x3C00);
  Request both{x, {}, {}, {}};
  both.logits16 = w;
  both.logits_type = LogitType::f16;
  Request words_as_f32{{}, {}, {}, {}};
  words_as_f32.logits16 = w;  // logits_type left f32
  Request empty16{{}, {}, {}, {}};
  empty16.logits_type = LogitType::bf16;
  Request unknown{{}, {}, {}, {}};
  unknown.logits16 = w;
  unknown.logits_type = static_cast<LogitType>(7);
  for (const Request* r : {&both, &words_as_f32, &empty16, &unknown}) {
    const auto v = validate(*r);
    ASSERT_FALSE(v);
    EXPECT_EQ(v.error().code, ErrorCode::invalid_logits);
    EXPECT_EQ(v.error().field, "logits");
  }
  EXPECT_NE(validate(both).error().message.find("f16"), std::string::npos);
  EXPECT_NE(validate(empty16).error().message.find("empty"), std::string::npos);
  Request ok{{}, {}, {}, {}};
  ok.logits16 = w;
  ok.logits_type = LogitType::f16;
  EXPECT_TRUE(validate(ok));
  EXPECT_EQ(ok.vocab(), 4u);
}

// The C ABI: requests on 16-bit rows, single and batch, against the same
// requests on the widened rows, top-N included; a bad logits_type is an
// argument error naming it.
TEST(HalfRows, CAbiEqualsTheWidenedRow) {
  exactsample_sampler* s = nullptr;
  ASSERT_EQ(exactsample_sampler_create(EXACTSAMPLE_ENGINE_FAST, &s), EXACTSAMPLE_OK);
  exactsample_params params;
  exactsample_params_init(&params);
  params.temperature = 0.8;
  params.top_p = 0.9;
  constexpr size_t kRows = 3, kVocab = 1000, kStride = 1003;
  for (LogitType t : kHalfTypes) {
    const int c_type = t == LogitType::f16 ? EXACTSAMPLE_LOGITS_F16 : EXACTSAMPLE_LOGITS_BF16;
    test::SplitMix rng(17);
    std::vector<uint16_t> words(kRows * kStride);
    for (auto& w : words) w = Narrow(static_cast<float>(rng.Normal(2.0)), t);
    const std::vector<float> widened = OracleRow(words, t);
    std::vector<exactsample_rng> gens(2 * kRows);
    std::vector<exactsample_request> rows(2 * kRows);
    std::vector<double> logprobs(2 * kRows);
    std::vector<std::array<int32_t, 5>> top_ids(2 * kRows);
    std::vector<std::array<double, 5>> top_values(2 * kRows);
    std::vector<size_t> top_counts(2 * kRows);
    std::vector<double> processed(2 * kRows);
    std::vector<exactsample_extras> extras(2 * kRows);
    for (size_t i = 0; i < 2 * kRows; ++i) {
      ASSERT_EQ(exactsample_rng_stream(i % kRows, EXACTSAMPLE_PURPOSE_SAMPLE, &gens[i]),
                EXACTSAMPLE_OK);
      extras[i] = {};
      extras[i].struct_size = sizeof(exactsample_extras);
      extras[i].top_logprobs = 5;
      extras[i].top_ids = top_ids[i].data();
      extras[i].top_logprob_values = top_values[i].data();
      extras[i].top_count = &top_counts[i];
      extras[i].processed_logprob = &processed[i];
      const bool half = i < kRows;
      rows[i] =
          test::StatelessRequest(half ? static_cast<const void*>(words.data()) : widened.data(),
                                 kVocab, nullptr, 0, nullptr, 0, &params, &extras[i], &gens[i],
                                 &logprobs[i], half ? c_type : EXACTSAMPLE_LOGITS_F32);
      rows[i].row_stride = kStride;
    }
    std::vector<exactsample_token> got(kRows), want(kRows);
    ASSERT_EQ(exactsample_sample_requests(s, nullptr, rows.data(), kRows, got.data(), 2),
              EXACTSAMPLE_OK);
    ASSERT_EQ(exactsample_sample_requests(s, nullptr, rows.data() + kRows, kRows, want.data(), 2),
              EXACTSAMPLE_OK);
    for (size_t i = 0; i < kRows; ++i) {
      EXPECT_EQ(got[i].id, want[i].id) << i;
      EXPECT_EQ(Bits(got[i].logprob), Bits(want[i].logprob)) << i;
      EXPECT_EQ(Bits(logprobs[i]), Bits(logprobs[kRows + i])) << i;
      EXPECT_EQ(Bits(processed[i]), Bits(processed[kRows + i])) << i;
      ASSERT_EQ(top_counts[i], top_counts[kRows + i]) << i;
      for (size_t j = 0; j < top_counts[i]; ++j) {
        EXPECT_EQ(top_ids[i][j], top_ids[kRows + i][j]);
        EXPECT_EQ(Bits(top_values[i][j]), Bits(top_values[kRows + i][j]));
      }
      EXPECT_EQ(gens[i].state, gens[kRows + i].state) << i;
      // One row at a time, row 1 of the matrix.
      exactsample_rng a, b;
      exactsample_rng_stream(9, EXACTSAMPLE_PURPOSE_SAMPLE, &a);
      b = a;
      int32_t id_a = -1, id_b = -2;
      double lp_a = 0, lp_b = 1;
      ASSERT_EQ(test::SampleStateless(s, words.data() + kStride, kVocab, nullptr, 0, nullptr, 0,
                                      &params, nullptr, &a, &id_a, &lp_a, c_type),
                EXACTSAMPLE_OK);
      ASSERT_EQ(test::SampleStateless(s, widened.data() + kStride, kVocab, nullptr, 0, nullptr, 0,
                                      &params, nullptr, &b, &id_b, &lp_b),
                EXACTSAMPLE_OK);
      EXPECT_EQ(id_a, id_b);
      EXPECT_EQ(Bits(lp_a), Bits(lp_b));
      EXPECT_EQ(a.state, b.state);
    }
    // A NaN word: the f32 rule's status and message.
    words[kStride + 5] = t == LogitType::f16 ? 0x7E00 : 0x7FC0;
    exactsample_rng g;
    exactsample_rng_stream(1, EXACTSAMPLE_PURPOSE_SAMPLE, &g);
    int32_t id = -1;
    EXPECT_EQ(test::SampleStateless(s, words.data() + kStride, kVocab, nullptr, 0, nullptr, 0,
                                    &params, nullptr, &g, &id, nullptr, c_type),
              EXACTSAMPLE_INVALID_LOGITS);
    EXPECT_NE(std::string(exactsample_sampler_last_error(s)).find("logits[5] = nan"),
              std::string::npos)
        << exactsample_sampler_last_error(s);
  }
  // logits_type must name a row type.
  exactsample_rng g;
  exactsample_rng_stream(1, EXACTSAMPLE_PURPOSE_SAMPLE, &g);
  const uint16_t w[2] = {0x3C00, 0x4000};
  int32_t id = -1;
  for (int bad : {3, -1}) {
    EXPECT_EQ(test::SampleStateless(s, w, 2, nullptr, 0, nullptr, 0, &params, nullptr, &g, &id,
                                    nullptr, bad),
              EXACTSAMPLE_INVALID_ARGUMENT);
    EXPECT_NE(std::string(exactsample_sampler_last_error(s)).find("logits_type = " +
                                                                  std::to_string(bad)),
              std::string::npos);
    exactsample_token token;
    const exactsample_request row =
        test::StatelessRequest(w, 2, nullptr, 0, nullptr, 0, &params, nullptr, &g, nullptr, bad);
    EXPECT_EQ(exactsample_sample_requests(s, nullptr, &row, 1, &token, 1),
              EXACTSAMPLE_INVALID_ARGUMENT);
    EXPECT_EQ(token.status, EXACTSAMPLE_INVALID_ARGUMENT);
  }
  exactsample_sampler_destroy(s);
}

}  // namespace
}  // namespace exactsample
