// The spec's behaviour, checked for every engine through the public API.
#include <gtest/gtest.h>

#include <cmath>
#include <set>
#include <vector>

#include "exactsample/exactsample.hpp"
#include "scalar_ref/reference.hpp"
#include "hwy/targets.h"
#include "tests/support/test_util.hpp"

namespace exactsample {
namespace {

using test::Bits;

class SpecTest : public ::testing::TestWithParam<Engine> {
 protected:
  Result<Token> Sample(const std::vector<float>& logits, SamplingParams params,
                       Pcg32& rng, const std::vector<int32_t>& prompt = {},
                       const std::vector<int32_t>& generated = {}) {
    return sample(Request{logits, prompt, generated, params}, rng, ws_,
                  {GetParam()});
  }
  Workspace ws_;
};

// log_softmax over `l` in ascending order, computed here independently.
double LogSoftmax(const std::vector<double>& l, size_t id) {
  double m = -INFINITY;
  for (double v : l) m = std::max(m, v);
  double z = 0;
  for (double v : l) z += std::exp(v - m);
  return (l[id] - m) - std::log(z);
}

TEST_P(SpecTest, WorkedExample) {
  const std::vector<float> x{1.0f, 3.0f, 2.0f, 3.0f, -1.0f};
  SamplingParams p;
  p.top_k = 3;
  p.top_p = 0.8;
  Pcg32 rng = stream(0, Purpose::sample);
  const auto t = Sample(x, p, rng);
  ASSERT_TRUE(t) << t.error().message;
  EXPECT_EQ(t->id, 3);
  EXPECT_EQ(Bits(t->logprob), Bits(LogSoftmax({1, 3, 2, 3, -1}, 3)));
  EXPECT_NEAR(t->logprob, -0.92487, 5e-6);  // the spec's printed digits
  EXPECT_EQ(rng.draws_u32(), 2u);
  Pcg32 fresh = stream(0, Purpose::sample);
  EXPECT_NEAR(fresh.uniform_f64(), 0.80209, 5e-6);
}

// The fast engine on every compiled and supported target.
TEST_P(SpecTest, GoldenFixtureBitForBit) {
  const auto cases = test::LoadJson("sampler_golden.json")["cases"];
  ASSERT_EQ(cases.size(), 12u);
  const auto replay = [&](const std::string& where) {
    for (const auto& c : cases) {
      std::vector<float> logits;
      for (const auto& v : c["logits"]) {
        logits.push_back(static_cast<float>(
            v.is_string() ? std::strtod(v.get<std::string>().c_str(), nullptr)
                          : v.get<double>()));
      }
      SamplingParams p;
      p.temperature = c["params"]["temperature"];
      p.top_k = c["params"]["top_k"];
      p.top_p = c["params"]["top_p"];
      p.min_p = c["params"]["min_p"];
      p.repetition_penalty = c["params"]["repetition_penalty"];
      p.presence_penalty = c["params"]["presence_penalty"];
      p.frequency_penalty = c["params"]["frequency_penalty"];
      const auto prompt = c["prompt"].get<std::vector<int32_t>>();
      Pcg32 rng = stream(c["seed"].get<uint64_t>(), Purpose::sample);
      std::vector<int32_t> generated;
      for (size_t s = 0; s < c["ids"].size(); ++s) {
        const auto t = Sample(logits, p, rng, prompt, generated);
        ASSERT_TRUE(t) << where << c["name"] << ": " << t.error().message;
        EXPECT_EQ(t->id, c["ids"][s].get<int32_t>()) << where << c["name"] << " step " << s;
        EXPECT_EQ(Bits(t->logprob), Bits(c["logprobs"][s].get<double>()))
            << where << c["name"] << " step " << s;
        generated.push_back(t->id);
      }
    }
  };
  if (GetParam() == Engine::reference) return replay("");
  test::ForEachTarget(
      [&](int64_t target) { replay(std::string(hwy::TargetName(target)) + ": "); });
}

TEST_P(SpecTest, DrawAccounting) {
  const std::vector<float> x{0.5f, 1.5f, -2.0f, 1.0f, 0.0f};
  Pcg32 rng = stream(5, Purpose::sample);
  SamplingParams greedy;
  greedy.temperature = 0;
  for (int i = 0; i < 3; ++i) ASSERT_TRUE(Sample(x, greedy, rng));
  EXPECT_EQ(rng.draws_u32(), 0u);
  SamplingParams sampled;
  for (int i = 1; i <= 4; ++i) {
    ASSERT_TRUE(Sample(x, sampled, rng));
    EXPECT_EQ(rng.draws_u32(), 2u * i);
  }
  SamplingParams bad;
  bad.top_k = -1;
  EXPECT_FALSE(Sample(x, bad, rng));
  EXPECT_EQ(rng.draws_u32(), 8u);
}

// Four equal logits: q = 0.25 each, the running sum hits 0.5 exactly at the
// second id, which stays; the third only joins when p is above 0.5.
TEST_P(SpecTest, TopPKeepsTheTokenWhoseSumReachesPExactly) {
  const std::vector<float> x{2.0f, 2.0f, 2.0f, 2.0f};
  for (double p : {0.5, std::nextafter(0.5, 1.0)}) {
    SamplingParams params;
    params.top_p = p;
    std::set<int32_t> seen;
    for (uint64_t seed = 0; seed < 400; ++seed) {
      Pcg32 rng = stream(seed, Purpose::sample);
      seen.insert(Sample(x, params, rng)->id);
    }
    const std::set<int32_t> want =
        p == 0.5 ? std::set<int32_t>{0, 1} : std::set<int32_t>{0, 1, 2};
    EXPECT_EQ(seen, want) << p;
  }
}

TEST_P(SpecTest, TopPZeroKeepsOnlyTheTopToken) {
  const std::vector<float> x{1.0f, 4.0f, 4.0f, 3.9f};
  SamplingParams params;
  params.top_p = 0;
  for (uint64_t seed = 0; seed < 50; ++seed) {
    Pcg32 rng = stream(seed, Purpose::sample);
    EXPECT_EQ(Sample(x, params, rng)->id, 1);
  }
}

// Repetition divides positive and multiplies non-positive logits, once per
// distinct id of prompt and output; presence and frequency use the output
// only. Greedy exposes the penalised values through the logprob.
TEST_P(SpecTest, PenaltySemantics) {
  const std::vector<float> x{2.0f, -1.0f, 0.0f, 1.5f, 0.75f, 3.0f};
  SamplingParams p;
  p.temperature = 0;
  p.repetition_penalty = 2.0;
  p.presence_penalty = 0.25;
  p.frequency_penalty = 0.5;
  const std::vector<int32_t> prompt{0, 0, 1, 5};
  const std::vector<int32_t> generated{2, 3, 3, 0};
  Pcg32 rng = stream(1, Purpose::sample);
  const auto t = Sample(x, p, rng, prompt, generated);
  ASSERT_TRUE(t);
  const std::vector<double> want{
      2.0 / 2 - 0.5 * 1 - 0.25,  // prompt and output: repetition once
      -1.0 * 2,                  // prompt only: no presence/frequency
      0.0 * 2 - 0.5 * 1 - 0.25,  // zero is multiplied
      1.5 / 2 - 0.5 * 2 - 0.25,  // frequency counts occurrences
      0.75,                      // untouched
      3.0 / 2};                  // prompt only
  size_t best = 0;
  for (size_t i = 1; i < want.size(); ++i) {
    if (want[i] > want[best]) best = i;
  }
  EXPECT_EQ(t->id, static_cast<int32_t>(best));
  EXPECT_EQ(Bits(t->logprob), Bits(LogSoftmax(want, best)));
}

TEST_P(SpecTest, GreedyTiesGoToTheLowestId) {
  const std::vector<float> x{1.0f, 5.0f, 2.0f, 5.0f, 5.0f};
  SamplingParams p;
  p.temperature = 0;
  Pcg32 rng = stream(3, Purpose::sample);
  EXPECT_EQ(Sample(x, p, rng)->id, 1);
}

// M is the first maximum in id order: with one finite logit -0.0 the
// logprob is (-0 - (-0)) - log(1) = +0, not -0.
TEST_P(SpecTest, ZeroMaximumKeepsItsSign) {
  const std::vector<float> x{-INFINITY, -0.0f, -INFINITY};
  for (double temperature : {0.0, 1.0, 0.5}) {
    SamplingParams p;
    p.temperature = temperature;
    Pcg32 rng = stream(8, Purpose::sample);
    const auto t = Sample(x, p, rng);
    ASSERT_TRUE(t);
    EXPECT_EQ(t->id, 1);
    EXPECT_EQ(Bits(t->logprob), Bits(0.0)) << temperature;
  }
}

TEST_P(SpecTest, MaskedIdsAreNeverReturned) {
  std::vector<float> x(64, -INFINITY);
  for (int32_t i : {3, 17, 40, 63}) x[i] = static_cast<float>(i % 5) - 30.0f;
  for (double temperature : {0.0, 0.5, 1.0, 100.0}) {
    SamplingParams p;
    p.temperature = temperature;
    for (uint64_t seed = 0; seed < 200; ++seed) {
      Pcg32 rng = stream(seed, Purpose::sample);
      const auto t = Sample(x, p, rng);
      ASSERT_TRUE(t);
      EXPECT_NE(x[t->id], -INFINITY);
    }
  }
}

TEST(ReferenceStep11, FallbackReturnsTheLargestIdWithPositiveQ) {
  const std::vector<int32_t> kept{2, 5, 9, 11};
  const std::vector<double> q{0.25, 0.5, 0.125, 0.0};  // sums to 0.875
  EXPECT_EQ(scalar_ref::InverseCdf(kept, q, 0.1), 2);
  EXPECT_EQ(scalar_ref::InverseCdf(kept, q, 0.25), 5);  // u < c is strict
  EXPECT_EQ(scalar_ref::InverseCdf(kept, q, 0.8), 9);
  EXPECT_EQ(scalar_ref::InverseCdf(kept, q, 0.9), 9);  // fallback skips q = 0
}

struct BadCase {
  const char* label;
  std::vector<float> logits;
  SamplingParams params;
  std::vector<int32_t> prompt;
  std::vector<int32_t> generated;
  const char* field;
  const char* text;  // must appear in the message
};

SamplingParams With(void (*set)(SamplingParams&)) {
  SamplingParams p;
  set(p);
  return p;
}

std::vector<BadCase> BadCases() {
  const std::vector<float> ok{1.0f, 2.0f, 3.0f};
  const float nan = std::nanf("");
  return {
      {"empty", {}, {}, {}, {}, "logits", "empty"},
      {"nan logit", {1.0f, nan, 2.0f}, {}, {}, {}, "logits", "logits[1] = nan"},
      {"+inf logit", {1.0f, 2.0f, INFINITY}, {}, {}, {}, "logits", "logits[2] = inf"},
      {"all -inf", {-INFINITY, -INFINITY}, {}, {}, {}, "logits", "every logit is -inf"},
      {"prompt id high", ok, {}, {0, 3}, {}, "prompt", "prompt[1] = 3"},
      {"prompt id negative", ok, {}, {-1}, {}, "prompt", "prompt[0] = -1"},
      {"generated id high", ok, {}, {}, {7}, "generated", "generated[0] = 7"},
      {"temperature < 0", ok, With([](auto& p) { p.temperature = -0.5; }), {}, {}, "temperature", "-0.5"},
      {"temperature nan", ok, With([](auto& p) { p.temperature = NAN; }), {}, {}, "temperature", "nan"},
      {"temperature inf", ok, With([](auto& p) { p.temperature = INFINITY; }), {}, {}, "temperature", "inf"},
      {"top_p < 0", ok, With([](auto& p) { p.top_p = -0.1; }), {}, {}, "top_p", "-0.1"},
      {"top_p nan", ok, With([](auto& p) { p.top_p = NAN; }), {}, {}, "top_p", "nan"},
      {"min_p < 0", ok, With([](auto& p) { p.min_p = -0.01; }), {}, {}, "min_p", "-0.01"},
      {"min_p > 1", ok, With([](auto& p) { p.min_p = 1.5; }), {}, {}, "min_p", "1.5"},
      {"min_p nan", ok, With([](auto& p) { p.min_p = NAN; }), {}, {}, "min_p", "nan"},
      {"top_k < 0", ok, With([](auto& p) { p.top_k = -3; }), {}, {}, "top_k", "-3"},
      {"repetition 0", ok, With([](auto& p) { p.repetition_penalty = 0; }), {}, {}, "repetition_penalty", "= 0"},
      {"repetition < 0", ok, With([](auto& p) { p.repetition_penalty = -1; }), {}, {}, "repetition_penalty", "-1"},
      {"repetition inf", ok, With([](auto& p) { p.repetition_penalty = INFINITY; }), {}, {}, "repetition_penalty", "inf"},
      {"presence nan", ok, With([](auto& p) { p.presence_penalty = NAN; }), {}, {}, "presence_penalty", "nan"},
      {"frequency inf", ok, With([](auto& p) { p.frequency_penalty = -INFINITY; }), {}, {}, "frequency_penalty", "-inf"},
      {"temperature overflow", {3e38f, 1.0f}, With([](auto& p) { p.temperature = 1e-300; }), {}, {}, "temperature", "temperature = 1e-300"},
      {"temperature underflow to -inf", {-3e38f, -1e38f}, With([](auto& p) { p.temperature = 1e-300; }), {}, {}, "temperature", "-inf"},
      {"frequency makes +inf", ok, With([](auto& p) { p.frequency_penalty = -1e308; }), {}, {1, 1}, "penalties", "id 1 inf"},
      {"repetition makes all -inf", {-1e30f, -2e30f}, With([](auto& p) { p.repetition_penalty = 1e300; }), {0, 1}, {}, "penalties", "every logit -inf"},
  };
}

TEST_P(SpecTest, BadInputGivesAnErrorNamingFieldAndValue) {
  for (const BadCase& c : BadCases()) {
    const std::vector<float> logits_before = c.logits;
    Pcg32 rng = stream(11, Purpose::sample);
    const Pcg32 rng_before = rng;
    const auto t = Sample(c.logits, c.params, rng, c.prompt, c.generated);
    ASSERT_FALSE(t) << c.label << " sampled id " << t->id;
    EXPECT_EQ(t.error().field, c.field) << c.label;
    EXPECT_NE(t.error().message.find(c.text), std::string::npos)
        << c.label << ": " << t.error().message;
    EXPECT_EQ(rng, rng_before) << c.label;
    ASSERT_EQ(c.logits.size(), logits_before.size());
    for (size_t i = 0; i < c.logits.size(); ++i) {
      EXPECT_EQ(std::bit_cast<uint32_t>(c.logits[i]),
                std::bit_cast<uint32_t>(logits_before[i]))
          << c.label;
    }
    // validate() agrees for the inputs it sees without sampling.
    if (c.field != std::string("penalties") &&
        std::string(c.label).find("temperature o") == std::string::npos &&
        std::string(c.label).find("temperature u") == std::string::npos) {
      const auto v = validate(Request{c.logits, c.prompt, c.generated, c.params});
      ASSERT_FALSE(v) << c.label;
      EXPECT_EQ(v.error().message, t.error().message) << c.label;
    }
  }
}

// SampleOptions::generated_checked: only ids from that index on are checked,
// and the message keeps the id's index in the whole history.
TEST_P(SpecTest, GeneratedCheckedSkipsOnlyTheCheckedPrefix) {
  const std::vector<float> logits{1.0f, 2.0f, 3.0f};
  const std::vector<int32_t> generated{0, 1, 2, 9};
  for (size_t checked : {size_t{0}, size_t{2}, size_t{3}}) {
    Pcg32 rng = stream(11, Purpose::sample);
    const auto t = sample({logits, {}, generated, {}}, rng, ws_,
                          {.engine = GetParam(), .generated_checked = checked});
    ASSERT_FALSE(t) << checked;
    EXPECT_NE(t.error().message.find("generated[3] = 9"), std::string::npos)
        << t.error().message;
  }
  Pcg32 rng = stream(11, Purpose::sample);
  const std::vector<int32_t> valid{0, 1, 2};
  EXPECT_TRUE(sample({logits, {}, valid, {}}, rng, ws_,
                     {.engine = GetParam(), .generated_checked = 99}));
}

INSTANTIATE_TEST_SUITE_P(Engines, SpecTest,
                         ::testing::Values(Engine::reference, Engine::fast),
                         [](const auto& info) {
                           return info.param == Engine::reference ? "reference"
                                                                  : "fast";
                         });

}  // namespace
}  // namespace exactsample
