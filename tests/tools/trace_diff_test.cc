// The audit's stage comparison with planted differences: each names the
// stage where it was planted, and earlier stages win.
#include "tools/lib/trace_diff.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <vector>

#include "tests/support/test_util.hpp"

namespace exactsample {
namespace {

// The reference engine's traced call.
TracedToken Traced(const std::vector<float>& logits, const SamplingParams& p,
                   uint64_t seed) {
  Workspace ws;
  Pcg32 rng = stream(seed, Purpose::sample);
  TracedToken t;
  const auto token = sample({logits, {}, {}, p}, rng, ws, {Engine::reference, &t.trace});
  EXPECT_TRUE(token);
  t.token = *token;
  t.draws_u32 = rng.draws_u32();
  return t;
}

// The spec's worked example: K = {1, 3} after top-p, id 3 (tied with id 1).
TracedToken SpecExample() {
  SamplingParams p;
  p.top_k = 3;
  p.top_p = 0.8;
  return Traced({1.0f, 3.0f, 2.0f, 3.0f, -1.0f}, p, 0);
}

double Up(double v) { return std::nextafter(v, INFINITY); }

TEST(TraceDiff, IdenticalCallsAgree) {
  const TracedToken a = SpecExample();
  ASSERT_EQ(a.token.id, 3);
  EXPECT_EQ(a.trace.kept_top_p, (std::vector<int32_t>{1, 3}));
  EXPECT_FALSE(FirstDifference(a, a));
}

struct Plant {
  const char* what;
  std::function<void(TracedToken&)> change;
  Stage stage;
  int32_t at_id;
};

TEST(TraceDiff, EachPlantedDifferenceNamesItsStage) {
  const std::vector<Plant> plants{
      {"one-ulp logit", [](TracedToken& t) { t.trace.penalized[2] = Up(2.0); },
       Stage::penalized, 2},
      {"perturbed M", [](TracedToken& t) { t.trace.max_logit = Up(t.trace.max_logit); },
       Stage::max_logit, -1},
      {"perturbed Z", [](TracedToken& t) { t.trace.z_all = Up(t.trace.z_all); },
       Stage::z_all, -1},
      {"logprob", [](TracedToken& t) { t.token.logprob = Up(t.token.logprob); },
       Stage::logprob, -1},
      {"top-k keeps id 0 too",
       [](TracedToken& t) { t.trace.kept_top_k = {0, 1, 2, 3}; }, Stage::kept_top_k, 0},
      {"top-p drops id 1", [](TracedToken& t) { t.trace.kept_top_p = {3}; },
       Stage::kept_top_p, 1},
      {"min-p keeps id 2", [](TracedToken& t) { t.trace.kept_min_p = {1, 2, 3}; },
       Stage::kept_min_p, 2},
      {"z_kept", [](TracedToken& t) { t.trace.z_kept = Up(t.trace.z_kept); },
       Stage::z_kept, -1},
      {"different u", [](TracedToken& t) { t.trace.u = Up(t.trace.u); }, Stage::u, -1},
      {"swapped tie, picked by its running sum",
       [](TracedToken& t) {
         t.token.id = 1;
         t.trace.cdf_at_choice = 0.5;
       },
       Stage::cdf_at_choice, -1},
      {"swapped tie, id only", [](TracedToken& t) { t.token.id = 1; }, Stage::id, -1},
      {"generator position", [](TracedToken& t) { t.draws_u32 += 2; }, Stage::draws_u32, -1},
  };
  const TracedToken a = SpecExample();
  for (const Plant& plant : plants) {
    TracedToken b = a;
    plant.change(b);
    const auto d = FirstDifference(a, b);
    ASSERT_TRUE(d) << plant.what;
    EXPECT_EQ(StageName(d->stage), StageName(plant.stage)) << plant.what;
    EXPECT_EQ(d->at_id, plant.at_id) << plant.what;
  }
}

TEST(TraceDiff, ReportsBothValuesOfTheFirstDifferingStage) {
  const TracedToken a = SpecExample();
  TracedToken b = a;
  b.trace.z_all = Up(a.trace.z_all);
  b.trace.u = 0.1;  // later: not the first
  const auto d = FirstDifference(a, b);
  ASSERT_TRUE(d);
  EXPECT_EQ(d->stage, Stage::z_all);
  EXPECT_EQ(test::Bits(d->a), test::Bits(a.trace.z_all));
  EXPECT_EQ(test::Bits(d->b), test::Bits(b.trace.z_all));

  b = a;
  b.trace.penalized[4] = Up(-1.0);
  b.trace.penalized[1] = 2.5;  // the first differing id wins
  const auto row = FirstDifference(a, b);
  ASSERT_TRUE(row);
  EXPECT_EQ(row->at_id, 1);
  EXPECT_EQ(row->a, 3.0);
  EXPECT_EQ(row->b, 2.5);
}

TEST(TraceDiff, SwappedTieAtTheTopKBoundary) {
  // Ids 0 and 2 tie for the second place; the spec keeps the lower id.
  SamplingParams p;
  p.top_k = 2;
  const TracedToken a = Traced({2.0f, 5.0f, 2.0f, 1.0f}, p, 9);
  ASSERT_EQ(a.trace.kept_top_k, (std::vector<int32_t>{0, 1}));
  TracedToken b = a;
  b.trace.kept_top_k = {1, 2};
  const auto d = FirstDifference(a, b);
  ASSERT_TRUE(d);
  EXPECT_EQ(d->stage, Stage::kept_top_k);
  EXPECT_EQ(d->at_id, 0);
  EXPECT_EQ(d->a, 1.0);  // a keeps id 0, b does not
  EXPECT_EQ(d->b, 0.0);
}

TEST(TraceDiff, SkippedStagesAgreeWhateverTheirNaN) {
  SamplingParams p;
  p.temperature = 0;
  const TracedToken a = Traced({0.5f, 1.5f, -2.0f}, p, 1);
  ASSERT_TRUE(std::isnan(a.trace.u));
  TracedToken b = a;
  b.trace.u = -std::nan("7");
  EXPECT_FALSE(FirstDifference(a, b));
}

TEST(TraceDiff, ShorterRowDiffersAtItsEnd) {
  const TracedToken a = SpecExample();
  TracedToken b = a;
  b.trace.penalized.pop_back();
  const auto d = FirstDifference(a, b);
  ASSERT_TRUE(d);
  EXPECT_EQ(d->stage, Stage::penalized);
  EXPECT_EQ(d->at_id, 4);
  EXPECT_TRUE(std::isnan(d->b));
}

TEST(ExplainOther, SameIdOtherLogprobBits) {
  const TracedToken a = SpecExample();
  const StageDiff d = ExplainOther(a, {3, Up(a.token.logprob)});
  EXPECT_EQ(d.stage, Stage::logprob);
  EXPECT_EQ(d.at_id, 3);
  EXPECT_EQ(test::Bits(d.a), test::Bits(a.token.logprob));
}

TEST(ExplainOther, OtherIdWhoseLogprobDisagrees) {
  const TracedToken a = SpecExample();
  const StageDiff d = ExplainOther(a, {2, a.token.logprob});
  EXPECT_EQ(d.stage, Stage::logprob);
  EXPECT_EQ(d.at_id, 2);
  // The library's logprob of id 2: one less than id 3's (logits 2 and 3).
  EXPECT_EQ(test::Bits(d.a),
            test::Bits((2.0 - a.trace.max_logit) - std::log(a.trace.z_all)));
}

TEST(ExplainOther, TiedIdOutsideAKeptSet) {
  SamplingParams p;
  p.top_k = 2;
  const TracedToken a = Traced({2.0f, 5.0f, 2.0f, 1.0f}, p, 9);
  // Id 2 has id 0's logit, hence its logprob, but top-k dropped it.
  const Token other{2, (2.0 - a.trace.max_logit) - std::log(a.trace.z_all)};
  ASSERT_NE(a.token.id, 2);
  const StageDiff d = ExplainOther(a, other);
  EXPECT_EQ(d.stage, Stage::kept_top_k);
  EXPECT_EQ(d.at_id, 2);
}

TEST(ExplainOther, TiedIdInsideTheKeptSetIsTheDraw) {
  const TracedToken a = SpecExample();
  const StageDiff d = ExplainOther(a, {1, a.token.logprob});  // ids 1 and 3 tie
  EXPECT_EQ(d.stage, Stage::id);
  EXPECT_EQ(d.a, 3.0);
  EXPECT_EQ(d.b, 1.0);
  EXPECT_EQ(ExplainOther(a, {99, a.token.logprob}).stage, Stage::id);
}

}  // namespace
}  // namespace exactsample
