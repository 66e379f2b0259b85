// The near-tie rule for greedy streams from different float paths.
#include "tools/lib/greedy_stream.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <vector>

namespace exactsample {
namespace {

using Outcome = GreedyVerdict::Outcome;
using Rows = std::vector<std::vector<float>>;

// A stream and the rows its spans point into.
struct Stream {
  Stream(Rows r, std::vector<int32_t> other_ids) : rows(std::move(r)) {
    for (const auto& row : rows) s.rows.push_back(row);
    s.params.temperature = 0;
    s.other_ids = std::move(other_ids);
  }
  Stream(const Stream&) = delete;
  Rows rows;
  GreedyStream s;
};

GreedyVerdict Verdict(const Stream& stream, double tolerance = 1e-3) {
  const auto v = CompareGreedyStream(stream.s, tolerance);
  EXPECT_TRUE(v) << v.error().message;
  return v ? *v : GreedyVerdict{};
}

TEST(GreedyStream, SameIdsAgreeOnEveryStep) {
  const Rows rows{{0, 4, 3, 0}, {5, 1, 1, 0}, {0, 0, 0, 2}};
  const GreedyVerdict v = Verdict(Stream(rows, {1, 0, 3}));
  EXPECT_EQ(v.outcome, Outcome::agreed);
  EXPECT_EQ(v.steps_agreed, 3u);
  // Only min(rows, ids) steps are compared.
  EXPECT_EQ(Verdict(Stream(rows, {1, 0})).steps_agreed, 2u);
}

TEST(GreedyStream, TieWithinToleranceIsAcceptedAndEndsTheComparison) {
  // Step 1: ids 1 and 2 are 0.005 apart, range 10, threshold 0.01. Step 2
  // would be refused (NaN), but comparison stopped at step 1.
  const Rows rows{{0, 4, 3, 0}, {0, 10, 9.995f, 0}, {NAN, 0, 0, 0}};
  const GreedyVerdict v = Verdict(Stream(rows, {1, 2, 0}));
  EXPECT_EQ(v.outcome, Outcome::near_tie);
  EXPECT_EQ(v.step, 1u);
  EXPECT_EQ(v.steps_agreed, 1u);
  EXPECT_EQ(v.ours, 1);
  EXPECT_EQ(v.theirs, 2);
  EXPECT_EQ(v.l_ours, 10.0);
  EXPECT_EQ(v.l_theirs, double(9.995f));
  EXPECT_EQ(v.range, 10.0);
}

TEST(GreedyStream, RealDivergenceIsCountedAndEndsTheComparison) {
  const Rows rows{{0, 10, 9.5f, 0}, {NAN, 0, 0, 0}};
  const GreedyVerdict v = Verdict(Stream(rows, {2, 0}));
  EXPECT_EQ(v.outcome, Outcome::divergence);
  EXPECT_EQ(v.step, 0u);
  EXPECT_EQ(v.steps_agreed, 0u);
}

TEST(GreedyStream, ThresholdIsInclusiveAndTheToleranceConfigurable) {
  // Range 16; gap 0.5 = 1/32 of it.
  const Rows rows{{0, 8, 7.5f, -8}};
  EXPECT_EQ(Verdict(Stream(rows, {2}), 1.0 / 32).outcome, Outcome::near_tie);
  EXPECT_EQ(Verdict(Stream(rows, {2}), std::nextafter(1.0 / 32, 0)).outcome,
            Outcome::divergence);
  EXPECT_EQ(Verdict(Stream(rows, {2})).outcome, Outcome::divergence);  // 1e-3
}

TEST(GreedyStream, RangeIgnoresMaskedIdsAndAMaskedChoiceDiverges) {
  // With -inf in the range every gap would pass.
  EXPECT_EQ(Verdict(Stream({{-INFINITY, 4, 2, 0}}, {2})).outcome, Outcome::divergence);
  EXPECT_EQ(Verdict(Stream({{-INFINITY, 4, 3.997f, 0}}, {2})).outcome, Outcome::near_tie);
  const GreedyVerdict v = Verdict(Stream({{-INFINITY, 4, 3.997f, 0}}, {0}), 1e9);
  EXPECT_EQ(v.outcome, Outcome::divergence);
}

TEST(GreedyStream, PenaltiesSeeTheSharedHistory) {
  // After id 1, repetition_penalty 2 halves its logit: 2 < 3, so id 2 wins.
  Stream s({{0, 4, 3, 0}, {0, 4, 3, 0}}, {1, 2});
  s.s.params.repetition_penalty = 2;
  EXPECT_EQ(Verdict(s).outcome, Outcome::agreed);
  s.s.prompt = {2};  // id 2 penalised too: 1.5 < 2, id 1 wins step 1
  const GreedyVerdict v = Verdict(s);
  EXPECT_EQ(v.outcome, Outcome::divergence);
  EXPECT_EQ(v.step, 1u);
}

TEST(GreedyStream, BadInputsAreErrors) {
  Stream hot({{0, 1}}, {1});
  hot.s.params.temperature = 0.7;
  EXPECT_FALSE(CompareGreedyStream(hot.s, 1e-3));
  const auto out_of_range = CompareGreedyStream(Stream({{0, 1}}, {7}).s, 1e-3);
  ASSERT_FALSE(out_of_range);
  EXPECT_NE(out_of_range.error().message.find("ids[0] = 7"), std::string::npos);
  const auto nan = CompareGreedyStream(Stream({{0, 1}, {NAN, 1}}, {1, 1}).s, 1e-3);
  ASSERT_FALSE(nan);
  EXPECT_EQ(nan.error().message.rfind("step 1: ", 0), 0u);
}

}  // namespace
}  // namespace exactsample
