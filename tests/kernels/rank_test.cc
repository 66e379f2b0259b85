// Token::rank: the kernel against its twin on every target, and the rank of
// both engines (every target) against the definition computed here by
// sorting all V ids, at exact ties in the logits and at ties that rounding
// makes of logits one ulp apart; the batch and the sequence pass it through.
#include <gtest/gtest.h>

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <numeric>
#include <string>
#include <vector>

#include "exactsample/batch.hpp"
#include "exactsample/exactsample.hpp"
#include "exactsample/sequence.hpp"
#include "hwy/targets.h"
#include "scalar_ref/twins/rank.hpp"
#include "simd/rank.hpp"
#include "tests/support/random_requests.hpp"
#include "tests/support/test_util.hpp"

namespace exactsample {
namespace {

// The definition: id's 1-based position when all V ids are sorted by
// (logprob desc, id asc), logprob = (l - max) - log(z).
int64_t SortedRank(const std::vector<double>& l, double max, double z, int32_t id) {
  std::vector<double> logprob(l.size());
  for (size_t i = 0; i < l.size(); ++i) logprob[i] = (l[i] - max) - std::log(z);
  std::vector<int32_t> order(l.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(),
                   [&](int32_t a, int32_t b) { return logprob[a] > logprob[b]; });
  return std::find(order.begin(), order.end(), id) - order.begin() + 1;
}

// The definition for a plain f32 row (no bias, mask or penalty): M the first
// largest logit, Z the ascending sum of exp(l - M), as the spec computes them.
int64_t SortedRank(const std::vector<float>& x, int32_t id) {
  const std::vector<double> l(x.begin(), x.end());
  const double max = *std::max_element(l.begin(), l.end());
  double z = 0.0;
  for (double v : l) z += std::exp(v - max);
  return SortedRank(l, max, z, id);
}

TEST(RankCount, MatchesTheTwinOnEveryTarget) {
  test::SplitMix rng(28);
  const double specials[] = {-INFINITY, -0.0, 0.0, 0x1p-1074, -DBL_MAX, 1e-300};
  std::vector<size_t> sizes;
  for (size_t n = 0; n <= 70; ++n) sizes.push_back(n);
  for (size_t n : {1000, 4099}) sizes.push_back(n);
  for (size_t n : sizes) {
    std::vector<double> l(n);
    std::vector<float> x(n);
    for (size_t i = 0; i < n; ++i) {
      // Few distinct values, so that bounds land on ties.
      x[i] = rng() % 7 == 0 ? static_cast<float>(specials[rng() % 6])
                            : static_cast<float>(rng() % 9) * 0.25f;
      l[i] = rng() % 5 == 0 ? specials[rng() % 6] : static_cast<double>(x[i]) + 1e-17;
    }
    const double max = 2.0, log_z = std::log(3.5);
    std::vector<double> bounds = {-INFINITY, 0.0, -DBL_MAX};
    for (int j = 0; j < 4 && n > 0; ++j) {
      const double at = (l[rng() % n] - max) - log_z;
      bounds.push_back(at);
      bounds.push_back(std::nextafter(at, INFINITY));
      bounds.push_back((static_cast<double>(x[rng() % n]) - max) - log_z);
    }
    for (double bound : bounds) {
      const size_t want_l = twins::CountLogprobsAtLeast(l.data(), n, max, log_z, bound);
      const size_t want_x = twins::CountLogprobsAtLeast(x.data(), n, max, log_z, bound);
      test::ForEachTarget([&](int64_t target) {
        const std::string where = "n=" + std::to_string(n) + " bound " +
                                  std::to_string(bound) + " on " + hwy::TargetName(target);
        ASSERT_EQ(simd::CountLogprobsAtLeast(l.data(), n, max, log_z, bound), want_l) << where;
        ASSERT_EQ(simd::CountLogprobsAtLeast(x.data(), n, max, log_z, bound), want_x) << where;
      });
    }
  }
}

// Draws `draws` tokens of `params` from the row on both engines and every
// target, each with its rank; the ranks are the sorted definition's, and
// the same id's rank in top_logprobs' order where it is listed. Returns the
// ranks seen (to say the ties were reached).
std::vector<int64_t> CheckRanks(const std::vector<float>& x, SamplingParams params, int draws,
                                const std::string& what) {
  params.top_logprobs = kMaxTopLogprobs;
  std::vector<int64_t> seen;
  Workspace ws;
  test::ForEachTarget([&](int64_t target) {
    for (Engine engine : {Engine::reference, Engine::fast}) {
      Pcg32 rng = stream(7, Purpose::sample);
      for (int k = 0; k < draws; ++k) {
        const Request req{x, {}, {}, params};
        const auto t = sample(req, rng, ws, {.engine = engine, .rank = true});
        ASSERT_TRUE(t) << t.error().message;
        const std::string where = what + " draw " + std::to_string(k) + " id " +
                                  std::to_string(t->id) + " on " + hwy::TargetName(target) +
                                  (engine == Engine::fast ? " fast" : " reference");
        ASSERT_EQ(t->rank, SortedRank(x, t->id)) << where;
        if (t->rank <= static_cast<int64_t>(t->top_count)) {
          ASSERT_EQ(t->top[t->rank - 1].id, t->id) << where;
        }
        seen.push_back(t->rank);
      }
    }
  });
  return seen;
}

// Exact ties: ids with one logit, ranked by id.
TEST(Rank, ExactTiesRankByIdOnBothEnginesAndEveryTarget) {
  const std::vector<float> x{1.0f, 3.0f, 2.0f, 3.0f, -INFINITY, 2.0f, 3.0f, 0.5f};
  SamplingParams params;
  params.temperature = 2.0;
  const auto seen = CheckRanks(x, params, 40, "exact ties");
  for (int64_t r : {1, 2, 3, 4, 5}) {
    EXPECT_NE(std::find(seen.begin(), seen.end(), r), seen.end()) << "rank " << r << " not drawn";
  }
  params.temperature = 0.0;  // greedy: the first of the tied top ids
  EXPECT_EQ(CheckRanks(x, params, 1, "greedy").front(), 1);
}

// Ties by rounding: M = 1e-9 and its float neighbour below (1.1e-16 apart),
// next to thousands of zeros, so log(Z) ~ 8.5 (ulp 1.8e-15) gives both one
// logprob: the greedy token (the larger logit, id 7) ranks second, after id
// 3; each zero ranks after both and the zeros below it.
TEST(Rank, RoundingTiesRankByIdOnBothEnginesAndEveryTarget) {
  std::vector<float> x(5000, 0.0f);
  x[7] = 1e-9f;
  x[3] = std::nextafter(1e-9f, 0.0f);
  {
    const double max = x[7];
    double z = 0.0;
    for (float v : x) z += std::exp(static_cast<double>(v) - max);
    ASSERT_EQ((static_cast<double>(x[3]) - max) - std::log(z), (0.0 - 0.0) - std::log(z))
        << "the two logits must round to one logprob";
  }
  SamplingParams params;
  params.temperature = 0.0;
  EXPECT_EQ(CheckRanks(x, params, 1, "greedy rounding tie").front(), 2);
  params.temperature = 1.0;
  const auto seen = CheckRanks(x, params, 30, "rounding ties");
  EXPECT_GT(*std::max_element(seen.begin(), seen.end()), 100);
  params.top_k = 2;  // K = {3, 7}: both ranks of the tie
  const auto top2 = CheckRanks(x, params, 30, "rounding tie, top_k 2");
  EXPECT_NE(std::find(top2.begin(), top2.end(), 1), top2.end());
  EXPECT_NE(std::find(top2.begin(), top2.end(), 2), top2.end());
}

// Random requests (bias, masks, penalties, filters): the rank of both engines equals the definition over the penalised
// row, max and Z the reference's trace reports; the rest of the token and
// the generator are those of the call without rank.
TEST(Rank, RandomRequestsEqualTheDefinition) {
  Workspace ws;
  for (uint64_t seed = 2800; seed < 2800 + test::Share(300); ++seed) {
    const test::RandomCase c = test::CaseMaker(seed).Make(seed, 3000, true);
    const Request req = c.At(c.generated);
    Pcg32 traced = stream(c.seed, Purpose::sample);
    Trace trace;
    const auto ref = sample(req, traced, ws, {.engine = Engine::reference, .trace = &trace});
    for (Engine engine : {Engine::reference, Engine::fast}) {
      Pcg32 plain = stream(c.seed, Purpose::sample), ranked = plain;
      const auto without = sample(req, plain, ws, {.engine = engine});
      const auto with = sample(req, ranked, ws, {.engine = engine, .rank = true});
      ASSERT_EQ(with.ok(), ref.ok()) << "seed " << seed;
      if (!with) continue;
      Token unranked = *with;
      EXPECT_EQ(without->rank, 0) << "seed " << seed;
      unranked.rank = 0;
      EXPECT_EQ(unranked, *without) << "seed " << seed;
      EXPECT_EQ(ranked, plain) << "seed " << seed;
      EXPECT_EQ(with->rank, SortedRank(trace.penalized, trace.max_logit, trace.z_all, with->id))
          << "seed " << seed << (engine == Engine::fast ? " fast" : " reference");
    }
  }
}

// logprob = false with rank: the rank is still computed, the logprob NaN.
TEST(Rank, WithoutTheLogprob) {
  const std::vector<float> x{1.0f, 3.0f, 2.0f, 3.0f};
  Workspace ws;
  for (Engine engine : {Engine::reference, Engine::fast}) {
    Pcg32 rng = stream(1, Purpose::sample);
    SamplingParams p;
    p.temperature = 0.0;
    const auto t = sample({x, {}, {}, p}, rng, ws, {.engine = engine, .logprob = false,
                                                   .rank = true});
    ASSERT_TRUE(t);
    EXPECT_EQ(t->id, 1);
    EXPECT_EQ(t->rank, 1);
    EXPECT_TRUE(std::isnan(t->logprob));
  }
}

// sample_batch and Sequence::sample pass SampleOptions::rank to each row.
TEST(Rank, BatchAndSequenceRankAsSample) {
  std::vector<float> rows(3 * 2000);
  test::SplitMix rng(2801);
  for (float& v : rows) v = static_cast<float>(rng() % 6);
  const SampleOptions options{.rank = true};
  std::vector<Pcg32> gens = {stream(1, Purpose::sample), stream(2, Purpose::sample),
                            stream(3, Purpose::sample)};
  std::vector<BatchRow> batch;
  for (size_t i = 0; i < 3; ++i) {
    batch.push_back({{{rows.data() + 2000 * i, 2000}, {}, {}, {}}, &gens[i]});
  }
  std::vector<Result<Token>> results;
  BatchWorkspace bws;
  sample_batch(batch, results, bws, options, 2);
  Workspace ws;
  for (size_t i = 0; i < 3; ++i) {
    Pcg32 alone = stream(i + 1, Purpose::sample);
    const auto want = sample(batch[i].request, alone, ws, options);
    ASSERT_TRUE(results[i] && want);
    EXPECT_GT(want->rank, 1);
    EXPECT_EQ(*results[i], *want) << "row " << i;
    auto seq = Sequence::create(2000, {}, stream(i + 1, Purpose::sample));
    ASSERT_TRUE(seq);
    Step row;
    row.logits = batch[i].request.logits;
    const auto step = seq.value().sample(row, ws, options);
    ASSERT_TRUE(step);
    EXPECT_EQ(*step, *want) << "row " << i;
  }
}

}  // namespace
}  // namespace exactsample
