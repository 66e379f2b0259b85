// Sequence: every token equals the stateless sample() with the full
// history, bit for bit, on both engines and every target; the penalty
// window against a hand computation; clone, reset, snapshot and restore;
// the batch over sequences; bad input leaving the sequence as it was.
#include "exactsample/sequence.hpp"
#include "lib/api/sequence_counts.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <set>
#include <tuple>

#include "tests/support/random_requests.hpp"
#include "tests/support/test_util.hpp"

namespace exactsample {
namespace {

using test::Bits;

// Everything a token carries, as bits.
void ExpectSameToken(const Result<Token>& a, const Result<Token>& b, const std::string& where) {
  ASSERT_EQ(a.ok(), b.ok()) << where << (a ? "" : a.error().message)
                            << (b ? "" : b.error().message);
  if (!a) {
    EXPECT_EQ(a.error().message, b.error().message) << where;
    return;
  }
  EXPECT_EQ(a->id, b->id) << where;
  EXPECT_EQ(Bits(a->logprob), Bits(b->logprob)) << where;
  EXPECT_EQ(Bits(a->processed_logprob), Bits(b->processed_logprob)) << where;
  ASSERT_EQ(a->top_count, b->top_count) << where;
  for (size_t j = 0; j < a->top_count; ++j) {
    EXPECT_EQ(a->top[j].id, b->top[j].id) << where;
    EXPECT_EQ(Bits(a->top[j].logprob), Bits(b->top[j].logprob)) << where;
  }
}

Constraints ConstraintsOf(const test::RandomCase& c) {
  return {c.bias_ids, c.bias_values, c.allowed, c.banned, c.allowed_bits};
}

// A history of `n` ids drawn with repeats (a few ids often, most rarely).
std::vector<int32_t> ZipfIds(test::CaseMaker& make, size_t vocab, size_t n) {
  std::vector<int32_t> ids(n);
  for (int32_t& id : ids) {
    const double r = make.Uniform();
    id = static_cast<int32_t>(static_cast<double>(vocab) * r * r * r) %
         static_cast<int32_t>(vocab);
  }
  return ids;
}

// The row of step `k`: the case's row with a few values moved, so that the
// steps differ.
std::vector<float> RowAt(const test::RandomCase& c, int k, test::CaseMaker& make) {
  std::vector<float> x = c.logits;
  for (int j = 0; j < 3 && k > 0; ++j) {
    float& v = x[make.Below(static_cast<uint32_t>(x.size()))];
    if (std::isfinite(v)) v += static_cast<float>(make.Normal());
  }
  return x;
}

// Runs `steps` tokens through a sequence and through stateless calls with
// the same history, comparing every output and the generators.
void RunAgainstStateless(const test::RandomCase& c, int64_t window, size_t steps,
                         Engine engine, test::CaseMaker& make, const std::string& where) {
  SamplingParams params = c.params;
  params.penalty_last_n = window;
  auto made = Sequence::create(c.logits.size(), params, stream(c.seed, Purpose::sample),
                               ConstraintsOf(c));
  ASSERT_TRUE(made) << made.error().message;
  Sequence seq = std::move(made.value());
  ASSERT_TRUE(seq.accept_prompt(c.prompt));
  for (int32_t id : c.generated) ASSERT_TRUE(seq.accept(id));
  std::vector<int32_t> prompt = c.prompt, generated = c.generated;
  Pcg32 rng = stream(c.seed, Purpose::sample);
  Workspace ws_seq, ws_plain;
  std::vector<KeptProb> dist_seq, dist_plain;
  for (size_t k = 0; k < steps; ++k) {
    const std::vector<float> x = RowAt(c, static_cast<int>(k), make);
    SampleOptions o{.engine = engine, .distribution = &dist_seq};
    const Result<Token> a = seq.sample({.logits = x}, ws_seq, o);
    Request plain{x, prompt, generated, params, {c.bias_ids, c.bias_values},
                  {c.allowed, c.banned, c.allowed_bits}};
    o.distribution = &dist_plain;
    const Result<Token> b = sample(plain, rng, ws_plain, o);
    const std::string at = where + " step " + std::to_string(k);
    ExpectSameToken(a, b, at);
    ASSERT_EQ(seq.rng(), rng) << at;
    ASSERT_EQ(dist_seq, dist_plain) << at;
    if (!a) return;
    generated.push_back(a->id);
    ASSERT_EQ(std::vector<int32_t>(seq.generated().begin(), seq.generated().end()), generated);
    // Sometimes a token chosen elsewhere, or a late prompt id.
    if (make.Chance(0.2)) {
      const auto id = static_cast<int32_t>(make.Below(static_cast<uint32_t>(x.size())));
      ASSERT_TRUE(seq.accept(id));
      generated.push_back(id);
    }
    if (make.Chance(0.1)) {
      const auto id = static_cast<int32_t>(make.Below(static_cast<uint32_t>(x.size())));
      ASSERT_TRUE(seq.accept_prompt(std::span(&id, 1)));
      prompt.push_back(id);
    }
  }
}

int64_t AnyWindow(test::CaseMaker& make) {
  const double r = make.Uniform();
  return r < 0.4 ? 0 : r < 0.7 ? 1 + make.Below(8) : 1 + make.Below(64);
}

TEST(Sequence, TokensEqualStatelessCallsWithTheFullHistoryOnEveryTarget) {
  test::ForEachTarget([](int64_t target) {
    for (uint64_t seed = 0; seed < test::Share(60); ++seed) {
      test::CaseMaker make(seed * 7919 + 1);
      test::RandomCase c = make.Make(seed, 40000, seed % 2 == 0);
      // Penalties on more often than the generic cases, to exercise counts.
      if (make.Chance(0.6)) c.params.repetition_penalty = make.LogUniform(0.5, 2.0);
      if (make.Chance(0.6)) c.params.frequency_penalty = make.Uniform();
      if (make.Chance(0.6)) c.params.presence_penalty = make.Uniform() - 0.2;
      const int64_t window = AnyWindow(make);
      const std::string where = "target " + std::string(hwy::TargetName(target)) + " seed " +
                                std::to_string(seed) + " window " + std::to_string(window);
      RunAgainstStateless(c, window, 6, Engine::fast, make, where + " fast");
      RunAgainstStateless(c, window, 3, Engine::reference, make, where + " reference");
    }
  });
}

TEST(Sequence, LongHistoriesWithRepeatsEqualStatelessCalls) {
  for (uint64_t seed = 0; seed < test::Share(12); ++seed) {
    test::CaseMaker make(seed + 100);
    test::RandomCase c = make.Make(seed, 20000);
    c.params.repetition_penalty = 1.3;
    c.params.frequency_penalty = 0.25;
    c.params.presence_penalty = 0.5;
    if (c.params.temperature == 0.0) c.params.temperature = 0.8;
    c.prompt = ZipfIds(make, c.logits.size(), 3000);
    c.generated = ZipfIds(make, c.logits.size(), 3000);
    for (int64_t window : {int64_t{0}, int64_t{64}, int64_t{2999}, int64_t{4000}, int64_t{7000}}) {
      RunAgainstStateless(c, window, 4, Engine::fast, make,
                          "seed " + std::to_string(seed) + " window " + std::to_string(window));
    }
  }
}

TEST(Sequence, PenaltiesThatOverflowOnALongHistoryGiveTheStatelessError) {
  test::CaseMaker make(77);
  test::RandomCase c = make.Make(3, 20000);
  c.params = {};
  c.params.temperature = 0.7;
  c.params.frequency_penalty = -1e308;  // two occurrences: +inf
  c.prompt = ZipfIds(make, c.logits.size(), 2000);
  c.generated = ZipfIds(make, c.logits.size(), 4000);
  for (Engine engine : {Engine::fast, Engine::reference}) {
    RunAgainstStateless(c, 0, 1, engine, make, "overflow");
  }
}

// A long history (dense counts: penalties applied in the widening pass)
// reaching each error after step 1: every logit -inf before penalties,
// every logit -inf after them, and a penalised NaN; the same error as the
// stateless call's.
TEST(Sequence, LongHistoriesGiveTheStatelessErrors) {
  test::CaseMaker make(91);
  test::RandomCase c{.seed = 5, .logits = std::vector<float>(4096), .params = {}, .prompt = {},
                     .generated = {}};
  c.params.temperature = 0.9;
  c.prompt = ZipfIds(make, c.logits.size(), 1500);
  c.generated = ZipfIds(make, c.logits.size(), 1500);
  const auto in_history = [&](size_t id) {
    const auto has = [&](const std::vector<int32_t>& ids) {
      return std::find(ids.begin(), ids.end(), static_cast<int32_t>(id)) != ids.end();
    };
    return has(c.prompt) || has(c.generated);
  };
  test::RandomCase all_masked = c;
  std::fill(all_masked.logits.begin(), all_masked.logits.end(), -INFINITY);
  all_masked.params.repetition_penalty = 1.2;
  test::RandomCase all_penalised = all_masked;
  all_penalised.params.repetition_penalty = 1e300;
  test::RandomCase nan = all_masked;
  nan.params.frequency_penalty = -1e308;  // -inf - (2 * -1e308) is NaN
  for (size_t id = 0; id < c.logits.size(); ++id) {
    if (in_history(id)) {
      all_penalised.logits[id] = -3e38f;
    } else if (id % 7 == 0) {
      nan.logits[id] = 1.0f;
    }
  }
  for (Engine engine : {Engine::fast, Engine::reference}) {
    for (const auto& [said, bad] : {std::pair{"every logit is -inf", &all_masked},
                                    std::pair{"penalties make every logit -inf", &all_penalised},
                                    std::pair{" nan (", &nan}}) {
      auto made = Sequence::create(bad->logits.size(), bad->params, stream(1, Purpose::sample));
      ASSERT_TRUE(made);
      Sequence seq = std::move(made.value());
      ASSERT_TRUE(seq.accept_prompt(bad->prompt));
      for (int32_t id : bad->generated) ASSERT_TRUE(seq.accept(id));
      Workspace ws;
      const Result<Token> got = seq.sample({.logits = bad->logits}, ws, {.engine = engine});
      ASSERT_FALSE(got) << said;
      EXPECT_NE(got.error().message.find(said), std::string::npos) << said << ": " << got.error().message;
      RunAgainstStateless(*bad, 0, 1, engine, make, said);
    }
  }
}

// The window rule computed here by hand: the repetition penalty over the
// distinct ids of the last n tokens of prompt followed by generated,
// presence and frequency over the counts in the last n generated tokens;
// compared with the penalised logits both engines trace.
TEST(Sequence, ThePenaltyWindowIsTheRuleOfTheParams) {
  for (uint64_t seed = 0; seed < 40; ++seed) {
    test::CaseMaker make(seed + 500);
    const size_t vocab = 50 + make.Below(100);
    std::vector<float> x(vocab);
    for (float& v : x) v = static_cast<float>(3 * make.Normal());
    SamplingParams p;
    p.repetition_penalty = make.LogUniform(0.5, 2.0);
    p.frequency_penalty = make.Uniform();
    p.presence_penalty = make.Uniform();
    p.penalty_last_n = make.Below(40);
    const std::vector<int32_t> prompt = ZipfIds(make, vocab, make.Below(30));
    const std::vector<int32_t> generated = ZipfIds(make, vocab, make.Below(30));
    std::vector<int32_t> all = prompt;
    all.insert(all.end(), generated.begin(), generated.end());
    const size_t n = p.penalty_last_n == 0 ? SIZE_MAX : static_cast<size_t>(p.penalty_last_n);
    const std::set<int32_t> repeated(all.end() - std::min(n, all.size()), all.end());
    std::map<int32_t, int> count;
    for (auto it = generated.end() - std::min(n, generated.size()); it != generated.end(); ++it) {
      ++count[*it];
    }
    std::vector<double> want(x.begin(), x.end());
    for (int32_t i : repeated) {
      want[i] = want[i] > 0 ? want[i] / p.repetition_penalty : want[i] * p.repetition_penalty;
    }
    for (const auto& [i, c] : count) {
      want[i] = want[i] - p.frequency_penalty * c - p.presence_penalty;
    }
    for (Engine engine : {Engine::reference, Engine::fast}) {
      Trace trace;
      Pcg32 rng = stream(seed, Purpose::sample);
      Workspace ws;
      ASSERT_TRUE(sample({x, prompt, generated, p}, rng, ws, {.engine = engine, .trace = &trace}));
      for (size_t i = 0; i < vocab; ++i) {
        ASSERT_EQ(Bits(trace.penalized[i]), Bits(want[i])) << "seed " << seed << " id " << i;
      }
    }
  }
}

Sequence MakeSequence(size_t vocab, uint64_t seed, int64_t window = 0) {
  SamplingParams p;
  p.temperature = 0.9;
  p.top_k = 20;
  p.repetition_penalty = 1.2;
  p.frequency_penalty = 0.3;
  p.penalty_last_n = window;
  auto made = Sequence::create(vocab, p, stream(seed, Purpose::sample));
  EXPECT_TRUE(made) << made.error().message;
  return std::move(made.value());
}

std::vector<float> NormalRow(size_t vocab, uint64_t seed) {
  test::SplitMix mix{seed};
  std::vector<float> x(vocab);
  for (float& v : x) v = static_cast<float>(mix.Normal(2.0));
  return x;
}

TEST(Sequence, ACloneAndARestoredSnapshotContinueIdentically) {
  const size_t vocab = 3000;
  for (int64_t window : {0, 5}) {
    Sequence seq = MakeSequence(vocab, 9, window);
    const std::vector<int32_t> prompt = {1, 2, 3, 2, 1};
    ASSERT_TRUE(seq.accept_prompt(prompt));
    Workspace ws;
    for (int k = 0; k < 10; ++k) ASSERT_TRUE(seq.sample({.logits = NormalRow(vocab, k)}, ws));
    Sequence clone = seq;
    auto restored = Sequence::restore(seq.snapshot());
    ASSERT_TRUE(restored) << restored.error().message;
    for (int k = 10; k < 30; ++k) {
      const std::vector<float> x = NormalRow(vocab, k);
      const auto a = seq.sample({.logits = x}, ws);
      ExpectSameToken(a, clone.sample({.logits = x}, ws), "clone");
      ExpectSameToken(a, restored.value().sample({.logits = x}, ws), "restored");
    }
    EXPECT_EQ(seq.rng(), clone.rng());
    EXPECT_EQ(seq.rng(), restored.value().rng());
    EXPECT_EQ(seq.snapshot(), restored.value().snapshot());
    // reset: back to the start, as a fresh sequence.
    seq.reset();
    Sequence fresh = MakeSequence(vocab, 9, window);
    EXPECT_EQ(seq.snapshot(), fresh.snapshot());
  }
}

// truncate: the sequence is what it was before the dropped tokens (ids,
// counts and window: the same snapshot but for the generator, which stays);
// a length above the generated count is refused and changes nothing.
TEST(Sequence, TruncateRollsTheGeneratedIdsBack) {
  const size_t vocab = 3000;
  for (int64_t window : {0, 5}) {
    Sequence seq = MakeSequence(vocab, 9, window);
    ASSERT_TRUE(seq.accept_prompt(std::vector<int32_t>{1, 2, 3}));
    Workspace ws;
    for (int k = 0; k < 4; ++k) ASSERT_TRUE(seq.sample({.logits = NormalRow(vocab, k)}, ws));
    Sequence before = seq;
    for (int k = 4; k < 12; ++k) ASSERT_TRUE(seq.sample({.logits = NormalRow(vocab, k)}, ws));
    const Pcg32 rng = seq.rng();
    const auto bad = seq.truncate(13);
    ASSERT_FALSE(bad);
    EXPECT_EQ(bad.error().field, "length");
    EXPECT_EQ(seq.generated().size(), 12u);
    ASSERT_TRUE(seq.truncate(4));
    EXPECT_EQ(seq.rng(), rng);
    before.rng() = rng;
    EXPECT_EQ(seq.snapshot(), before.snapshot());
    const std::vector<float> x = NormalRow(vocab, 20);
    ExpectSameToken(seq.sample({.logits = x}, ws), before.sample({.logits = x}, ws), "truncated");
  }
}

TEST(Sequence, BadSnapshotsAreRefusedNamingTheSnapshot) {
  Sequence seq = MakeSequence(100, 1);
  ASSERT_TRUE(seq.accept_prompt(std::vector<int32_t>{4, 5}));
  const std::vector<uint8_t> good = seq.snapshot();
  for (size_t cut : {size_t{0}, size_t{3}, size_t{40}, good.size() - 1}) {
    const auto r = Sequence::restore(std::span(good).first(cut));
    ASSERT_FALSE(r) << cut;
    EXPECT_EQ(r.error().field, "snapshot");
  }
  for (size_t i = 0; i < good.size(); ++i) {  // every byte flipped
    std::vector<uint8_t> bad = good;
    bad[i] ^= 0x10;
    const auto r = Sequence::restore(bad);
    ASSERT_FALSE(r) << "byte " << i;
    EXPECT_EQ(r.error().field, "snapshot") << "byte " << i;
  }
  std::vector<uint8_t> longer = good;
  longer.push_back(0);
  EXPECT_FALSE(Sequence::restore(longer));
}

TEST(Sequence, BadInputIsAnErrorAndChangesNothing) {
  const size_t vocab = 64;
  Sequence seq = MakeSequence(vocab, 3);
  ASSERT_TRUE(seq.accept_prompt(std::vector<int32_t>{1, 2}));
  const std::vector<uint8_t> before = seq.snapshot();
  for (int32_t id : {-1, 64, INT32_MAX}) {
    const auto r = seq.accept(id);
    ASSERT_FALSE(r);
    EXPECT_EQ(r.error().field, "id");
    EXPECT_NE(r.error().message.find(std::to_string(id)), std::string::npos);
  }
  const auto p = seq.accept_prompt(std::vector<int32_t>{3, 64});
  ASSERT_FALSE(p);
  EXPECT_EQ(p.error().field, "prompt[1]");
  Workspace ws;
  const std::vector<float> wrong(vocab + 1, 0.0f);
  const auto s = seq.sample({.logits = wrong}, ws);
  ASSERT_FALSE(s);
  EXPECT_EQ(s.error().field, "logits");
  EXPECT_NE(s.error().message.find("65"), std::string::npos);
  std::vector<float> nan_row(vocab, 0.0f);
  nan_row[7] = NAN;
  EXPECT_FALSE(seq.sample({.logits = nan_row}, ws));
  EXPECT_EQ(seq.snapshot(), before);  // nothing appended, no draw taken

  SamplingParams bad;
  bad.penalty_last_n = -1;
  const auto c = Sequence::create(vocab, bad, stream(1, Purpose::sample));
  ASSERT_FALSE(c);
  EXPECT_EQ(c.error().field, "penalty_last_n");
  EXPECT_FALSE(Sequence::create(0, {}, stream(1, Purpose::sample)));
  const auto e = Sequence::create(vocab, {}, stream(1, Purpose::sample), {.bias_ids = {64}, .bias_values = {1.0}});
  ASSERT_FALSE(e);
  EXPECT_EQ(e.error().field, "logit_bias");
}

TEST(Sequence, AnOverriddenWindowIsSampledFromTheIds) {
  const size_t vocab = 500;
  Sequence seq = MakeSequence(vocab, 4, 3);
  ASSERT_TRUE(seq.accept_prompt(std::vector<int32_t>{7, 7, 8, 9}));
  for (int32_t id : {7, 10, 10, 11}) ASSERT_TRUE(seq.accept(id));
  SamplingParams other = seq.params();
  other.penalty_last_n = 0;
  const std::vector<float> x = NormalRow(vocab, 5);
  Pcg32 rng = seq.rng();
  Workspace ws;
  const auto a = seq.sample_only({.logits = x, .params = &other}, ws);
  const auto b = sample({x, seq.prompt(), seq.generated(), other}, rng, ws);
  ExpectSameToken(a, b, "override");
  EXPECT_EQ(seq.rng(), rng);
  EXPECT_EQ(seq.generated().size(), 4u);  // sample_only appends nothing
}

TEST(Sequence, ABatchOfSequencesEqualsEachSequenceAlone) {
  const size_t vocab = 40000;
  for (int threads : {1, 2}) {
    std::vector<Sequence> batch, alone;
    for (uint64_t i = 0; i < 6; ++i) {
      batch.push_back(MakeSequence(vocab, i, i % 2 == 0 ? 0 : 16));
      ASSERT_TRUE(batch.back().accept_prompt(std::vector<int32_t>{1, 2, 3}));
      if (i % 3 != 0) {  // a long history: counts past V / 64 distinct ids
        test::CaseMaker make(i);
        ASSERT_TRUE(batch.back().accept_prompt(ZipfIds(make, vocab, 4000)));
      }
      alone.push_back(batch.back());
    }
    std::vector<Sequence*> ptrs;
    for (Sequence& s : batch) ptrs.push_back(&s);
    BatchWorkspace bws;
    Workspace ws;
    std::vector<Result<Token>> results;
    for (int k = 0; k < 4; ++k) {
      std::vector<std::vector<float>> xs;
      std::vector<Step> steps;
      for (uint64_t i = 0; i < batch.size(); ++i) xs.push_back(NormalRow(vocab, 10 * k + i));
      for (const auto& x : xs) steps.push_back({.logits = x});
      std::vector<float> wrong(vocab - 1);
      if (k == 2) steps[3] = {.logits = wrong};  // one bad row
      sample_batch(ptrs, steps, results, bws, {}, threads);
      for (size_t i = 0; i < batch.size(); ++i) {
        ExpectSameToken(results[i], alone[i].sample(steps[i], ws), "row " + std::to_string(i));
        EXPECT_EQ(batch[i].snapshot(), alone[i].snapshot()) << "row " << i;
      }
      EXPECT_FALSE(results[3].ok() && k == 2);
    }
  }
}

// What a batch helper copies of a sequence's counts (detail::HistoryCounts::
// CopyEntries): the same ids, counts and codes, for few ids (a list) and
// for many (the dense arrays), after ids entered and left the window.
TEST(Sequence, ABatchHelpersCopyOfTheCountsIsTheSame) {
  for (size_t distinct : {10, 3000}) {
    const size_t vocab = 40000;
    detail::HistoryCounts counts(vocab);
    test::CaseMaker make(distinct);
    for (size_t k = 0; k < 2 * distinct; ++k) {
      const auto id = static_cast<int32_t>(make.Below(static_cast<uint32_t>(distinct * 4)));
      counts.Repetition(id, +1);
      if (k % 2 == 0) counts.Generated(id, +1);
      if (k % 5 == 4) {  // leaves the window again
        counts.Generated(id, -static_cast<int>(k % 2 == 0));
        counts.Repetition(id, -1);
      }
    }
    detail::HistoryCounts copy;
    copy.CopyEntries(counts);
    using Entry = std::tuple<int32_t, uint32_t, uint32_t>;
    std::vector<Entry> want, got;
    counts.ForEach([&](int32_t id, uint32_t r, uint32_t g) { want.emplace_back(id, r, g); });
    copy.ForEach([&](int32_t id, uint32_t r, uint32_t g) { got.emplace_back(id, r, g); });
    std::sort(want.begin(), want.end());
    std::sort(got.begin(), got.end());
    EXPECT_EQ(got, want) << distinct;
    EXPECT_EQ(copy.empty(), counts.empty());
    EXPECT_EQ(copy.generated_total(), counts.generated_total());
    ASSERT_EQ(copy.codes() != nullptr, counts.codes() != nullptr);
    ASSERT_EQ(counts.codes() != nullptr, distinct > vocab / 64) << "the form under test";
    if (counts.codes() != nullptr) {
      EXPECT_TRUE(std::equal(counts.codes(), counts.codes() + vocab, copy.codes()));
      for (const auto& [id, r, g] : want) ASSERT_EQ(counts.codes()[id], g) << id;
      const auto in_window = static_cast<size_t>(
          std::count_if(counts.codes(), counts.codes() + vocab, [](int32_t c) { return c >= 0; }));
      ASSERT_EQ(in_window, want.size());
    }
  }
}

// A generated count past INT32_MAX has no code: the dense form then hands
// out none (the engines visit the ids instead) until the count is back.
TEST(Sequence, ACountPastTheLargestCodeTurnsTheCodesOff) {
  const size_t vocab = 640;
  detail::HistoryCounts counts(vocab);
  for (int32_t id = 0; id < 20; ++id) counts.Repetition(id, +1);
  ASSERT_NE(counts.codes(), nullptr) << "the dense form under test";
  counts.Generated(7, INT32_MAX);
  ASSERT_NE(counts.codes(), nullptr);
  EXPECT_EQ(counts.codes()[7], INT32_MAX);
  counts.Generated(7, +1);
  EXPECT_EQ(counts.codes(), nullptr);
  detail::HistoryCounts copy;
  copy.CopyEntries(counts);
  EXPECT_EQ(copy.codes(), nullptr);
  uint32_t seen = 0;
  counts.ForEach([&](int32_t id, uint32_t, uint32_t g) { seen = id == 7 ? g : seen; });
  EXPECT_EQ(seen, uint32_t{INT32_MAX} + 1);
  counts.Generated(7, -1);
  ASSERT_NE(counts.codes(), nullptr);
  EXPECT_EQ(counts.codes()[7], INT32_MAX);
  EXPECT_EQ(counts.codes()[30], -1);
  // Past it before the counts turn dense.
  detail::HistoryCounts early(vocab);
  early.Generated(7, INT32_MAX);
  early.Generated(7, +1);
  for (int32_t id = 0; id < 20; ++id) early.Repetition(id, +1);
  EXPECT_EQ(early.codes(), nullptr);
  early.Generated(7, -1);
  ASSERT_NE(early.codes(), nullptr) << "the dense form under test";
  EXPECT_EQ(early.codes()[7], INT32_MAX);
}

TEST(Sequence, ASequenceGivenTwoRowsOfABatchIsRefusedForTheSecond) {
  const size_t vocab = 100;
  Sequence a = MakeSequence(vocab, 1), b = MakeSequence(vocab, 2);
  const Sequence b_before = b;
  const std::vector<float> x = NormalRow(vocab, 3);
  std::vector<Sequence*> seqs = {&a, &b, &a, &a};
  const std::vector<Step> steps(4, Step{.logits = x});
  BatchWorkspace bws;
  std::vector<Result<Token>> results;
  sample_batch(seqs, steps, results, bws, {}, 2);
  ASSERT_EQ(results.size(), 4u);
  EXPECT_TRUE(results[0]);
  EXPECT_TRUE(results[1]);
  for (size_t i : {2, 3}) {
    ASSERT_FALSE(results[i]);
    EXPECT_EQ(results[i].error().field, "sequences");
    EXPECT_EQ(results[i].error().message.find("sequences[" + std::to_string(i) + "] is sequences[0]"), 0u)
        << results[i].error().message;
  }
  EXPECT_EQ(a.generated().size(), 1u);  // the first row only
  Workspace ws;
  Sequence alone = b_before;
  ExpectSameToken(results[1], alone.sample({.logits = x}, ws), "b");
  std::vector<Sequence*> with_null = {&a, nullptr};
  sample_batch(with_null, std::span(steps).first(2), results, bws);
  ASSERT_FALSE(results[1]);
  EXPECT_EQ(results[1].error().message, "sequences[1] is null");
}

TEST(Sequence, TheDistributionIsTheSameOnBothEnginesAndEveryTarget) {
  test::ForEachTarget([](int64_t target) {
    for (uint64_t seed = 0; seed < test::Share(80); ++seed) {
      test::CaseMaker make(seed + 900);
      const test::RandomCase c = make.Make(seed, 30000, seed % 3 == 0);
      std::vector<KeptProb> ref, fast;
      Pcg32 r1 = stream(seed, Purpose::sample), r2 = r1;
      Workspace ws;
      const auto a = sample(c.At(c.generated), r1, ws,
                            {.engine = Engine::reference, .distribution = &ref});
      const auto b = sample(c.At(c.generated), r2, ws, {.distribution = &fast});
      ExpectSameToken(a, b, "seed " + std::to_string(seed));
      ASSERT_EQ(ref, fast) << hwy::TargetName(target) << " seed " << seed;
      if (!a) continue;
      ASSERT_FALSE(ref.empty());
      bool has_token = false;
      for (size_t j = 0; j < ref.size(); ++j) {
        ASSERT_GT(ref[j].q, 0.0);
        if (j > 0) {
          ASSERT_LT(ref[j - 1].id, ref[j].id);
        }
        has_token |= ref[j].id == a->id;
      }
      EXPECT_TRUE(has_token) << "seed " << seed;
    }
  });
}

}  // namespace
}  // namespace exactsample
