// Batched sampling: a row's result depends on that row alone.
#include <gtest/gtest.h>

#include <algorithm>

#include "exactsample/batch.hpp"
#include "tests/support/random_requests.hpp"
#include "tests/support/test_util.hpp"

namespace exactsample {
namespace {

struct Batch {
  std::vector<test::RandomCase> cases;
  std::vector<Engine> engines;
};

// `features`: rows with biases, masks and top-N logprobs.
Batch MakeBatch(uint64_t seed, size_t rows, bool features = false) {
  Batch b;
  test::CaseMaker maker(seed);
  for (size_t i = 0; i < rows; ++i) {
    b.cases.push_back(maker.Make(seed * 1000 + i, 20000, features));
    b.engines.push_back(i % 2 == 0 ? Engine::fast : Engine::reference);
  }
  return b;
}

struct RowOutcome {
  bool ok;
  int32_t id;
  uint64_t logprob_bits;
  uint64_t processed_bits;
  std::vector<std::pair<int32_t, uint64_t>> top;  // id, logprob bits
  std::string error;
  uint64_t draws;
  bool operator==(const RowOutcome&) const = default;
};

RowOutcome Outcome(const Result<Token>& r, const Pcg32& rng) {
  if (!r) return RowOutcome{false, -1, 0, 0, {}, r.error().message, rng.draws_u32()};
  RowOutcome out{true, r->id, test::Bits(r->logprob), test::Bits(r->processed_logprob),
                 {}, "", rng.draws_u32()};
  for (const TopLogprob& t : r->top_logprobs()) out.top.emplace_back(t.id, test::Bits(t.logprob));
  return out;
}

// Runs the rows of `b` listed in `order` as one batch per engine; returns
// the outcomes indexed by original row.
std::vector<RowOutcome> RunBatch(const Batch& b, const std::vector<size_t>& order,
                                 int threads) {
  std::vector<RowOutcome> out(b.cases.size());
  for (Engine engine : {Engine::reference, Engine::fast}) {
    std::vector<Pcg32> rngs;
    std::vector<size_t> picked;
    for (size_t i : order) {
      if (b.engines[i] != engine) continue;
      picked.push_back(i);
      rngs.push_back(stream(b.cases[i].seed, Purpose::sample));
    }
    std::vector<BatchRow> rows;
    for (size_t j = 0; j < picked.size(); ++j) {
      const test::RandomCase& c = b.cases[picked[j]];
      rows.push_back({c.At(c.generated), &rngs[j]});
    }
    BatchWorkspace ws;
    std::vector<Result<Token>> results;
    sample_batch(rows, results, ws, {engine}, threads);
    for (size_t j = 0; j < picked.size(); ++j) {
      out[picked[j]] = Outcome(results[j], rngs[j]);
    }
  }
  return out;
}

std::vector<RowOutcome> RowByRow(const Batch& b) {
  std::vector<RowOutcome> out;
  Workspace ws;
  for (size_t i = 0; i < b.cases.size(); ++i) {
    const test::RandomCase& c = b.cases[i];
    Pcg32 rng = stream(c.seed, Purpose::sample);
    const auto r = sample(c.At(c.generated), rng, ws, {b.engines[i]});
    out.push_back(Outcome(r, rng));
  }
  return out;
}

std::vector<size_t> Identity(size_t n) {
  std::vector<size_t> v(n);
  for (size_t i = 0; i < n; ++i) v[i] = i;
  return v;
}

TEST(Batch, EqualsRowByRowForAnyThreadCount) {
  for (uint64_t seed = 1; seed <= 6; ++seed) {
    const Batch b = MakeBatch(seed, 24);
    const auto want = RowByRow(b);
    for (int threads = 1; threads <= 8; ++threads) {
      EXPECT_EQ(RunBatch(b, Identity(b.cases.size()), threads), want)
          << "seed " << seed << " threads " << threads;
    }
  }
}

// Helpers sample copies of rows: the bias, the mask and top-N travel with
// them.
TEST(Batch, BiasMasksAndTopLogprobsEqualRowByRow) {
  for (uint64_t seed = 1; seed <= 4; ++seed) {
    const Batch b = MakeBatch(seed, 24, true);
    const auto want = RowByRow(b);
    for (int threads : {1, 2, 5, 8}) {
      EXPECT_EQ(RunBatch(b, Identity(b.cases.size()), threads), want)
          << "seed " << seed << " threads " << threads;
    }
  }
}

TEST(Batch, PermutingRowsPermutesResults) {
  const Batch b = MakeBatch(77, 32);
  const auto want = RowByRow(b);
  std::vector<size_t> order = Identity(b.cases.size());
  Pcg32 shuffle = stream(5, Purpose::shuffle);
  for (int round = 0; round < 4; ++round) {
    for (size_t i = order.size() - 1; i > 0; --i) {
      std::swap(order[i], order[shuffle.next_u32() % (i + 1)]);
    }
    EXPECT_EQ(RunBatch(b, order, 3), want) << "round " << round;
  }
}

// Intra-row threads inside the batch's own threads (a nested region gets
// one thread): same results, no waiting on threads that never come.
TEST(Batch, IntraRowThreadsInsideABatch) {
  test::CaseMaker maker(31);
  std::vector<std::vector<float>> logits;
  for (int r = 0; r < 4; ++r) {
    logits.push_back(std::vector<float>(70000));
    for (float& x : logits.back()) x = static_cast<float>(1.5 * maker.Normal());
  }
  SamplingParams p;
  p.top_p = 0.95;
  std::vector<Pcg32> rngs(4, stream(3, Purpose::sample));
  std::vector<BatchRow> rows;
  for (int r = 0; r < 4; ++r) rows.push_back({{logits[r], {}, {}, p}, &rngs[r]});
  BatchWorkspace ws;
  std::vector<Result<Token>> results;
  sample_batch(rows, results, ws, {.engine = Engine::fast, .threads = 2}, 2);
  Workspace one;
  for (int r = 0; r < 4; ++r) {
    Pcg32 rng = stream(3, Purpose::sample);
    const auto want = sample(rows[r].request, rng, one, {.engine = Engine::fast});
    ASSERT_TRUE(results[r]);
    EXPECT_EQ(results[r]->id, want->id);
    EXPECT_EQ(test::Bits(results[r]->logprob), test::Bits(want->logprob));
    EXPECT_EQ(rngs[r], rng);
  }
}

TEST(Batch, ABadRowGetsItsErrorAndTheOthersAreSampled) {
  const std::vector<float> good{1.0f, 2.0f, 3.0f};
  const std::vector<float> bad{1.0f, NAN, 3.0f};
  std::vector<Pcg32> rngs(3, stream(9, Purpose::sample));
  SamplingParams p;
  const std::vector<BatchRow> rows{{{good, {}, {}, p}, &rngs[0]},
                                   {{bad, {}, {}, p}, &rngs[1]},
                                   {{good, {}, {}, p}, nullptr}};
  BatchWorkspace ws;
  std::vector<Result<Token>> results;
  sample_batch(rows, results, ws, {Engine::fast}, 2);
  ASSERT_EQ(results.size(), 3u);
  EXPECT_TRUE(results[0]);
  ASSERT_FALSE(results[1]);
  EXPECT_NE(results[1].error().message.find("logits[1] = nan"), std::string::npos);
  EXPECT_EQ(rngs[1].draws_u32(), 0u);
  ASSERT_FALSE(results[2]);
  EXPECT_EQ(results[2].error().field, "rng");
}

}  // namespace
}  // namespace exactsample
