// Speculative verification (spec/speculative.md): the page's worked example,
// the engines bit for bit on every target, the draw accounting, the
// sequence form, the batch, and the errors (no draw, nothing emitted).
#include "exactsample/speculative.hpp"

#include <gtest/gtest.h>

#include "lib/engine/choose.hpp"
#include "scalar_ref/reference.hpp"

#include "tests/support/random_verifications.hpp"
#include "tests/support/test_util.hpp"

namespace exactsample {
namespace {

using test::Bits;
using test::MakeVerification;
using test::RandomVerification;
using test::Rows;
using test::Spans;

struct Example {
  Rows target = {{1.0f, 3.0f, 2.0f, 3.0f, -1.0f},
                 {0.5f, 1.0f, 2.5f, 0.0f, 1.0f},
                 {2.0f, 0.0f, 0.0f, 0.0f, 1.0f}};
  Rows draft = {{1.0f, 2.0f, 2.0f, 3.5f, -1.0f}, {0.0f, 1.0f, 3.0f, 0.0f, 0.0f}};
  std::vector<int32_t> ids = {3, 2};
  std::vector<std::span<const float>> t = Spans(target), d = Spans(draft);
  Drafts drafts{t, d, ids, std::nullopt};
  SamplingParams params{.top_k = 3, .top_p = 0.9};
};

// The page's figures are rounded to 5 digits.
double Round5(double v) { return std::round(v * 1e5) / 1e5; }

TEST(Speculative, ThePagesWorkedExample) {
  for (Engine engine : {Engine::reference, Engine::fast}) {
    Example ex;
    Workspace ws;
    Request request;
    request.params = ex.params;
    Pcg32 rng = stream(0, Purpose::sample);
    auto r = verify(request, ex.drafts, rng, ws, {.engine = engine});
    ASSERT_TRUE(r) << r.error().message;
    ASSERT_EQ(r->tokens.size(), 1u);
    EXPECT_EQ(r->tokens[0].id, 1);
    EXPECT_EQ(Round5(r->tokens[0].logprob), -0.92487);
    EXPECT_EQ(r->accepted, 0u);
    EXPECT_EQ(r->draws, 2u);
    EXPECT_EQ(rng.draws_u32(), 4u);

    rng = stream(3, Purpose::sample);
    r = verify(request, ex.drafts, rng, ws, {.engine = engine});
    ASSERT_TRUE(r) << r.error().message;
    ASSERT_EQ(r->tokens.size(), 3u);
    const int32_t ids[] = {3, 2, 0};
    const double logprobs[] = {-0.92487, -0.50903, -0.57317};
    for (size_t j = 0; j < 3; ++j) {
      EXPECT_EQ(r->tokens[j].id, ids[j]);
      EXPECT_EQ(Round5(r->tokens[j].logprob), logprobs[j]);
    }
    EXPECT_EQ(r->accepted, 2u);
    EXPECT_EQ(r->draws, 3u);
  }
}

TEST(Speculative, TheDistributionsOfTheExample) {
  Example ex;
  Workspace ws;
  Request r{ex.target[0], {}, {}, ex.params};
  const auto p1 = distribution(r, ws);
  ASSERT_TRUE(p1);
  ASSERT_EQ(p1->size(), 3u);
  EXPECT_EQ((*p1)[0].id, 1);
  EXPECT_EQ(Round5((*p1)[0].q), 0.42232);
  EXPECT_EQ(Round5((*p1)[1].q), 0.15536);
  r.params.temperature = 0.0;
  const auto greedy = distribution(r, ws);
  ASSERT_TRUE(greedy);
  EXPECT_EQ(*greedy, (std::vector<KeptProb>{{1, 1.0}}));
}

void ExpectSame(const Result<Verified>& a, const Result<Verified>& b, const std::string& where) {
  ASSERT_EQ(a.ok(), b.ok()) << where << (a ? "" : a.error().message)
                            << (b ? "" : b.error().message);
  if (!a) {
    EXPECT_EQ(a.error().message, b.error().message) << where;
    return;
  }
  EXPECT_EQ(a->accepted, b->accepted) << where;
  EXPECT_EQ(a->draws, b->draws) << where;
  ASSERT_EQ(a->tokens.size(), b->tokens.size()) << where;
  for (size_t j = 0; j < a->tokens.size(); ++j) {
    EXPECT_EQ(a->tokens[j].id, b->tokens[j].id) << where << " token " << j;
    EXPECT_EQ(Bits(a->tokens[j].logprob), Bits(b->tokens[j].logprob)) << where;
    EXPECT_EQ(Bits(a->tokens[j].processed_logprob), Bits(b->tokens[j].processed_logprob)) << where;
    EXPECT_EQ(a->tokens[j].top_count, b->tokens[j].top_count) << where;
    for (size_t k = 0; k < a->tokens[j].top_count; ++k) {
      EXPECT_EQ(a->tokens[j].top[k], b->tokens[j].top[k]) << where;
    }
  }
}

// Both engines verify from rng: the same result and generator. Returns the
// reference's result, rng advanced as it left it.
Result<Verified> VerifyOnBoth(const Request& request, const Drafts& drafts, Pcg32& rng,
                              const std::string& where) {
  Workspace ws;
  Pcg32 fast = rng;
  const auto a = verify(request, drafts, rng, ws, {.engine = Engine::reference});
  const auto b = verify(request, drafts, fast, ws, {.engine = Engine::fast});
  ExpectSame(a, b, where);
  EXPECT_EQ(rng, fast) << where;
  return a;
}

TEST(Speculative, EnginesAgreeOnEveryTargetAndTheDrawsAreCounted) {
  test::ForEachTarget([](int64_t target) {
    for (uint64_t seed = 0; seed < test::Share(60); ++seed) {
      const RandomVerification v = MakeVerification(seed, seed % 10 == 0 ? 262144 : 20000);
      const auto t = Spans(v.target), d = Spans(v.draft);
      const Drafts drafts{t, d, v.ids, v.draft_params};
      const Request request = v.base.At(v.base.generated);
      const std::string where =
          std::string(hwy::TargetName(target)) + " seed " + std::to_string(seed);
      Pcg32 r1 = stream(seed, Purpose::sample);
      const auto a = VerifyOnBoth(request, drafts, r1, where);
      Pcg32 fresh = stream(seed, Purpose::sample);
      if (a) {
        EXPECT_EQ(a->tokens.size(), a->accepted + 1) << where;
        fresh.advance(2 * a->draws);
      }
      EXPECT_EQ(fresh, r1) << where;  // unchanged on error
    }
  });
}

// A target whose chain has a tail (typical, then XTC-free steps the kernels
// leave to the reference's functions) takes its acceptance draw and the
// residual's on the caller's generator in both engines: a greedy draft
// whose id the target holds or not, accepted or replaced.
TEST(Speculative, ATailChainsDrawsAreTheReferencesOnEveryTarget) {
  test::ForEachTarget([](int64_t target) {
    for (uint64_t seed = 0; seed < test::Share(40); ++seed) {
      const RandomVerification v = MakeVerification(seed, 5000);
      const auto t = Spans(v.target), d = Spans(v.draft);
      const SamplingParams greedy{.temperature = 0.0};
      Request request = v.base.At(v.base.generated);
      request.params.typical_p = seed % 2 ? 0.95 : 0.5;
      Workspace ws;
      std::vector<int32_t> ids;
      for (size_t j = 0; j < d.size(); ++j) {
        std::vector<int32_t> h = v.base.generated;
        h.insert(h.end(), ids.begin(), ids.end());
        const auto q = distribution({d[j], v.base.prompt, h, greedy}, ws);
        ASSERT_TRUE(q) << q.error().message;
        ids.push_back(q->front().id);
      }
      const Drafts drafts{t, d, ids, greedy};
      Pcg32 rng = stream(seed, Purpose::sample);
      VerifyOnBoth(request, drafts, rng,
                   std::string(hwy::TargetName(target)) + " seed " + std::to_string(seed));
    }
  });
}

// What the acceptance test reads of a row, q of one id (from its entry in
// the fast engine's kept set), is that id's q in the whole distribution the
// reference builds, bit for bit, for every id: random rows (top-k, top-p,
// min-p, masks, penalties) and a q that underflows to 0 (left out of both).
TEST(Speculative, AChoosersQOfOneIdIsItsEntryInTheWholeDistribution) {
  std::vector<RandomVerification> cases;
  for (uint64_t seed = 0; seed < test::Share(40); ++seed) {
    cases.push_back(MakeVerification(seed, 5000));
  }
  const std::vector<float> underflow = {0.0f, 0.0f, 0.0f, -745.0f, -10.0f};
  test::ForEachTarget([&](int64_t target) {
    std::vector<Request> all;
    for (const RandomVerification& v : cases) all.push_back(v.base.At(v.base.generated));
    all.push_back({underflow, {}, {}, {}});
    for (size_t c = 0; c < all.size(); ++c) {
      const Request& r = all[c];
      const std::string where =
          std::string(hwy::TargetName(target)) + " case " + std::to_string(c);
      Workspace ws;
      const auto want = distribution(r, ws, {.engine = Engine::reference});
      bool shown = false;
      const scalar_ref::Choose check = [&](const scalar_ref::KeptView& view) {
        shown = true;
        for (int32_t id = -1; id <= static_cast<int32_t>(r.vocab()); ++id) {
          EXPECT_EQ(Bits(view.Q(id)), Bits(scalar_ref::ProbabilityOf(*want, id)))
              << where << " id " << id;
        }
        EXPECT_EQ(std::vector<KeptProb>(view.All().begin(), view.All().end()), *want) << where;
        return view.All().front().id;
      };
      Pcg32 rng = stream(1, Purpose::sample);
      const auto token = detail::SampleChoosing(r, rng, ws, {.engine = Engine::fast}, &check);
      ASSERT_EQ(token.ok(), want.ok()) << where;
      if (!token || r.params.temperature == 0.0) continue;
      EXPECT_TRUE(shown) << where;
      EXPECT_EQ(rng, stream(1, Purpose::sample)) << where;  // a chooser takes no draw
      if (c + 1 == all.size()) {
        EXPECT_EQ(want->size(), 4u) << where;  // id 3's q is 0
      }
    }
  });
}

TEST(Speculative, OnASequenceItEqualsTheStatelessFormAndAppends) {
  for (uint64_t seed = 0; seed < test::Share(40); ++seed) {
    RandomVerification v = MakeVerification(seed + 1000, 20000);
    v.base.params.penalty_last_n = seed % 3 == 0 ? 0 : 1 + seed % 7;
    v.base.params.repetition_penalty = 1.25;
    v.base.params.frequency_penalty = 0.5;
    const auto t = Spans(v.target), d = Spans(v.draft);
    const Drafts drafts{t, d, v.ids, v.draft_params};
    auto made = Sequence::create(v.base.logits.size(), v.base.params,
                                 stream(seed, Purpose::sample),
                                 {v.base.bias_ids, v.base.bias_values, v.base.allowed,
                                  v.base.banned, v.base.allowed_bits});
    ASSERT_TRUE(made) << made.error().message;
    Sequence seq = std::move(made.value());
    ASSERT_TRUE(seq.accept_prompt(v.base.prompt));
    for (int32_t id : v.base.generated) ASSERT_TRUE(seq.accept(id));
    const std::vector<uint8_t> before = seq.snapshot();
    Pcg32 rng = stream(seed, Purpose::sample);
    Workspace ws;
    const auto a = verify(seq, drafts, ws);
    const auto b = verify(v.base.At(v.base.generated), drafts, rng, ws);
    ExpectSame(a, b, "seed " + std::to_string(seed));
    EXPECT_EQ(seq.rng(), rng);
    if (!a) {
      EXPECT_EQ(seq.snapshot(), before);
      continue;
    }
    std::vector<int32_t> want = v.base.generated;
    for (const Token& tok : a->tokens) want.push_back(tok.id);
    EXPECT_EQ(std::vector<int32_t>(seq.generated().begin(), seq.generated().end()), want);
    // The counts follow: a fresh sequence given the same ids is the same.
    Sequence again = std::move(Sequence::create(v.base.logits.size(), v.base.params,
                                                seq.rng(), seq.constraints()).value());
    ASSERT_TRUE(again.accept_prompt(v.base.prompt));
    for (int32_t id : want) ASSERT_TRUE(again.accept(id));
    Workspace w1, w2;
    const auto x = seq.sample_only({.logits = v.target[0]}, w1);
    const auto y = again.sample_only({.logits = v.target[0]}, w2);
    ASSERT_EQ(x.ok(), y.ok());
    if (x) {
      EXPECT_EQ(Bits(x->logprob), Bits(y->logprob));
    }
  }
}

// verify_batch is verify() for each verification alone: the same ids and
// logprob bits, the same generators, a bad one's error (and its generator
// untouched) without stopping the others; for any split of the passes.
TEST(Speculative, TheBatchIsEachVerificationAlone) {
  std::vector<RandomVerification> vs;
  for (uint64_t seed = 0; seed < 12; ++seed) vs.push_back(MakeVerification(seed + 700, 3000));
  for (int threads : {1, 3}) {
    const SampleOptions options{.threads = threads};
    std::vector<std::vector<std::span<const float>>> t, d;
    std::vector<Pcg32> rngs;
    for (size_t i = 0; i < vs.size(); ++i) {
      t.push_back(Spans(vs[i].target));
      d.push_back(Spans(vs[i].draft));
      rngs.push_back(stream(i, Purpose::sample));
    }
    std::vector<Pcg32> alone_rngs = rngs;
    std::vector<Verification> batch;
    for (size_t i = 0; i < vs.size(); ++i) {
      batch.push_back({vs[i].base.At(vs[i].base.generated),
                       {t[i], d[i], vs[i].ids, vs[i].draft_params},
                       &rngs[i]});
    }
    batch[4].drafts.draft_ids = {};  // bad: no drafts
    batch[7].rng = nullptr;          // bad: no generator
    std::vector<Result<Verified>> results = {Error{ErrorCode::invalid_parameter, "", "stale"}};
    Workspace ws, alone_ws;
    verify_batch(batch, results, ws, options);
    ASSERT_EQ(results.size(), vs.size());
    size_t good = 0;
    for (size_t i = 0; i < vs.size(); ++i) {
      const std::string where =
          std::to_string(threads) + " threads, verification " + std::to_string(i);
      if (i == 7) {
        ASSERT_FALSE(results[i]) << where;
        EXPECT_EQ(results[i].error().field, "rng");
        EXPECT_EQ(results[i].error().message, "rng: verification 7 has no generator");
        EXPECT_EQ(rngs[i], stream(i, Purpose::sample)) << where;
        continue;
      }
      const auto want = verify(batch[i].request, batch[i].drafts, alone_rngs[i], alone_ws, options);
      ExpectSame(results[i], want, where);
      EXPECT_EQ(rngs[i], alone_rngs[i]) << where;
      if (!want) {
        EXPECT_EQ(rngs[i], stream(i, Purpose::sample)) << where;
      }
      good += want.ok();
    }
    ASSERT_FALSE(results[4]);
    EXPECT_EQ(results[4].error().field, "draft_ids");
    EXPECT_GT(good, 4u);  // the comparisons are not all of errors
    verify_batch({}, results, ws, options);
    EXPECT_TRUE(results.empty());
  }
}

TEST(Speculative, ErrorsNameTheFieldTakeNoDrawAndEmitNothing) {
  Example ex;
  Workspace ws;
  Request request;
  request.params = ex.params;
  const auto expect_error = [&](const Drafts& d, const std::string& field) {
    Pcg32 rng = stream(0, Purpose::sample);
    const Pcg32 before = rng;
    const auto r = verify(request, d, rng, ws);
    ASSERT_FALSE(r) << field;
    EXPECT_EQ(r.error().field, field) << r.error().message;
    EXPECT_EQ(rng, before) << field;
  };
  std::vector<int32_t> none;
  expect_error({ex.t, ex.d, none, std::nullopt}, "draft_ids");
  expect_error({std::span(ex.t).first(2), ex.d, ex.ids, std::nullopt}, "target_logits");
  expect_error({ex.t, std::span(ex.d).first(1), ex.ids, std::nullopt}, "draft_logits");
  Rows short_rows = ex.target;
  short_rows[1].pop_back();
  const auto s = Spans(short_rows);
  expect_error({s, ex.d, ex.ids, std::nullopt}, "target_logits[1]");
  std::vector<int32_t> outside = {3, 5};
  expect_error({ex.t, ex.d, outside, std::nullopt}, "draft_ids[1]");
  std::vector<int32_t> unlikely = {4, 2};  // id 4 is outside the draft's top-3
  expect_error({ex.t, ex.d, unlikely, std::nullopt}, "draft_ids[0]");
  Rows nan_rows = ex.target;
  nan_rows[0][2] = NAN;
  const auto n = Spans(nan_rows);
  expect_error({n, ex.d, ex.ids, std::nullopt}, "logits");
  // A greedy target reads no draft rows.
  request.params.temperature = 0.0;
  Pcg32 rng = stream(0, Purpose::sample);
  const auto g = verify(request, {ex.t, {}, ex.ids, std::nullopt}, rng, ws);
  ASSERT_TRUE(g) << g.error().message;
  EXPECT_EQ(g->draws, 0u);
  EXPECT_EQ(rng.draws_u32(), 0u);
}

}  // namespace
}  // namespace exactsample
