// The library's additions around the spec: logit bias, masks, the processed
// and top-N logprobs. Masks equal -inf written into the row, the top-N
// selection's rounding fallback, bad inputs with their errors (nothing
// drawn), and the C ABI's requests with extras (the rank too) against the
// C++ API.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "exactsample.h"
#include "exactsample/exactsample.hpp"
#include "exactsample/targets.hpp"
#include "exactsample/testing.hpp"
#include "tests/support/c_cases.hpp"
#include "tests/support/c_handles.hpp"
#include "tests/support/random_requests.hpp"
#include "tests/support/test_util.hpp"

namespace exactsample {
namespace {

using test::Bits;

// Three tokens of a request (each appended to the history) on `engine`,
// and the generator position; the error message instead when it fails.
std::vector<uint64_t> RunSteps(const test::RandomCase& c, Engine engine, Workspace& ws) {
  Pcg32 rng = stream(c.seed, Purpose::sample);
  std::vector<int32_t> generated = c.generated;
  std::vector<uint64_t> out;
  for (int step = 0; step < 3; ++step) {
    const auto t = sample(c.At(generated), rng, ws, {.engine = engine});
    if (!t) {
      for (char ch : t.error().message) out.push_back(static_cast<uint64_t>(ch));
      break;
    }
    const auto bits = Bits(*t);
    out.insert(out.end(), bits.begin(), bits.end());
    generated.push_back(t->id);
  }
  out.push_back(rng.draws_u32());
  return out;
}

// The same request with the mask written into the row as -inf (the bias
// stays, applied to the -inf ids as to any).
test::RandomCase MaskedRow(test::RandomCase c) {
  std::vector<bool> allowed(c.logits.size(), c.allowed.empty());
  for (int32_t i : c.allowed) allowed[i] = true;
  for (int32_t i : c.banned) allowed[i] = false;
  for (size_t i = 0; i < c.logits.size(); ++i) {
    const bool bit = c.allowed_bits.empty() || ((c.allowed_bits[i / 32] >> (i % 32)) & 1);
    if (!allowed[i] || !bit) c.logits[i] = -INFINITY;
  }
  c.allowed.clear();
  c.banned.clear();
  c.allowed_bits.clear();
  return c;
}

TEST(Features, MasksEqualMinusInfinityInTheRow) {
  Workspace ws;
  int masked = 0;
  for (uint64_t seed = 300000; masked < 400; ++seed) {
    test::RandomCase c = test::CaseMaker(seed).Make(seed, 5000, true);
    if (c.allowed.empty() && c.banned.empty() && c.allowed_bits.empty()) continue;
    ++masked;
    const test::RandomCase row = MaskedRow(c);
    for (Engine engine : {Engine::reference, Engine::fast}) {
      EXPECT_EQ(RunSteps(c, engine, ws), RunSteps(row, engine, ws)) << "seed " << seed;
    }
  }
}

// Logits that differ by one ulp of a small value far below M = 20, so that
// (l - M) - log(Z) (ulp 3.6e-15) rounds neighbours to one logprob: ties in
// the top-N that the selection by l cannot order, left to the scalar
// definition.
TEST(Features, TopLogprobsTiedByRounding) {
  Workspace ws;
  for (size_t vocab : {64, 5000, 40000}) {
    std::vector<float> x(vocab, -30.0f);
    x[vocab / 2] = 20.0f;
    for (size_t j = 0; j < 40; ++j) {  // 1e-8 and its next 3 floats: 1 ulp is 1.7e-15
      float v = 1e-8f;
      for (size_t u = 0; u < j % 4; ++u) v = std::nextafter(v, 1.0f);
      x[(j * 7919) % vocab] = v;
    }
    for (int64_t n : {1, 5, 20}) {
      test::RandomCase c{vocab, x, {}, {}, {}};
      c.params.top_logprobs = n;
      c.params.temperature = n == 5 ? 0.0 : 1.0;
      const auto want = RunSteps(c, Engine::reference, ws);
      for (const TargetInfo& t : compiled_targets()) {
        if (!t.supported) continue;
        ASSERT_TRUE(testing::force_target(t.name));
        EXPECT_EQ(RunSteps(c, Engine::fast, ws), want) << t.name << " V=" << vocab << " N=" << n;
      }
      ASSERT_TRUE(testing::force_target(""));
    }
  }
}

TEST(Features, TopLogprobsListsTheLargestRawLogprobs) {
  const std::vector<float> x{1.0f, 3.0f, 2.0f, 3.0f, -INFINITY, 0.5f};
  Workspace ws;
  for (Engine engine : {Engine::reference, Engine::fast}) {
    Pcg32 rng = stream(0, Purpose::sample);
    Request req{x, {}, {}, {}};
    req.params.top_logprobs = 20;
    const auto t = sample(req, rng, ws, {.engine = engine});
    ASSERT_TRUE(t);
    ASSERT_EQ(t->top_count, 5u);  // the -inf id is left out
    double z = 0.0;
    for (float v : x) z += std::exp(static_cast<double>(v) - 3.0);
    const int32_t order[] = {1, 3, 2, 0, 5};
    for (size_t r = 0; r < 5; ++r) {
      EXPECT_EQ(t->top[r].id, order[r]);
      EXPECT_EQ(test::Bits(t->top[r].logprob),
                test::Bits((static_cast<double>(x[order[r]]) - 3.0) - std::log(z)));
    }
    // T = 1, no filter: K is every finite id, so the processed logprob is
    // the raw one.
    EXPECT_EQ(test::Bits(t->processed_logprob), test::Bits(t->logprob));
  }
}

// Logits [0, 0, 0] biased by +1e308 and -1e308: l = [1e308, -1e308, 0], M =
// 1e308, Z = 1, so id 1's logprob (-1e308 - 1e308) overflows to -inf and is
// left out like a -inf logit's, in both engines on every target, whether
// the selection holds it (N = 3, 20) or stops before it (N = 1, 2).
TEST(Features, TopLogprobsLeaveOutLogprobsThatOverflow) {
  const std::vector<float> x{0.0f, 0.0f, 0.0f};
  const std::vector<int32_t> ids{0, 1};
  const std::vector<double> values{1e308, -1e308};
  const TopLogprob want[] = {{0, 0.0}, {2, -1e308}};
  Workspace ws;
  for (int64_t n : {1, 2, 3, 20}) {
    Request req{x, {}, {}, {}};
    req.bias = {ids, values};
    req.params.top_logprobs = n;
    const size_t count = std::min<size_t>(static_cast<size_t>(n), 2);
    Pcg32 ref_rng = stream(0, Purpose::sample);
    const auto ref = sample(req, ref_rng, ws, {.engine = Engine::reference});
    ASSERT_TRUE(ref) << ref.error().message;
    ASSERT_EQ(ref->top_count, count) << "N=" << n;
    for (size_t r = 0; r < count; ++r) {
      EXPECT_EQ(ref->top[r].id, want[r].id);
      EXPECT_EQ(test::Bits(ref->top[r].logprob), test::Bits(want[r].logprob));
    }
    for (const TargetInfo& t : compiled_targets()) {
      if (!t.supported) continue;
      ASSERT_TRUE(testing::force_target(t.name));
      Pcg32 rng = stream(0, Purpose::sample);
      const auto fast = sample(req, rng, ws, {.engine = Engine::fast});
      ASSERT_TRUE(fast);
      EXPECT_EQ(*fast, *ref) << t.name << " N=" << n;  // the unused entries too
    }
    ASSERT_TRUE(testing::force_target(""));
  }
}

// validate() returns sample()'s error, also for inputs that only the steps
// find wrong: a bias to +inf (an id given twice), every finite id masked,
// penalties that overflow, l / T overflowing; and no error where sample()
// samples.
TEST(Features, ValidateAnswersWhatSampleDoes) {
  const std::vector<float> x{1.0f, -3e38f, 2.0f, -INFINITY};
  const int32_t twice[] = {0, 0}, finite[] = {0, 1, 2}, only_inf[] = {3}, history[] = {1};
  const double huge[] = {1.7e308, 1.7e308};
  std::vector<Request> requests;
  requests.push_back({x, {}, {}, {}, {twice, huge}});
  requests.push_back({x, {}, {}, {}, {}, {{}, finite, {}}});
  requests.push_back({x, {}, {}, {}, {}, {only_inf, {}, {}}});
  requests.push_back({x, {}, {}, {.temperature = 1e-320}});
  requests.push_back({x, {}, history, {.frequency_penalty = -1.7e308}});
  requests.push_back({x, {}, {}, {.temperature = 0.5}});  // good
  Workspace ws;
  for (size_t i = 0; i < requests.size(); ++i) {
    Pcg32 rng = stream(3, Purpose::sample);
    const auto sampled = sample(requests[i], rng, ws);
    const auto validated = validate(requests[i]);
    ASSERT_EQ(validated.ok(), sampled.ok()) << i;
    if (sampled) continue;
    EXPECT_EQ(validated.error().code, sampled.error().code) << i;
    EXPECT_EQ(validated.error().field, sampled.error().field) << i;
    EXPECT_EQ(validated.error().message, sampled.error().message) << i;
    EXPECT_EQ(rng.draws_u32(), 0u);
  }
  EXPECT_TRUE(validate(requests.back()));
}

TEST(Features, GreedyProcessedLogprobIsZeroAndBiasDecides) {
  const std::vector<float> x{1.0f, 3.0f, 2.0f};
  const int32_t ids[] = {2};
  const double values[] = {1.0};  // id 2 ties id 1: the lower id wins
  Workspace ws;
  for (Engine engine : {Engine::reference, Engine::fast}) {
    Pcg32 rng = stream(0, Purpose::sample);
    Request req{x, {}, {}, {}, {ids, values}};
    req.params.temperature = 0.0;
    auto t = sample(req, rng, ws, {.engine = engine});
    ASSERT_TRUE(t);
    EXPECT_EQ(t->id, 1);
    EXPECT_EQ(test::Bits(t->processed_logprob), test::Bits(0.0));
    const double more[] = {1.5};
    req.bias.values = more;
    t = sample(req, rng, ws, {.engine = engine});
    EXPECT_EQ(t->id, 2);
    EXPECT_EQ(rng.draws_u32(), 0u);
  }
}

TEST(Features, BadInputsNameTheFieldAndDrawNothing) {
  const std::vector<float> x{0.5f, -1.0f, 2.0f};
  const int32_t in_range[] = {0}, out_of_range[] = {3}, negative[] = {-1};
  const int32_t twice[] = {2, 2}, all[] = {0, 1, 2};
  const double finite[] = {1.0}, nan[] = {NAN}, inf[] = {INFINITY};
  const double huge[] = {1.7e308, 1.7e308};
  const uint32_t short_bits[] = {7u};
  const std::vector<uint32_t> one_word{0u};
  struct Bad {
    Request request;
    const char* field;
  };
  std::vector<Bad> bad;
  bad.push_back({{x, {}, {}, {}, {out_of_range, finite}}, "logit_bias"});
  bad.push_back({{x, {}, {}, {}, {negative, finite}}, "logit_bias"});
  bad.push_back({{x, {}, {}, {}, {in_range, nan}}, "logit_bias"});
  bad.push_back({{x, {}, {}, {}, {in_range, inf}}, "logit_bias"});
  bad.push_back({{x, {}, {}, {}, {in_range, {}}}, "logit_bias"});
  bad.push_back({{x, {}, {}, {}, {twice, huge}}, "logit_bias"});  // +inf
  bad.push_back({{x, {}, {}, {}, {}, {out_of_range, {}, {}}}, "allowed_token_ids"});
  bad.push_back({{x, {}, {}, {}, {}, {{}, negative, {}}}, "banned_token_ids"});
  bad.push_back({{x, {}, {}, {}, {}, {{}, all, {}}}, "mask"});
  bad.push_back({{x, {}, {}, {}, {}, {in_range, in_range, {}}}, "mask"});
  bad.push_back({{x, {}, {}, {}, {}, {{}, {}, one_word}}, "mask"});
  std::vector<float> wide(40, 1.0f);
  bad.push_back({{wide, {}, {}, {}, {}, {{}, {}, short_bits}}, "allowed_bitmask"});
  // The row's own errors come first, masked ids included.
  const int32_t one[] = {1};
  const double minus_huge[] = {-1.7e308, -1.7e308};
  const std::vector<float> nan_row{0.5f, NAN, 2.0f}, no_finite(3, -INFINITY);
  const std::vector<float> one_finite{-INFINITY, 1.0f, -INFINITY};
  bad.push_back({{nan_row, {}, {}, {}, {}, {{}, one, {}}}, "logits"});
  bad.push_back({{no_finite, {}, {}, {}, {}, {in_range, {}, {}}}, "logits"});
  bad.push_back({{one_finite, {}, {}, {}, {}, {{}, one, {}}}, "mask"});
  const int32_t one_twice[] = {1, 1};
  bad.push_back({{one_finite, {}, {}, {}, {one_twice, minus_huge}}, "mask"});  // -inf
  for (int64_t n : {-1, 21}) {
    Request r{x, {}, {}, {}};
    r.params.top_logprobs = n;
    bad.push_back({r, "top_logprobs"});
  }
  Workspace ws;
  for (const Bad& b : bad) {
    for (Engine engine : {Engine::reference, Engine::fast}) {
      Pcg32 rng = stream(1, Purpose::sample);
      const auto t = sample(b.request, rng, ws, {.engine = engine});
      ASSERT_FALSE(t) << b.field;
      EXPECT_EQ(t.error().field, b.field) << t.error().message;
      EXPECT_NE(t.error().message.find(b.field), std::string::npos) << t.error().message;
      EXPECT_EQ(rng.draws_u32(), 0u);
    }
  }
}

// The bias comes before the mask: a masked-out id biased to +inf is no
// error, only -inf.
TEST(Features, MaskedIdBiasedToInfinityIsMasked) {
  const std::vector<float> x{0.5f, -1.0f, 2.0f};
  const int32_t twice[] = {2, 2}, banned[] = {2};
  const double huge[] = {1.7e308, 1.7e308};
  Workspace ws;
  for (Engine engine : {Engine::reference, Engine::fast}) {
    Pcg32 rng = stream(1, Purpose::sample);
    const auto t = sample({x, {}, {}, {}, {twice, huge}, {{}, banned, {}}}, rng, ws,
                          {.engine = engine});
    ASSERT_TRUE(t) << t.error().message;
    EXPECT_NE(t->id, 2);
  }
}

using test::CExtras;
using test::CParams;

// A fast-engine sampler and a workspace for the C++ side.
class FeaturesCAbi : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_EQ(exactsample_sampler_create(EXACTSAMPLE_ENGINE_FAST, &sampler), EXACTSAMPLE_OK);
  }
  void TearDown() override { exactsample_sampler_destroy(sampler); }

  exactsample_sampler* sampler = nullptr;
  Workspace ws;
};

// A stateless request with extras equals the C++ API on random requests
// with every addition (the rank on every other one), and its outputs land
// in the caller's arrays.
TEST_F(FeaturesCAbi, RequestWithExtrasMatchesTheCppApi) {
  for (uint64_t seed = 400000; seed < 400200; ++seed) {
    const test::RandomCase c = test::CaseMaker(seed).Make(seed, 5000, true);
    Pcg32 rng = stream(c.seed, Purpose::sample);
    SampleOptions options;
    options.rank = seed % 2 == 0;
    const auto want = sample(c.At(c.generated), rng, ws, options);

    const exactsample_params params = CParams(c.params);
    CExtras out(c, true);
    int64_t rank = -1;
    if (options.rank) out.extras.rank = &rank;
    double logprob = NAN;
    exactsample_rng crng;
    exactsample_rng_stream(c.seed, EXACTSAMPLE_PURPOSE_SAMPLE, &crng);
    int32_t id = -1;
    const exactsample_status status = test::SampleStateless(
        sampler, c.logits.data(), c.logits.size(), c.prompt.data(), c.prompt.size(),
        c.generated.data(), c.generated.size(), &params, &out.extras, &crng, &id, &logprob);
    if (!want) {
      EXPECT_NE(status, EXACTSAMPLE_OK);
      EXPECT_EQ(std::string(exactsample_sampler_last_error(sampler)), want.error().message);
      EXPECT_EQ(crng.draws_u32, 0u);
      continue;
    }
    ASSERT_EQ(status, EXACTSAMPLE_OK) << exactsample_sampler_last_error(sampler);
    EXPECT_EQ(Bits(out.TokenOf(id, logprob)), Bits(*want)) << "seed " << seed;
    EXPECT_EQ(crng.draws_u32, rng.draws_u32());
    if (options.rank) {
      EXPECT_GE(want->rank, 1) << "seed " << seed;
      EXPECT_EQ(rank, want->rank) << "seed " << seed;
    }
  }
  exactsample_extras wrong{};
  wrong.struct_size = 4;
  exactsample_params params;
  exactsample_params_init(&params);
  exactsample_rng crng{};
  int32_t id;
  const float x[] = {1.0f};
  EXPECT_EQ(test::SampleStateless(sampler, x, 1, nullptr, 0, nullptr, 0, &params, &wrong, &crng,
                                  &id, nullptr),
            EXACTSAMPLE_INVALID_ARGUMENT);
}

// A batch of stateless requests, each row with its own extras (a case's
// with the rank, none, or malformed), equal to the C++ API row by row; a
// malformed row gets its error and the others are sampled.
TEST_F(FeaturesCAbi, BatchWithExtrasMatchesTheCppApi) {
  for (uint64_t seed = 410000; seed < 410100; ++seed) {
    const test::RandomCase c = test::CaseMaker(seed).Make(seed, 5000, true);
    const size_t vocab = c.logits.size();
    std::vector<float> rows_logits;
    for (int r = 0; r < 3; ++r) rows_logits.insert(rows_logits.end(), c.logits.begin(), c.logits.end());
    const exactsample_params params = CParams(c.params);
    CExtras with(c, true), without(c, false), bad(c, true);
    int64_t rank = -1;
    with.extras.rank = &rank;
    bad.extras.struct_size = 4;
    const exactsample_extras extras[] = {with.extras, without.extras, bad.extras};
    exactsample_rng rngs[3];
    double logprobs[3];
    exactsample_request rows[3];
    for (size_t r = 0; r < 3; ++r) {
      exactsample_rng_stream(c.seed + r, EXACTSAMPLE_PURPOSE_SAMPLE, &rngs[r]);
      rows[r] = test::StatelessRequest(rows_logits.data(), vocab, c.prompt.data(), c.prompt.size(),
                                       c.generated.data(), c.generated.size(), &params, &extras[r],
                                       &rngs[r], &logprobs[r]);
      rows[r].row_stride = vocab;
    }
    exactsample_token results[3];
    exactsample_sample_requests(sampler, nullptr, rows, 3, results, 2);
    for (size_t r = 0; r < 2; ++r) {
      Request request = c.At(c.generated);
      if (r == 1) {
        request.bias = {};
        request.mask = {};
        request.params.top_logprobs = 0;
      }
      Pcg32 rng = stream(c.seed + r, Purpose::sample);
      SampleOptions options;
      options.rank = r == 0;
      const auto want = sample(request, rng, ws, options);
      const std::string at = "seed " + std::to_string(seed) + " row " + std::to_string(r);
      if (!want) {
        EXPECT_NE(results[r].status, EXACTSAMPLE_OK) << at;
        EXPECT_EQ(std::string(exactsample_sampler_row_error(sampler, r)), want.error().message);
        continue;
      }
      ASSERT_EQ(results[r].status, EXACTSAMPLE_OK) << at;
      const CExtras& out = r == 0 ? with : without;
      EXPECT_EQ(Bits(out.TokenOf(results[r].id, results[r].logprob)), Bits(*want)) << at;
      EXPECT_EQ(Bits(logprobs[r]), Bits(want->logprob)) << at;
      EXPECT_EQ(rngs[r].draws_u32, rng.draws_u32()) << at;
      if (r == 0) {
        EXPECT_EQ(rank, want->rank) << at;
      }
    }
    EXPECT_EQ(results[2].status, EXACTSAMPLE_INVALID_ARGUMENT);
    EXPECT_EQ(rngs[2].draws_u32, 0u);
  }
  exactsample_token result;
  exactsample_rng crng{};
  const exactsample_request no_logits =
      test::StatelessRequest(nullptr, 1, nullptr, 0, nullptr, 0, nullptr, nullptr, &crng, nullptr);
  EXPECT_EQ(exactsample_sample_requests(sampler, nullptr, &no_logits, 1, &result, 1),
            EXACTSAMPLE_INVALID_ARGUMENT);
}

}  // namespace
}  // namespace exactsample
