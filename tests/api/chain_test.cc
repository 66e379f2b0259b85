// The chain through the C++ API (docs/llama-samplers.md): chains from names
// and their errors, the page's messages, draw accounting, errors leaving
// the generator as it was, both engines alike, and mirostat's and
// adaptive-p's state in a Sequence (carried, cloned, reset, snapshotted).
// The values themselves are checked against the Python transcription by
// the replay tests (python_parity_chain, chain_golden.json).
#include <gtest/gtest.h>

#include <string>
#include <tuple>
#include <string_view>
#include <vector>

#include "exactsample/batch.hpp"
#include "exactsample/exactsample.hpp"
#include "exactsample/sequence.hpp"
#include "exactsample/speculative.hpp"
#include "tests/support/test_util.hpp"

namespace exactsample {
namespace {

using test::Bits;

const std::vector<float> kRow{1.25f, 2.0f, 0.5f, 3.0f, -1.0f, 2.5f, 0.0f, 1.5f};
const std::vector<int32_t> kPrompt{1, 3, 5, 1, 3, 5, 1, 3};

Result<Token> Sample(const SamplingParams& p, Pcg32& rng, Engine engine = Engine::reference,
                     std::span<const int32_t> generated = {}, ChainState* state = nullptr) {
  Workspace ws;
  SampleOptions o{engine};
  o.chain_state = state;
  return sample(Request{kRow, kPrompt, generated, p}, rng, ws, o);
}

std::string ErrorOf(const SamplingParams& p) {
  Pcg32 rng = stream(1, Purpose::sample);
  const Result<Token> t = Sample(p, rng);
  return t ? "no error" : t.error().message;
}

TEST(Chain, FromNamesAndPresets) {
  ASSERT_TRUE(chain_from_preset("spec"));
  EXPECT_EQ(chain_from_preset("spec")->preset, ChainPreset::spec);
  EXPECT_EQ(chain_from_preset("llama")->steps().back(), ChainStep::temperature);
  EXPECT_EQ(chain_from_preset("fast").error().message,
            "chain = 'fast': not a preset (spec, llama) or a list of step names");
  const std::vector<std::string_view> names{"top_k", "temperature"};
  const Result<Chain> list = chain_from_names(names);
  ASSERT_TRUE(list);
  ASSERT_EQ(list->steps().size(), 2u);
  EXPECT_EQ(list->steps()[0], ChainStep::top_k);
  const std::vector<std::string_view> preset_inside{"top_k", "llama"};
  EXPECT_EQ(chain_from_names(preset_inside).error().message,
            "chain[1] = 'llama': not a step (penalties, dry, top_n_sigma, top_k, typical, "
            "top_p, min_p, xtc, temperature)");
  EXPECT_EQ(chain_from_names(preset_inside).error().field, "chain");
  for (size_t i = 0; i < kChainSteps; ++i) {
    const auto step = static_cast<ChainStep>(i);
    const std::vector<std::string_view> one{chain_step_name(step)};
    EXPECT_EQ(chain_from_names(one)->steps()[0], step);
  }
}

TEST(Chain, ThePagesMessagesInItsOrder) {
  SamplingParams p;
  p.min_keep = -1;
  p.top_n_sigma = -1;  // reported after min_keep
  EXPECT_EQ(ErrorOf(p), "min_keep = -1: must be >= 0");
  p.min_keep = 0;
  EXPECT_EQ(ErrorOf(p), "top_n_sigma = -1.0: must be finite and >= 0 (0: off)");
  p = {};
  p.typical_p = NAN;
  EXPECT_EQ(ErrorOf(p), "typical_p = nan: must be >= 0 (1 or more: off)");
  p = {};
  p.xtc_threshold = -0.1;
  EXPECT_EQ(ErrorOf(p), "xtc_threshold = -0.1: must be in [0, 1] (above 0.5: off)");
  p = {};
  const std::vector<int32_t> good{1}, empty, outside{9};
  const std::vector<std::span<const int32_t>> breakers{good, empty};
  p.dry_sequence_breakers = breakers;
  EXPECT_EQ(ErrorOf(p), "dry_sequence_breakers[1]: empty");
  const std::vector<std::span<const int32_t>> far{outside};
  p.dry_sequence_breakers = far;
  EXPECT_EQ(ErrorOf(p), "dry_sequence_breakers[0][0] = 9: outside [0, 8)");
  p = {};
  p.adaptive_target = 2;
  EXPECT_EQ(ErrorOf(p), "adaptive_target = 2.0: must be <= 1 (below 0: off)");
  p = {};
  p.chain = Chain::List({ChainStep::top_k, ChainStep::top_k});
  EXPECT_EQ(ErrorOf(p), "chain[1] = 'top_k': listed twice");
  p.chain = Chain::List({ChainStep::top_k});
  p.top_p = 0.9;
  EXPECT_EQ(ErrorOf(p), "chain: top_p = 0.9 is on but the chain has no top_p step");
  p = {};
  p.mirostat = 2;
  p.top_k = 40;
  EXPECT_EQ(ErrorOf(p), "top_k = 40: mirostat = 2 replaces the filters; set top_k = 0");
}

// A list longer than every step repeats one among its first ten entries,
// which is where the list keeps them.
TEST(Chain, AListLongerThanTheStepsIsARepeat) {
  SamplingParams p;
  p.chain = Chain::List({ChainStep::penalties, ChainStep::dry, ChainStep::top_n_sigma,
                         ChainStep::top_k, ChainStep::typical, ChainStep::top_p,
                         ChainStep::min_p, ChainStep::xtc, ChainStep::temperature,
                         ChainStep::dry, ChainStep::top_k, ChainStep::top_k});
  EXPECT_EQ(p.chain.steps().size(), kChainSteps + 1);
  EXPECT_EQ(ErrorOf(p), "chain[9] = 'dry': listed twice");
}

TEST(Chain, DrawsXtcsThenTheTerminals) {
  SamplingParams p;
  p.xtc_probability = 0.5;
  for (const auto& [chain, temperature, draws] :
       {std::tuple{Chain{}, 1.0, 2u}, std::tuple{Chain{}, 0.0, 0u},
        std::tuple{Chain::Llama(), 0.0, 1u}, std::tuple{Chain::Llama(), 0.5, 2u}}) {
    p.chain = chain;
    p.temperature = temperature;
    for (Engine engine : {Engine::reference, Engine::fast}) {
      Pcg32 rng = stream(3, Purpose::sample);
      ASSERT_TRUE(Sample(p, rng, engine));
      EXPECT_EQ(rng.draws_u32(), 2 * draws) << temperature;
    }
  }
}

// XTC draws before temperature in the llama order; the temperature's
// overflow is then refused and the generator is where it was.
TEST(Chain, AnErrorAfterXtcsDrawLeavesTheGenerator) {
  SamplingParams p;
  p.chain = Chain::Llama();
  p.xtc_probability = 1.0;
  p.temperature = 1e-310;
  for (Engine engine : {Engine::reference, Engine::fast}) {
    Pcg32 rng = stream(4, Purpose::sample);
    const Pcg32 before = rng;
    const Result<Token> t = Sample(p, rng, engine);
    ASSERT_FALSE(t);
    EXPECT_EQ(t.error().field, "temperature");
    EXPECT_EQ(rng.state(), before.state());
    EXPECT_EQ(rng.draws_u32(), before.draws_u32());
  }
}

TEST(Chain, BothEnginesGiveTheSameTokens) {
  SamplingParams p;
  p.chain = Chain::Llama();
  p.temperature = 0.7;
  p.top_k = 6;
  p.typical_p = 0.9;
  p.dry_multiplier = 0.8;
  p.top_logprobs = 4;
  for (uint64_t seed = 0; seed < 20; ++seed) {
    Pcg32 a = stream(seed, Purpose::sample), b = a;
    const Result<Token> ta = Sample(p, a, Engine::reference);
    const Result<Token> tb = Sample(p, b, Engine::fast);
    ASSERT_TRUE(ta && tb);
    EXPECT_EQ(Bits(*ta), Bits(*tb));
    EXPECT_EQ(a.state(), b.state());
  }
}

TEST(Chain, DistributionRefusesADrawingChain) {
  SamplingParams p;
  p.xtc_probability = 0.5;
  Workspace ws;
  const auto d = distribution(Request{kRow, kPrompt, {}, p}, ws);
  ASSERT_FALSE(d);
  EXPECT_EQ(d.error().message,
            "xtc_probability = 0.5: verification needs a fixed distribution; XTC draws");
  p = {};
  p.mirostat = 2;
  EXPECT_EQ(distribution(Request{kRow, kPrompt, {}, p}, ws).error().message,
            "mirostat = 2: verification needs a fixed distribution; mirostat draws");
}

// A Sequence's tokens are the stateless calls with the state carried by hand.
std::vector<Token> Stateless(const SamplingParams& p, uint64_t seed, int n) {
  Pcg32 rng = stream(seed, Purpose::sample);
  ChainState state;
  std::vector<int32_t> generated;
  std::vector<Token> out;
  for (int i = 0; i < n; ++i) {
    const Result<Token> t = Sample(p, rng, Engine::fast, generated, &state);
    EXPECT_TRUE(t);
    out.push_back(*t);
    generated.push_back(t->id);
  }
  return out;
}

std::vector<Token> Tokens(Sequence& seq, int n) {
  Workspace ws;
  std::vector<Token> out;
  for (int i = 0; i < n; ++i) {
    const Result<Token> t = seq.sample({.logits = kRow}, ws);
    EXPECT_TRUE(t);
    out.push_back(*t);
  }
  return out;
}

TEST(Chain, ASequenceCarriesMirostatAndAdaptiveState) {
  SamplingParams miro;
  miro.mirostat = 1;
  miro.mirostat_tau = 2.0;
  miro.mirostat_eta = 0.5;
  SamplingParams adaptive;
  adaptive.adaptive_target = 0.3;
  adaptive.adaptive_decay = 0.5;
  for (const SamplingParams& p : {miro, adaptive}) {
    const std::vector<Token> want = Stateless(p, 9, 16);
    // Without the state carried, the tokens differ somewhere: the test can fail.
    std::vector<Token> fresh;
    {
      Pcg32 rng = stream(9, Purpose::sample);
      std::vector<int32_t> generated;
      for (int i = 0; i < 16; ++i) {
        fresh.push_back(*Sample(p, rng, Engine::fast, generated));
        generated.push_back(fresh.back().id);
      }
    }
    EXPECT_NE(fresh, want);
    auto made = Sequence::create(kRow.size(), p, stream(9, Purpose::sample));
    ASSERT_TRUE(made);
    Sequence seq = std::move(*made);
    ASSERT_TRUE(seq.accept_prompt(kPrompt));
    std::vector<Token> got = Tokens(seq, 6);
    Sequence copy = seq;  // the clone carries the state
    const std::vector<Token> rest = Tokens(seq, 10);
    EXPECT_EQ(Tokens(copy, 10), rest);
    got.insert(got.end(), rest.begin(), rest.end());
    EXPECT_EQ(got, want);
    seq.reset();
    ASSERT_TRUE(seq.accept_prompt(kPrompt));
    EXPECT_EQ(Tokens(seq, 16), want);
  }
}

// sample_only then accept of the drawn id is sample, the state included;
// an accept of another id, or anything changing the ids in between, leaves
// the state where it was (as a forced token does).
TEST(Chain, SampleOnlyThenAcceptIsSample) {
  SamplingParams p;
  p.mirostat = 1;
  p.mirostat_tau = 2.0;
  p.mirostat_eta = 0.5;
  const std::vector<Token> want = Stateless(p, 9, 16);
  auto made = Sequence::create(kRow.size(), p, stream(9, Purpose::sample));
  ASSERT_TRUE(made);
  Sequence seq = std::move(*made);
  ASSERT_TRUE(seq.accept_prompt(kPrompt));
  Workspace ws;
  std::vector<Token> got;
  for (int i = 0; i < 16; ++i) {
    const Result<Token> t = seq.sample_only({.logits = kRow}, ws);
    ASSERT_TRUE(t);
    got.push_back(*t);
    ASSERT_TRUE(seq.accept(t->id));
  }
  EXPECT_EQ(got, want);

  // Two copies: one accepts the drawn id, one another id then the drawn one.
  Sequence a = seq, b = seq;
  const Result<Token> ta = a.sample_only({.logits = kRow}, ws);
  const Result<Token> tb = b.sample_only({.logits = kRow}, ws);
  ASSERT_TRUE(ta && tb);
  ASSERT_TRUE(a.accept(ta->id));
  ASSERT_TRUE(b.accept((tb->id + 1) % static_cast<int32_t>(kRow.size())));
  ASSERT_TRUE(b.truncate(b.generated().size() - 1));
  ASSERT_TRUE(b.accept(tb->id));  // not the draw's accept any more
  EXPECT_EQ(a.generated().back(), b.generated().back());
  Sequence fresh = seq;
  fresh.rng() = b.rng();              // past the draw
  ASSERT_TRUE(fresh.accept(ta->id));  // a forced token: the state stays
  const std::vector<Token> after_b = Tokens(b, 6);
  EXPECT_EQ(after_b, Tokens(fresh, 6));
  EXPECT_NE(after_b, Tokens(a, 6));
}

// The sequence keeps its own breakers: the caller's may go.
TEST(Chain, ASequenceOwnsItsBreakers) {
  SamplingParams p;
  p.dry_multiplier = 1.5;
  p.dry_allowed_length = 1;
  std::vector<int32_t> breaker{5};
  std::vector<std::span<const int32_t>> breakers{breaker};
  p.dry_sequence_breakers = breakers;
  const std::vector<Token> want = Stateless(p, 2, 12);
  auto made = Sequence::create(kRow.size(), p, stream(2, Purpose::sample));
  ASSERT_TRUE(made);
  Sequence seq = std::move(*made);
  breaker[0] = 3;
  breakers.clear();
  ASSERT_TRUE(seq.accept_prompt(kPrompt));
  Sequence copy = seq;
  EXPECT_EQ(Tokens(copy, 12), want);
}

// sample_batch over sequences equals each sequence's sample(): mirostat's
// state carried, DRY's history read on the fast engine's threads too.
TEST(Chain, ABatchOfSequencesIsEachSequencesSample) {
  SamplingParams miro;
  miro.mirostat = 2;
  SamplingParams dry;
  dry.dry_multiplier = 1.5;
  dry.dry_allowed_length = 1;
  dry.chain = Chain::Llama();
  dry.top_k = 5;
  std::vector<Sequence> batched, single;
  for (int k = 0; k < 8; ++k) {
    const SamplingParams& p = k % 2 == 0 ? miro : dry;
    for (auto* into : {&batched, &single}) {
      auto made = Sequence::create(kRow.size(), p, stream(100 + k, Purpose::sample));
      ASSERT_TRUE(made);
      into->push_back(std::move(*made));
      ASSERT_TRUE(into->back().accept_prompt(kPrompt));
    }
  }
  std::vector<Sequence*> ptrs;
  for (Sequence& s : batched) ptrs.push_back(&s);
  const std::vector<Step> steps(ptrs.size(), Step{.logits = kRow});
  BatchWorkspace bws;
  std::vector<Result<Token>> results;
  Workspace ws;
  for (int t = 0; t < 6; ++t) {
    sample_batch(ptrs, steps, results, bws, {}, 2);
    for (size_t i = 0; i < single.size(); ++i) {
      const Result<Token> want = single[i].sample(steps[i], ws);
      ASSERT_TRUE(want && results[i]);
      EXPECT_EQ(Bits(*results[i]), Bits(*want)) << "sequence " << i << " token " << t;
    }
  }
}

// Snapshot version 2 carries the chain's fields, breakers and state: a
// restored sequence goes on as the original.
TEST(Chain, ASnapshotCarriesTheChainAndItsState) {
  SamplingParams p;
  p.chain = Chain::List({ChainStep::dry, ChainStep::penalties, ChainStep::temperature});
  p.mirostat = 2;
  p.mirostat_tau = 1.5;
  p.temperature = 0.9;
  p.dry_multiplier = 1.5;
  p.dry_allowed_length = 1;
  const std::vector<int32_t> breaker{5, 1};
  const std::vector<std::span<const int32_t>> breakers{breaker};
  p.dry_sequence_breakers = breakers;
  auto made = Sequence::create(kRow.size(), p, stream(6, Purpose::sample));
  ASSERT_TRUE(made);
  Sequence seq = std::move(*made);
  ASSERT_TRUE(seq.accept_prompt(kPrompt));
  Tokens(seq, 5);
  const std::vector<uint8_t> bytes = seq.snapshot();
  EXPECT_EQ(bytes[4], 2);  // the format version
  Result<Sequence> restored = Sequence::restore(bytes);
  ASSERT_TRUE(restored) << restored.error().message;
  EXPECT_EQ(restored->params().chain.steps().size(), 3u);
  EXPECT_EQ(restored->params().dry_sequence_breakers.size(), 1u);
  EXPECT_EQ(Tokens(restored.value(), 10), Tokens(seq, 10));
  std::vector<uint8_t> cut = bytes;
  cut.resize(bytes.size() - 12);
  EXPECT_FALSE(Sequence::restore(cut));
}

uint64_t Fnv1a(std::span<const uint8_t> bytes) {
  uint64_t h = 0xcbf29ce484222325ULL;
  for (const uint8_t b : bytes) h = (h ^ b) * 0x100000001b3ULL;
  return h;
}

// A version 1 snapshot (no chain block, no breakers) still restores.
TEST(Chain, AVersion1SnapshotStillRestores) {
  auto made = Sequence::create(kRow.size(), SamplingParams{}, stream(7, Purpose::sample));
  ASSERT_TRUE(made);
  Sequence seq = std::move(*made);
  ASSERT_TRUE(seq.accept_prompt(kPrompt));
  Tokens(seq, 3);
  std::vector<uint8_t> v2 = seq.snapshot();
  // Version 2 = version 1 with the chain block after the 9 spec fields and
  // a breaker count (0 here) before the checksum.
  constexpr size_t kChainAt = 4 + 4 + 8 + 9 * 8;
  constexpr size_t kChainBlock = (5 + 12 + 2 + kChainSteps + 1 + 4) * 8;
  std::vector<uint8_t> v1(v2.begin(), v2.begin() + kChainAt);
  v1.insert(v1.end(), v2.begin() + kChainAt + kChainBlock, v2.end() - 16);
  v1[4] = 1;
  const uint64_t h = Fnv1a(v1);
  for (int i = 0; i < 8; ++i) v1.push_back(static_cast<uint8_t>(h >> (8 * i)));
  Result<Sequence> restored = Sequence::restore(v1);
  ASSERT_TRUE(restored) << restored.error().message;
  EXPECT_EQ(Tokens(restored.value(), 6), Tokens(seq, 6));
}

}  // namespace
}  // namespace exactsample
