// The C ABI: results equal the C++ API's, bad arguments return statuses
// (never a crash), and a request can move between workers as plain fields.
// CI also runs this program under AddressSanitizer and UBSan.
#include "exactsample.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <string>
#include <type_traits>
#include <vector>

#include "exactsample/exactsample.hpp"
#include "exactsample/targets.hpp"
#include "tests/support/c_handles.hpp"
#include "tests/support/test_util.hpp"

namespace {

using exactsample::test::Bits;
using exactsample::test::Sampler;
using exactsample::test::SampleStateless;
using exactsample::test::StatelessRequest;

std::vector<float> Row(size_t vocab) {
  std::vector<float> x(vocab);
  for (size_t i = 0; i < vocab; ++i) x[i] = static_cast<float>(std::sin(0.37 * i) * 3);
  return x;
}

exactsample_params Params() {
  exactsample_params p;
  exactsample_params_init(&p);
  p.temperature = 0.9;
  p.top_k = 20;
  p.min_p = 0.02;
  return p;
}

TEST(CApi, MatchesTheCppApi) {
  const auto x = Row(1000);
  const int32_t prompt[] = {3, 5, 999};
  for (auto engine : {EXACTSAMPLE_ENGINE_REFERENCE, EXACTSAMPLE_ENGINE_FAST}) {
    Sampler s(engine);
    exactsample_params p = Params();
    exactsample_rng rng;
    ASSERT_EQ(exactsample_rng_stream(42, EXACTSAMPLE_PURPOSE_SAMPLE, &rng), EXACTSAMPLE_OK);
    exactsample::Pcg32 cpp_rng = exactsample::stream(42, exactsample::Purpose::sample);
    exactsample::Workspace ws;
    std::vector<int32_t> generated;
    for (int step = 0; step < 10; ++step) {
      int32_t id = -1;
      double logprob = 0;
      ASSERT_EQ(SampleStateless(s.s, x.data(), x.size(), prompt, 3, generated.data(),
                                generated.size(), &p, nullptr, &rng, &id, &logprob),
                EXACTSAMPLE_OK)
          << exactsample_sampler_last_error(s.s);
      const auto want = exactsample::sample(
          {x, prompt, generated, {0.9, 1.0, 0.0, 0.0, 20, 1.0, 0.02}}, cpp_rng, ws,
          {engine == EXACTSAMPLE_ENGINE_FAST ? exactsample::Engine::fast
                                             : exactsample::Engine::reference});
      ASSERT_TRUE(want);
      EXPECT_EQ(id, want->id);
      EXPECT_EQ(Bits(logprob), Bits(want->logprob));
      EXPECT_EQ(rng.draws_u32, cpp_rng.draws_u32());
      EXPECT_EQ(rng.state, cpp_rng.state());
      generated.push_back(id);
    }
  }
}

TEST(CApi, BadArgumentsReturnStatusesWithMessages) {
  Sampler s;
  const auto x = Row(16);
  exactsample_params p = Params();
  exactsample_rng rng;
  exactsample_rng_stream(1, EXACTSAMPLE_PURPOSE_SAMPLE, &rng);
  const exactsample_rng rng_before = rng;
  int32_t id = 123;
  double lp = 0;
  const int32_t out_of_range[] = {16};
  EXPECT_EQ(
      SampleStateless(nullptr, x.data(), 16, nullptr, 0, nullptr, 0, &p, nullptr, &rng, &id, &lp),
      EXACTSAMPLE_INVALID_ARGUMENT);
  EXPECT_EQ(SampleStateless(s.s, nullptr, 16, nullptr, 0, nullptr, 0, &p, nullptr, &rng, &id, &lp),
            EXACTSAMPLE_INVALID_ARGUMENT);
  EXPECT_NE(std::string(exactsample_sampler_last_error(s.s)).find("NULL"), std::string::npos);
  EXPECT_EQ(SampleStateless(s.s, x.data(), 16, nullptr, 3, nullptr, 0, &p, nullptr, &rng, &id, &lp),
            EXACTSAMPLE_INVALID_ARGUMENT);
  EXPECT_EQ(
      SampleStateless(s.s, x.data(), 16, nullptr, 0, nullptr, 0, &p, nullptr, nullptr, &id, &lp),
      EXACTSAMPLE_INVALID_ARGUMENT);
  const exactsample_request good =
      StatelessRequest(x.data(), 16, nullptr, 0, nullptr, 0, &p, nullptr, &rng, &lp);
  EXPECT_EQ(exactsample_sample_request(s.s, nullptr, &good, nullptr), EXACTSAMPLE_INVALID_ARGUMENT);
  EXPECT_EQ(std::string(exactsample_sampler_last_error(s.s)), "out is NULL");
  exactsample_token token;
  EXPECT_EQ(exactsample_sample_request(s.s, nullptr, nullptr, &token),
            EXACTSAMPLE_INVALID_ARGUMENT);
  EXPECT_EQ(std::string(exactsample_sampler_last_error(s.s)), "request is NULL");
  exactsample_params wrong = p;
  wrong.struct_size = sizeof(exactsample_params) - 4;
  EXPECT_EQ(
      SampleStateless(s.s, x.data(), 16, nullptr, 0, nullptr, 0, &wrong, nullptr, &rng, &id, &lp),
      EXACTSAMPLE_INVALID_ARGUMENT);
  EXPECT_NE(std::string(exactsample_sampler_last_error(s.s)).find("struct_size"), std::string::npos);
  EXPECT_EQ(SampleStateless(s.s, x.data(), 0, nullptr, 0, nullptr, 0, &p, nullptr, &rng, &id, &lp),
            EXACTSAMPLE_INVALID_LOGITS);
  EXPECT_EQ(SampleStateless(s.s, nullptr, 0, nullptr, 0, nullptr, 0, &p, nullptr, &rng, &id, &lp),
            EXACTSAMPLE_INVALID_LOGITS);
  EXPECT_EQ(
      SampleStateless(s.s, x.data(), 16, out_of_range, 1, nullptr, 0, &p, nullptr, &rng, &id, &lp),
      EXACTSAMPLE_INVALID_IDS);
  EXPECT_NE(std::string(exactsample_sampler_last_error(s.s)).find("prompt[0] = 16"), std::string::npos);
  exactsample_params bad = p;
  bad.top_p = -1;
  EXPECT_EQ(
      SampleStateless(s.s, x.data(), 16, nullptr, 0, nullptr, 0, &bad, nullptr, &rng, &id, &lp),
      EXACTSAMPLE_INVALID_PARAMETER);
  EXPECT_NE(std::string(exactsample_sampler_last_error(s.s)).find("top_p = -1"), std::string::npos);
  EXPECT_EQ(id, 123);
  EXPECT_EQ(rng.state, rng_before.state);
  EXPECT_EQ(rng.draws_u32, rng_before.draws_u32);

  EXPECT_EQ(exactsample_sampler_create(EXACTSAMPLE_ENGINE_FAST, nullptr), EXACTSAMPLE_INVALID_ARGUMENT);
  exactsample_sampler* none = nullptr;
  for (int engine : {7, -1, INT32_MIN}) {  // an int: no invalid enum value is loaded
    EXPECT_EQ(exactsample_sampler_create(engine, &none), EXACTSAMPLE_INVALID_ARGUMENT);
    EXPECT_EQ(none, nullptr);
  }
  exactsample_sampler_destroy(nullptr);
  EXPECT_EQ(exactsample_rng_stream(1, EXACTSAMPLE_PURPOSE_SAMPLE, nullptr),
            EXACTSAMPLE_INVALID_ARGUMENT);
  EXPECT_EQ(exactsample_rng_advance(nullptr, 3), EXACTSAMPLE_INVALID_ARGUMENT);
  EXPECT_EQ(exactsample_testing_force_target("NOSUCH"), EXACTSAMPLE_INVALID_PARAMETER);
  exactsample_params_init(nullptr);
  EXPECT_STREQ(exactsample_status_name(EXACTSAMPLE_INVALID_IDS), "invalid ids");
}

// Each malformed struct gets its own message: which struct or field, and for
// struct_size the size given and the size this version expects.
TEST(CApi, EachMalformedStructIsNamed) {
  Sampler s;
  const auto x = Row(16);
  exactsample_rng rng;
  exactsample_rng_stream(1, EXACTSAMPLE_PURPOSE_SAMPLE, &rng);
  const exactsample_rng before = rng;
  int32_t id = 123;
  double lp = 0;
  const auto message = [&](const exactsample_params* p, const exactsample_extras* e) {
    EXPECT_EQ(SampleStateless(s.s, x.data(), 16, nullptr, 0, nullptr, 0, p, e, &rng, &id, &lp),
              EXACTSAMPLE_INVALID_ARGUMENT);
    EXPECT_EQ(id, 123);
    EXPECT_EQ(rng.state, before.state);
    return std::string(exactsample_sampler_last_error(s.s));
  };
  const std::string params_size = std::to_string(sizeof(exactsample_params));
  const std::string extras_size = std::to_string(sizeof(exactsample_extras));
  exactsample_params p = Params();
  p.struct_size = 8;
  EXPECT_EQ(message(&p, nullptr),
            "request.params: exactsample_params.struct_size = 8, expected " + params_size +
                " (sizeof(exactsample_params) in this version; exactsample_params_init sets it)");
  p.struct_size = sizeof(exactsample_params) + 8;  // a newer caller's larger struct
  std::string larger = "request.params: exactsample_params.struct_size = ";
  larger += std::to_string(sizeof(exactsample_params) + 8);
  larger += ", expected " + params_size +
            " (sizeof(exactsample_params) in this version; exactsample_params_init sets it)";
  EXPECT_EQ(message(&p, nullptr), larger);
  p = Params();
  exactsample_extras e{};
  EXPECT_EQ(
      message(&p, &e),
      "request.extras: exactsample_extras.struct_size = 0, expected " + extras_size +
          " (sizeof(exactsample_extras) in this version; zero the struct and set it to sizeof)");
  const auto with = [](auto set) {
    exactsample_extras x{};
    x.struct_size = sizeof x;
    set(x);
    return x;
  };
  static const int32_t ids[] = {1};
  static const double values[] = {1.0};
  e = with([](exactsample_extras& x) { x.bias_len = 2; x.bias_values = values; });
  EXPECT_EQ(message(&p, &e), "request.extras.bias_ids is NULL with bias_len = 2");
  e = with([](exactsample_extras& x) { x.bias_len = 1; x.bias_ids = ids; });
  EXPECT_EQ(message(&p, &e), "request.extras.bias_values is NULL with bias_len = 1");
  e = with([](exactsample_extras& x) { x.allowed_len = 3; });
  EXPECT_EQ(message(&p, &e), "request.extras.allowed_ids is NULL with allowed_len = 3");
  e = with([](exactsample_extras& x) { x.banned_len = 4; });
  EXPECT_EQ(message(&p, &e), "request.extras.banned_ids is NULL with banned_len = 4");
  e = with([](exactsample_extras& x) { x.allowed_ids = ids; });  // allowed_len 0: empty
  EXPECT_EQ(message(&p, &e),
            "request.extras.allowed_ids is not NULL with allowed_len = 0: an empty "
            "list allows no id; pass NULL to allow every id");
  e = with([](exactsample_extras& x) { x.allowed_bitmask_words = 5; });
  EXPECT_EQ(message(&p, &e),
            "request.extras.allowed_bitmask is NULL with allowed_bitmask_words = 5");
  e = with([](exactsample_extras& x) { x.top_logprobs = 2; });
  EXPECT_EQ(message(&p, &e),
            "request.extras.top_logprobs = 2 needs top_ids and top_logprob_values (one is NULL)");

  // A batch row says the same, with its index.
  p.struct_size = 8;
  exactsample_request row =
      StatelessRequest(x.data(), 16, nullptr, 0, nullptr, 0, &p, nullptr, &rng, nullptr);
  exactsample_token out;
  EXPECT_EQ(exactsample_sample_requests(s.s, nullptr, &row, 1, &out, 1),
            EXACTSAMPLE_INVALID_ARGUMENT);
  EXPECT_EQ(std::string(exactsample_sampler_row_error(s.s, 0)),
            "requests[0].params: exactsample_params.struct_size = 8, expected " + params_size +
                " (sizeof(exactsample_params) in this version; exactsample_params_init sets it)");
  p = Params();
  e = with([](exactsample_extras& x) { x.banned_len = 4; });
  row.extras = &e;
  EXPECT_EQ(exactsample_sample_requests(s.s, nullptr, &row, 1, &out, 1),
            EXACTSAMPLE_INVALID_ARGUMENT);
  EXPECT_EQ(std::string(exactsample_sampler_row_error(s.s, 0)),
            "requests[0].extras.banned_ids is NULL with banned_len = 4");
  row.extras = nullptr;
  row.rng = nullptr;
  EXPECT_EQ(exactsample_sample_requests(s.s, nullptr, &row, 1, &out, 1),
            EXACTSAMPLE_INVALID_ARGUMENT);
  EXPECT_EQ(std::string(exactsample_sampler_row_error(s.s, 0)),
            "requests[0].rng is NULL: a stateless request needs its generator");
  EXPECT_EQ(rng.state, before.state);
}

TEST(CApi, BatchSamplesGoodRowsAndReportsBadOnes) {
  Sampler s;
  const size_t vocab = 64, stride = 80, rows = 5;
  std::vector<float> m(rows * stride, 0.0f);
  for (size_t r = 0; r < rows; ++r) {
    const auto x = Row(vocab);
    std::copy(x.begin(), x.end(), m.begin() + static_cast<std::ptrdiff_t>(r * stride));
  }
  m[2 * stride + 5] = NAN;
  exactsample_params p = Params();
  exactsample_params wrong = p;
  wrong.struct_size = 3;
  std::vector<exactsample_rng> rngs(rows);
  for (size_t r = 0; r < rows; ++r) exactsample_rng_stream(r, EXACTSAMPLE_PURPOSE_SAMPLE, &rngs[r]);
  const int32_t bad_id[] = {64};
  std::vector<double> logprobs(rows);
  std::vector<exactsample_request> req(rows);
  for (size_t r = 0; r < rows; ++r) {
    req[r] = StatelessRequest(m.data(), vocab, nullptr, 0, nullptr, 0, &p, nullptr, &rngs[r],
                              &logprobs[r]);
    req[r].row_stride = stride;  // row r starts r * stride floats after m
  }
  req[1].params = &wrong;
  req[3].prompt = bad_id;
  req[3].prompt_len = 1;
  std::vector<exactsample_token> out(rows);
  EXPECT_EQ(exactsample_sample_requests(s.s, nullptr, req.data(), rows, out.data(), 2),
            EXACTSAMPLE_INVALID_ARGUMENT);
  EXPECT_EQ(out[0].status, EXACTSAMPLE_OK);
  EXPECT_EQ(out[1].status, EXACTSAMPLE_INVALID_ARGUMENT);
  EXPECT_EQ(out[2].status, EXACTSAMPLE_INVALID_LOGITS);
  EXPECT_NE(std::string(exactsample_sampler_row_error(s.s, 2)).find("logits[5] = nan"), std::string::npos);
  EXPECT_EQ(out[3].status, EXACTSAMPLE_INVALID_IDS);
  EXPECT_EQ(out[4].status, EXACTSAMPLE_OK);
  EXPECT_EQ(rngs[0].draws_u32, 2u);
  EXPECT_EQ(rngs[2].draws_u32, 0u);

  // Row 4 equals a single call on the same inputs.
  exactsample_rng single;
  exactsample_rng_stream(4, EXACTSAMPLE_PURPOSE_SAMPLE, &single);
  int32_t id;
  double lp;
  ASSERT_EQ(SampleStateless(s.s, &m[4 * stride], vocab, nullptr, 0, nullptr, 0, &p, nullptr,
                            &single, &id, &lp),
            EXACTSAMPLE_OK);
  EXPECT_EQ(id, out[4].id);
  EXPECT_EQ(Bits(lp), Bits(out[4].logprob));

  for (auto& r : req) r.row_stride = vocab - 1;
  EXPECT_EQ(exactsample_sample_requests(s.s, nullptr, req.data(), rows, out.data(), 1),
            EXACTSAMPLE_INVALID_ARGUMENT);
  EXPECT_NE(std::string(exactsample_sampler_row_error(s.s, 0))
                .find("requests[0].row_stride = 63 is smaller than the row's 64 elements"),
            std::string::npos)
      << exactsample_sampler_row_error(s.s, 0);
  for (auto& r : req) r.logits = nullptr;
  EXPECT_EQ(exactsample_sample_requests(s.s, nullptr, req.data(), rows, out.data(), 1),
            EXACTSAMPLE_INVALID_ARGUMENT);
  EXPECT_EQ(exactsample_sample_requests(s.s, nullptr, nullptr, 0, nullptr, 1), EXACTSAMPLE_OK);
  // Row counts whose arrays cannot exist are bad arguments, not internal errors.
  for (const size_t huge : {size_t{1} << 60, SIZE_MAX}) {
    EXPECT_EQ(exactsample_sample_requests(s.s, nullptr, req.data(), huge, out.data(), 1),
              EXACTSAMPLE_INVALID_ARGUMENT);
    EXPECT_NE(std::string(exactsample_sampler_last_error(s.s)).find("exceed the address space"),
              std::string::npos);
  }
  EXPECT_STREQ(exactsample_sampler_row_error(s.s, 99), "no such row in the last batch");
}

// Prefill samples the first token and reports its draws; a decode worker
// rebuilds stream(seed, EXACTSAMPLE_PURPOSE_SAMPLE), advances it by that count and continues.
TEST(CApi, HandOffBetweenWorkersEqualsOneStream) {
  const auto x = Row(500);
  exactsample_params p = Params();
  for (double temperature : {0.0, 0.9}) {
    p.temperature = temperature;
    std::vector<int32_t> whole(8);
    {
      Sampler s;
      exactsample_rng rng;
      exactsample_rng_stream(2024, EXACTSAMPLE_PURPOSE_SAMPLE, &rng);
      for (size_t t = 0; t < whole.size(); ++t) {
        double lp;
        ASSERT_EQ(SampleStateless(s.s, x.data(), x.size(), nullptr, 0, whole.data(), t, &p, nullptr,
                                  &rng, &whole[t], &lp),
                  EXACTSAMPLE_OK);
      }
    }
    std::vector<int32_t> split(8);
    uint64_t draws_reported;
    {
      Sampler prefill;
      exactsample_rng rng;
      exactsample_rng_stream(2024, EXACTSAMPLE_PURPOSE_SAMPLE, &rng);
      double lp;
      ASSERT_EQ(SampleStateless(prefill.s, x.data(), x.size(), nullptr, 0, nullptr, 0, &p, nullptr,
                                &rng, &split[0], &lp),
                EXACTSAMPLE_OK);
      draws_reported = rng.draws_u32 / 2;  // uniform draws: 1 sampled, 0 greedy
      EXPECT_EQ(draws_reported, temperature == 0.0 ? 0u : 1u);
    }
    {
      Sampler decode;
      exactsample_rng rng;
      exactsample_rng_stream(2024, EXACTSAMPLE_PURPOSE_SAMPLE, &rng);
      exactsample_rng_advance(&rng, 2 * draws_reported);
      for (size_t t = 1; t < split.size(); ++t) {
        double lp;
        ASSERT_EQ(SampleStateless(decode.s, x.data(), x.size(), nullptr, 0, split.data(), t, &p,
                                  nullptr, &rng, &split[t], &lp),
                  EXACTSAMPLE_OK);
      }
    }
    EXPECT_EQ(split, whole) << temperature;
  }
}

TEST(CApi, VersionAndTargets) {
  EXPECT_STRNE(exactsample_version(), "");
  ASSERT_GT(exactsample_target_count(), 0u);
  EXPECT_EQ(exactsample_target_name(exactsample_target_count()), nullptr);
  for (size_t i = 0; i < exactsample_target_count(); ++i) {
    if (!exactsample_target_supported(i)) continue;
    EXPECT_EQ(exactsample_testing_force_target(exactsample_target_name(i)), EXACTSAMPLE_OK);
  }
  EXPECT_EQ(exactsample_testing_force_target(nullptr), EXACTSAMPLE_OK);
}

TEST(CApi, ExpChoiceIsTheCppOnesAndStays) {
  const char* choice = exactsample_exp_choice();
  ASSERT_NE(choice, nullptr);
  EXPECT_EQ(std::string(choice), exactsample::exp_choice());
  EXPECT_EQ(exactsample_exp_choice(), choice);  // static: the same string every call
}

// The raw seeding and the uniform double against the spec's shared vectors
// (the default seq), and against the C++ generator on other seqs.
TEST(CApi, SeededAndUniformF64MatchTheVectorsAndTheCppGenerator) {
  const nlohmann::json v = exactsample::test::LoadJson("pcg32_vectors.json");
  const auto seq = v["default_seq"].get<uint64_t>();
  ASSERT_FALSE(v["next_u32"].empty());
  for (const auto& [seed, outputs] : v["next_u32"].items()) {
    exactsample_rng rng;
    ASSERT_EQ(exactsample_rng_seeded(std::stoull(seed), seq, &rng), EXACTSAMPLE_OK);
    EXPECT_EQ(rng.draws_u32, 0u);
    for (const auto& want : outputs) {
      uint32_t got = 0;
      ASSERT_EQ(exactsample_rng_next_u32(&rng, &got), EXACTSAMPLE_OK);
      EXPECT_EQ(got, want.get<uint32_t>()) << "seed " << seed;
    }
  }
  ASSERT_FALSE(v["uniform_f64"].empty());
  for (const auto& [seed, outputs] : v["uniform_f64"].items()) {
    exactsample_rng rng;
    ASSERT_EQ(exactsample_rng_seeded(std::stoull(seed), seq, &rng), EXACTSAMPLE_OK);
    for (const auto& want : outputs) {
      double got = -1.0;
      ASSERT_EQ(exactsample_rng_uniform_f64(&rng, &got), EXACTSAMPLE_OK);
      EXPECT_EQ(Bits(got), Bits(want.get<double>())) << "seed " << seed;
    }
    EXPECT_EQ(rng.draws_u32, 2 * outputs.size());
  }
  for (uint64_t other : {0ULL, 1ULL, 7ULL, ~0ULL}) {
    exactsample_rng rng;
    ASSERT_EQ(exactsample_rng_seeded(99, other, &rng), EXACTSAMPLE_OK);
    exactsample::Pcg32 want = exactsample::Pcg32::seeded(99, other);
    for (int k = 0; k < 4; ++k) {
      double got = -1.0;
      ASSERT_EQ(exactsample_rng_uniform_f64(&rng, &got), EXACTSAMPLE_OK);
      EXPECT_EQ(Bits(got), Bits(want.uniform_f64())) << other;
    }
    EXPECT_EQ(rng.state, want.state()) << other;
    EXPECT_EQ(rng.inc, want.inc()) << other;
    EXPECT_EQ(rng.draws_u32, want.draws_u32()) << other;
  }
  exactsample_rng rng;
  exactsample_rng_seeded(5, seq, &rng);
  const exactsample_rng before = rng;
  double u = 0.5;
  EXPECT_EQ(exactsample_rng_seeded(5, seq, nullptr), EXACTSAMPLE_INVALID_ARGUMENT);
  EXPECT_EQ(exactsample_rng_uniform_f64(nullptr, &u), EXACTSAMPLE_INVALID_ARGUMENT);
  EXPECT_EQ(exactsample_rng_uniform_f64(&rng, nullptr), EXACTSAMPLE_INVALID_ARGUMENT);
  EXPECT_EQ(u, 0.5);
  EXPECT_EQ(std::memcmp(&rng, &before, sizeof rng), 0);  // nothing drawn
}

// logprob = NULL skips the logprob (SampleOptions::logprob = false): the
// same id and generator position as with one, engines, greedy and sampled.
TEST(CApi, NullLogprobGivesTheSameIdAndGenerator) {
  const auto x = Row(3000);
  const int32_t prompt[] = {7, 9, 2999};
  for (auto engine : {EXACTSAMPLE_ENGINE_REFERENCE, EXACTSAMPLE_ENGINE_FAST}) {
    Sampler with(engine), without(engine);
    for (int config = 0; config < 4; ++config) {
      exactsample_params p = Params();
      p.temperature = config == 0 ? 0.0 : 0.9;   // greedy, then sampled
      p.top_k = config == 2 ? 0 : 20;            // top-k skips the softmax
      p.top_p = config == 3 ? 0.9 : 1.0;
      p.repetition_penalty = config == 3 ? 1.2 : 1.0;
      exactsample_rng a, b;
      exactsample_rng_stream(77, EXACTSAMPLE_PURPOSE_SAMPLE, &a);
      exactsample_rng_stream(77, EXACTSAMPLE_PURPOSE_SAMPLE, &b);
      std::vector<int32_t> generated;
      for (int step = 0; step < 6; ++step) {
        int32_t id_a = -1, id_b = -1;
        double lp = 0;
        ASSERT_EQ(SampleStateless(with.s, x.data(), x.size(), prompt, 3, generated.data(),
                                  generated.size(), &p, nullptr, &a, &id_a, &lp),
                  EXACTSAMPLE_OK);
        ASSERT_EQ(SampleStateless(without.s, x.data(), x.size(), prompt, 3, generated.data(),
                                  generated.size(), &p, nullptr, &b, &id_b, nullptr),
                  EXACTSAMPLE_OK)
            << exactsample_sampler_last_error(without.s);
        EXPECT_TRUE(std::isfinite(lp));
        EXPECT_EQ(id_a, id_b) << "config " << config << " step " << step;
        EXPECT_EQ(a.state, b.state);
        EXPECT_EQ(a.draws_u32, b.draws_u32);
        generated.push_back(id_a);
      }
    }
  }
}

// A batch with a logprob output per row and one without any: the same
// statuses, ids and generators; without, nothing is written to the
// logprobs and each token's logprob is NaN.
TEST(CApi, BatchWithAndWithoutLogprobs) {
  Sampler s;
  const size_t vocab = 2000, rows = 6;
  std::vector<float> m(rows * vocab);
  for (size_t r = 0; r < rows; ++r) {
    const auto x = Row(vocab + r);
    std::copy(x.begin() + static_cast<std::ptrdiff_t>(r), x.end(),
              m.begin() + static_cast<std::ptrdiff_t>(r * vocab));
  }
  m[3 * vocab + 1] = NAN;  // a bad row
  std::vector<exactsample_params> params(rows, Params());
  params[1].temperature = 0.0;
  params[2].top_k = 0;
  params[4].top_p = 0.8;
  auto run = [&](bool with_logprobs, std::vector<exactsample_rng>& rngs,
                 std::vector<exactsample_token>& out, std::vector<double>& logprobs) {
    rngs.assign(rows, {});
    logprobs.assign(rows, 123.0);
    std::vector<exactsample_request> req(rows);
    for (size_t r = 0; r < rows; ++r) {
      exactsample_rng_stream(100 + r, EXACTSAMPLE_PURPOSE_SAMPLE, &rngs[r]);
      req[r] = StatelessRequest(m.data(), vocab, nullptr, 0, nullptr, 0, &params[r], nullptr,
                                &rngs[r], with_logprobs ? &logprobs[r] : nullptr);
      req[r].row_stride = vocab;
    }
    out.assign(rows, {EXACTSAMPLE_INTERNAL, -7, 0.0});
    return exactsample_sample_requests(s.s, nullptr, req.data(), rows, out.data(), 3);
  };
  std::vector<exactsample_rng> rngs[2];
  std::vector<exactsample_token> out[2];
  std::vector<double> logprobs[2];
  for (int kind = 0; kind < 2; ++kind) {
    EXPECT_EQ(run(kind == 0, rngs[kind], out[kind], logprobs[kind]), EXACTSAMPLE_INVALID_LOGITS)
        << kind;
  }
  EXPECT_EQ(out[0][3].status, EXACTSAMPLE_INVALID_LOGITS);
  EXPECT_EQ(out[1][3].id, -1);
  for (size_t r = 0; r < rows; ++r) {
    EXPECT_EQ(out[1][r].status, out[0][r].status) << r;
    EXPECT_EQ(out[1][r].id, out[0][r].id) << r;
    EXPECT_EQ(rngs[1][r].state, rngs[0][r].state) << " row " << r;
    EXPECT_EQ(rngs[1][r].draws_u32, rngs[0][r].draws_u32) << " row " << r;
    if (out[0][r].status != EXACTSAMPLE_OK) continue;
    EXPECT_EQ(Bits(logprobs[0][r]), Bits(out[0][r].logprob)) << r;
    EXPECT_TRUE(std::isnan(out[1][r].logprob)) << r;
    EXPECT_EQ(logprobs[1][r], 123.0) << "logprob = NULL writes nothing";
  }
  EXPECT_EQ(rngs[0][1].draws_u32, 0u);  // greedy
  EXPECT_EQ(rngs[0][0].draws_u32, 2u);

  const exactsample_request one = StatelessRequest(m.data(), vocab, nullptr, 0, nullptr, 0,
                                                   &params[0], nullptr, &rngs[0][0], nullptr);
  EXPECT_EQ(exactsample_sample_requests(s.s, nullptr, &one, 1, nullptr, 1),
            EXACTSAMPLE_INVALID_ARGUMENT);
  EXPECT_NE(std::string(exactsample_sampler_last_error(s.s)).find("NULL"), std::string::npos);
}

// exactsample_sampler_set_threads: 1 to 64, the value named in the error,
// and the same bits for every count.
TEST(CApi, RowThreads) {
  Sampler s;
  for (int bad : {0, -1, 65, 1000}) {
    EXPECT_EQ(exactsample_sampler_set_threads(s.s, bad), EXACTSAMPLE_INVALID_ARGUMENT);
    EXPECT_NE(std::string(exactsample_sampler_last_error(s.s))
                  .find("threads = " + std::to_string(bad)),
              std::string::npos)
        << exactsample_sampler_last_error(s.s);
  }
  EXPECT_EQ(exactsample_sampler_set_threads(nullptr, 2), EXACTSAMPLE_INVALID_ARGUMENT);
  EXPECT_EQ(exactsample_sampler_set_threads(s.s, 64), EXACTSAMPLE_OK);
  EXPECT_STREQ(exactsample_sampler_last_error(s.s), "");

  // Long enough to be split across 4 threads (16384 ids each at least).
  const auto x = Row(100000);
  for (int config = 0; config < 3; ++config) {
    exactsample_params p;
    exactsample_params_init(&p);
    if (config == 1) p.temperature = 0.7;
    if (config == 2) p.top_p = 0.95;
    int32_t want_id = -1;
    double want_lp = 0;
    exactsample_rng want_rng{};
    for (int threads = 1; threads <= 4; ++threads) {
      ASSERT_EQ(exactsample_sampler_set_threads(s.s, threads), EXACTSAMPLE_OK);
      exactsample_rng rng;
      exactsample_rng_stream(5, EXACTSAMPLE_PURPOSE_SAMPLE, &rng);
      int32_t id = -1;
      double lp = 0;
      ASSERT_EQ(SampleStateless(s.s, x.data(), x.size(), nullptr, 0, nullptr, 0, &p, nullptr, &rng,
                                &id, &lp),
                EXACTSAMPLE_OK);
      if (threads == 1) {
        want_id = id;
        want_lp = lp;
        want_rng = rng;
        // A rejected count keeps the previous one.
        EXPECT_EQ(exactsample_sampler_set_threads(s.s, 0), EXACTSAMPLE_INVALID_ARGUMENT);
        continue;
      }
      EXPECT_EQ(id, want_id) << "threads " << threads << " config " << config;
      EXPECT_EQ(Bits(lp), Bits(want_lp)) << "threads " << threads;
      EXPECT_EQ(rng.state, want_rng.state);
      EXPECT_EQ(rng.draws_u32, want_rng.draws_u32);
    }
  }
}

// The public C++ header keeps Workspace's implementation to itself.
template <class W>
concept ExposesImpl = requires(W& w) { w.impl(); } || requires { typename W::Impl; };
static_assert(!ExposesImpl<exactsample::Workspace>);
static_assert(std::is_nothrow_move_constructible_v<exactsample::Workspace>);

TEST(CApi, VersionMacrosAndPurposes) {
  EXPECT_STREQ(exactsample_version(), EXACTSAMPLE_VERSION_STRING);
  const std::string want = std::to_string(EXACTSAMPLE_VERSION_MAJOR) + "." +
                           std::to_string(EXACTSAMPLE_VERSION_MINOR) + "." +
                           std::to_string(EXACTSAMPLE_VERSION_PATCH);
  EXPECT_EQ(want, exactsample_version());
  EXPECT_EQ(EXACTSAMPLE_VERSION_NUMBER, EXACTSAMPLE_VERSION_MAJOR * 10000 +
                                            EXACTSAMPLE_VERSION_MINOR * 100 +
                                            EXACTSAMPLE_VERSION_PATCH);
  using exactsample::Purpose;
  EXPECT_EQ(EXACTSAMPLE_PURPOSE_SAMPLE, 4);
  EXPECT_EQ(static_cast<uint64_t>(EXACTSAMPLE_PURPOSE_INIT), static_cast<uint64_t>(Purpose::init));
  EXPECT_EQ(static_cast<uint64_t>(EXACTSAMPLE_PURPOSE_DROPOUT), static_cast<uint64_t>(Purpose::dropout));
  EXPECT_EQ(static_cast<uint64_t>(EXACTSAMPLE_PURPOSE_SHUFFLE), static_cast<uint64_t>(Purpose::shuffle));
  EXPECT_EQ(static_cast<uint64_t>(EXACTSAMPLE_PURPOSE_SAMPLE), static_cast<uint64_t>(Purpose::sample));
  EXPECT_EQ(static_cast<uint64_t>(EXACTSAMPLE_PURPOSE_MUTATION), static_cast<uint64_t>(Purpose::mutation));
  for (uint64_t seed : {0ull, 42ull}) {
    exactsample_rng rng;
    ASSERT_EQ(exactsample_rng_stream(seed, EXACTSAMPLE_PURPOSE_SAMPLE, &rng), EXACTSAMPLE_OK);
    const auto cpp = exactsample::stream(seed, Purpose::sample);
    EXPECT_EQ(rng.state, cpp.state());
    EXPECT_EQ(rng.inc, cpp.inc());
  }
}

}  // namespace
