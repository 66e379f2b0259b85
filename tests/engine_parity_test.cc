// The fast engine equals the reference on every compiled and supported
// target: the same id, the same logprob bits, the same generator position,
// or the same error.
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <string>

#include "exactsample/exactsample.hpp"
#include "exactsample/targets.hpp"
#include "tests/random_requests.hpp"
#include "tests/test_util.hpp"

namespace exactsample {
namespace {

constexpr int kSteps = 3;

struct Outcome {
  std::vector<int32_t> ids;
  std::vector<uint64_t> logprob_bits;
  std::string error;
  uint64_t draws_u32 = 0;
  bool operator==(const Outcome&) const = default;
};

Outcome Run(const test::RandomCase& c, Engine engine, Workspace& ws,
            bool logprob = true) {
  Outcome out;
  Pcg32 rng = stream(c.seed, Purpose::sample);
  std::vector<int32_t> generated = c.generated;
  for (int step = 0; step < kSteps; ++step) {
    const auto t = sample({c.logits, c.prompt, generated, c.params}, rng, ws,
                          {.engine = engine, .logprob = logprob});
    if (!t) {
      out.error = t.error().message;
      break;
    }
    out.ids.push_back(t->id);
    out.logprob_bits.push_back(test::Bits(t->logprob));
    generated.push_back(t->id);
  }
  out.draws_u32 = rng.draws_u32();
  return out;
}

std::string Describe(const test::RandomCase& c) {
  const SamplingParams& p = c.params;
  return "seed " + std::to_string(c.seed) + " V=" + std::to_string(c.logits.size()) +
         " T=" + std::to_string(p.temperature) + " k=" + std::to_string(p.top_k) +
         " p=" + std::to_string(p.top_p) + " m=" + std::to_string(p.min_p) +
         " r=" + std::to_string(p.repetition_penalty);
}

void ExpectParity(uint64_t first_seed, int count, size_t max_vocab) {
  Workspace ref_ws, fast_ws;
  for (int i = 0; i < count; ++i) {
    const uint64_t seed = first_seed + static_cast<uint64_t>(i);
    const test::RandomCase c = test::CaseMaker(seed).Make(seed, max_vocab);
    const Outcome want = Run(c, Engine::reference, ref_ws);
    for (const TargetInfo& t : compiled_targets()) {
      if (!t.supported) continue;
      ASSERT_TRUE(force_target(t.name));
      const Outcome got = Run(c, Engine::fast, fast_ws);
      EXPECT_EQ(got, want) << t.name << " " << Describe(c) << " error '"
                           << got.error << "' vs '" << want.error << "'";
      // Without the logprob: the same ids, draws and errors; logprob NaN.
      Outcome quiet = Run(c, Engine::fast, fast_ws, /*logprob=*/false);
      for (uint64_t& bits : quiet.logprob_bits) {
        EXPECT_TRUE(std::isnan(std::bit_cast<double>(bits))) << Describe(c);
        bits = 0;
      }
      Outcome want_ids = want;
      for (uint64_t& bits : want_ids.logprob_bits) bits = 0;
      EXPECT_EQ(quiet, want_ids) << t.name << " logprob off " << Describe(c);
    }
    ASSERT_TRUE(force_target(""));
  }
}

TEST(EngineParity, SmallAndMediumVocabularies) { ExpectParity(1000, 3000, 5000); }
TEST(EngineParity, AnyVocabularyUpTo262144) { ExpectParity(50000, 300, 262144); }

}  // namespace
}  // namespace exactsample
