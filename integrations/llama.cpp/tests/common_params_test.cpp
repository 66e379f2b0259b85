// The sampler from llama.cpp's common parameters and from an existing
// llama.cpp chain (exactsample_llama.h): each samples as exactsample_llama_init
// with the parameters the mapping documents, written here by hand; the DRY
// breaker strings penalise what llama.cpp's own DRY sampler penalises; and
// bad input gives no sampler and names the field and the value.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <initializer_list>
#include <cstdint>
#include <string>
#include <vector>

#include "exactsample_llama.h"
#include "loop_harness.hpp"

namespace {

constexpr uint32_t V = 512;

exactsample_params Defaults() {
  exactsample_params p;
  exactsample_params_init(&p);
  return p;
}

exactsample_llama_common Common() {
  exactsample_llama_common c;
  exactsample_llama_common_init(&c);
  return c;
}

// A row that changes from step to step, as a model's would.
std::vector<llama_token_data> Row(int step) {
  std::vector<llama_token_data> data;
  for (uint32_t i = 0; i < V; ++i) {
    const float l = static_cast<float>(std::sin(0.37 * i + 1.3 * step) * 4.0);
    data.push_back({static_cast<llama_token>(i), l, 0.0f});
  }
  return data;
}

// What a sampler gives over `steps` rows after a prompt: ids, logprob bits,
// kept p's, the generator.
struct Run {
  std::vector<int32_t> ids;
  std::vector<uint64_t> logprobs;
  std::vector<float> probs;
  uint64_t draws = 0;
};

Run Sample(llama_sampler* s, const std::vector<int32_t>& prompt, int steps) {
  Run r;
  for (const int32_t id : prompt) llama_sampler_accept(s, id);
  for (int step = 0; step < steps; ++step) {
    std::vector<llama_token_data> data = Row(step);
    llama_token_data_array cur = {data.data(), data.size(), -1, false};
    llama_sampler_apply(s, &cur);
    EXPECT_GE(cur.selected, 0);
    if (cur.selected < 0) return r;
    const int32_t id = data[cur.selected].id;
    exactsample_token last{};
    EXPECT_EQ(exactsample_llama_last(s, &last), EXACTSAMPLE_OK);
    EXPECT_EQ(last.status, EXACTSAMPLE_OK);
    r.ids.push_back(id);
    r.logprobs.push_back(loop::Bits(last.logprob));
    for (const llama_token_data& d : data) r.probs.push_back(d.p);
    llama_sampler_accept(s, id);
  }
  exactsample_rng rng{};
  EXPECT_EQ(exactsample_llama_rng(s, &rng), EXACTSAMPLE_OK);
  r.draws = rng.draws_u32;
  return r;
}

const std::vector<int32_t> kPrompt = {300, 301, 300, 301, 302, 300};

// `made` (from common or a chain) against exactsample_llama_init(want).
void ExpectSame(llama_sampler* made, const exactsample_params& want) {
  ASSERT_NE(made, nullptr) << (loop::TakeErrors().empty() ? "" : "logged");
  llama_sampler* direct = exactsample_llama_init(loop::Vocab(V), &want, nullptr, 9);
  ASSERT_NE(direct, nullptr);
  const Run a = Sample(made, kPrompt, 16);
  const Run b = Sample(direct, kPrompt, 16);
  EXPECT_EQ(a.ids, b.ids);
  EXPECT_EQ(a.logprobs, b.logprobs);
  EXPECT_EQ(a.probs, b.probs);
  EXPECT_EQ(a.draws, b.draws);
  llama_sampler_free(made);
  llama_sampler_free(direct);
}

TEST(CommonParams, CommonsDefaultsAreTheLlamaPresetWithCommonsValues) {
  const exactsample_llama_common c = Common();
  exactsample_params want = Defaults();
  want.chain_preset = EXACTSAMPLE_CHAIN_LLAMA;
  want.temperature = 0.8f;
  want.top_k = 40;
  want.top_p = 0.95f;
  want.min_p = 0.05f;
  want.penalty_last_n = 64;  // repeat 1, freq 0, present 0: off either way
  ExpectSame(exactsample_llama_init_common(loop::Vocab(V), &c, nullptr, 9), want);
}

TEST(CommonParams, EveryFieldReachesItsStep) {
  exactsample_llama_common c = Common();
  c.temp = 0.7f, c.dynatemp_range = 0.3f, c.dynatemp_exponent = 1.5f;
  c.top_k = 60, c.top_p = 0.9f, c.min_p = 0.02f, c.typ_p = 0.95f, c.min_keep = 2;
  c.penalty_last_n = 16, c.penalty_repeat = 1.1f, c.penalty_freq = 0.2f, c.penalty_present = 0.1f;
  c.xtc_probability = 0.4f, c.xtc_threshold = 0.05f, c.top_n_sigma = 3.0f;
  exactsample_params want = Defaults();
  want.chain_preset = EXACTSAMPLE_CHAIN_LLAMA;
  want.temperature = 0.7f, want.dynatemp_range = 0.3f, want.dynatemp_exponent = 1.5f;
  want.top_k = 60, want.top_p = 0.9f, want.min_p = 0.02f, want.typical_p = 0.95f;
  want.min_keep = 2;
  want.penalty_last_n = 16, want.repetition_penalty = 1.1f, want.frequency_penalty = 0.2f;
  want.presence_penalty = 0.1f;
  want.xtc_probability = 0.4f, want.xtc_threshold = 0.05f, want.top_n_sigma = 3.0f;
  ExpectSame(exactsample_llama_init_common(loop::Vocab(V), &c, nullptr, 9), want);
}

// Another order is a list; a sampler it leaves out is off (llama.cpp skips
// it), whatever its field says; aliases and case as common reads them.
TEST(CommonParams, ASamplersOrderIsAListWithTheRestOff) {
  const char* const samplers[] = {"Top-K", "temp", "nucleus", "adaptive_p"};
  exactsample_llama_common c = Common();
  c.samplers = samplers, c.n_samplers = 4;
  c.penalty_repeat = 1.3f;  // penalties are not listed: off
  c.adaptive_target = 0.4f, c.adaptive_decay = 0.5f;
  const int32_t steps[] = {EXACTSAMPLE_STEP_TOP_K, EXACTSAMPLE_STEP_TEMPERATURE,
                           EXACTSAMPLE_STEP_TOP_P};
  exactsample_params want = Defaults();
  want.chain_preset = EXACTSAMPLE_CHAIN_LIST, want.chain_steps = steps, want.chain_len = 3;
  want.temperature = 0.8f, want.top_k = 40, want.top_p = 0.95f;
  want.adaptive_target = 0.4f, want.adaptive_decay = 0.5f;
  ExpectSame(exactsample_llama_init_common(loop::Vocab(V), &c, nullptr, 9), want);
}

// Mirostat: common runs temp and mirostat alone, so llama-server's filter
// defaults are off rather than refused.
TEST(CommonParams, MirostatRunsTheTemperatureAlone) {
  exactsample_llama_common c = Common();
  c.mirostat = 2, c.mirostat_tau = 4.0f, c.mirostat_eta = 0.2f, c.penalty_repeat = 1.2f;
  c.dynatemp_range = 0.5f;  // common's mirostat chain has the plain temp
  const int32_t steps[] = {EXACTSAMPLE_STEP_TEMPERATURE};
  exactsample_params want = Defaults();
  want.chain_preset = EXACTSAMPLE_CHAIN_LIST, want.chain_steps = steps, want.chain_len = 1;
  want.temperature = 0.8f, want.mirostat = 2, want.mirostat_tau = 4.0f, want.mirostat_eta = 0.2f;
  ExpectSame(exactsample_llama_init_common(loop::Vocab(V), &c, nullptr, 9), want);
}

// The ids DRY penalises on a row of equal logits: those whose probability
// fell (the others only share the new normaliser).
std::vector<int32_t> Penalised(const std::vector<llama_token_data>& before,
                               const std::vector<llama_token_data>& after, bool by_logit) {
  std::vector<int32_t> ids;
  float top = 0;
  for (const llama_token_data& d : after) top = std::max(top, d.p);
  for (size_t j = 0; j < after.size(); ++j) {
    const bool fell = by_logit ? after[j].logit < before[j].logit : after[j].p < 0.9f * top;
    if (fell) ids.push_back(after[j].id);
  }
  return ids;
}

// The token whose text (as DRY reads it) is `text`, or -1.
llama_token TokenOf(const llama_vocab* vocab, const std::string& text) {
  for (llama_token t = 0; t < llama_vocab_n_tokens(vocab); ++t) {
    char buf[64];
    const int32_t n = llama_detokenize(vocab, &t, 1, buf, sizeof buf, false, true);
    if (n >= 0 && std::string(buf, static_cast<size_t>(n)) == text) return t;
  }
  return -1;
}

// The breaker strings, turned into ids with the vocabulary, penalise what
// llama.cpp's DRY sampler made from the same strings penalises, over
// histories that cross the breakers: the byte token "\n", and "ab", whose
// head tokens end in "a" and whose tails are the tokenization of "b".
TEST(CommonParams, BreakerStringsActAsLlamasDry) {
  const llama_vocab* vocab = loop::Vocab(V);
  const char* breakers[] = {"\n", "ab"};  // llama_sampler_init_dry takes const char**
  const char* const samplers[] = {"dry"};
  exactsample_llama_common c = Common();
  c.samplers = samplers, c.n_samplers = 1;
  c.dry_multiplier = 2.0f, c.dry_base = 1.75f, c.dry_allowed_length = 1;
  c.dry_penalty_last_n = 40;
  c.dry_sequence_breakers = breakers, c.n_dry_sequence_breakers = 2;
  // Tokens: the byte token of '\n' (3 + 10), words of the tiny vocabulary,
  // and the tokenization of "b".
  std::vector<llama_token> alphabet = {13};
  for (const std::string w : {"a", "b", "ab", "ba", "c", "d"}) {
    alphabet.push_back(TokenOf(vocab, w));
    ASSERT_GE(alphabet.back(), 0) << w;
  }
  // The tail of "ab" after a head ending in "a": "b" as llama.cpp tokenizes it.
  llama_token tail[4];
  ASSERT_EQ(llama_tokenize(vocab, "b", 1, tail, 4, false, false), 1);
  alphabet.push_back(tail[0]);
  uint64_t seed = 77;
  int differing_from_no_breakers = 0;
  for (int trial = 0; trial < 60; ++trial) {
    std::vector<int32_t> history;
    for (int j = 0; j < 24; ++j) {
      seed = seed * 6364136223846793005ull + 1442695040888963407ull;
      history.push_back(alphabet[(seed >> 33) % alphabet.size()]);
    }
    std::vector<llama_token_data> flat;
    for (uint32_t i = 0; i < V; ++i) flat.push_back({static_cast<llama_token>(i), 0.0f, 0.0f});

    llama_sampler* theirs = llama_sampler_init_dry(vocab, c.dry_multiplier, c.dry_base,
                                                   c.dry_allowed_length, c.dry_penalty_last_n,
                                                   breakers, 2);
    for (const int32_t id : history) llama_sampler_accept(theirs, id);
    std::vector<llama_token_data> their_row = flat;
    llama_token_data_array cur = {their_row.data(), their_row.size(), -1, false};
    llama_sampler_apply(theirs, &cur);
    llama_sampler_free(theirs);

    const auto ours_with = [&](size_t n_breakers) {
      exactsample_llama_common d = c;
      d.n_dry_sequence_breakers = n_breakers;
      llama_sampler* ours = exactsample_llama_init_common(vocab, &d, nullptr, 1);
      EXPECT_NE(ours, nullptr);
      for (const int32_t id : history) llama_sampler_accept(ours, id);
      std::vector<llama_token_data> row = flat;
      llama_token_data_array a = {row.data(), row.size(), -1, false};
      llama_sampler_apply(ours, &a);
      llama_sampler_free(ours);
      return Penalised(flat, row, false);
    };
    const std::vector<int32_t> ours = ours_with(2);
    EXPECT_EQ(ours, Penalised(flat, their_row, true)) << "trial " << trial;
    if (ours != ours_with(0)) ++differing_from_no_breakers;
  }
  // The breakers mattered in some trials, or the check above shows nothing.
  EXPECT_GT(differing_from_no_breakers, 5);
}

// The logprobs of `steps` tokens, each asked after its accept (when the
// state has moved).
std::vector<uint64_t> LogprobsAfterAccept(llama_sampler* s, int steps) {
  std::vector<uint64_t> out;
  for (int step = 0; step < steps; ++step) {
    std::vector<llama_token_data> data = Row(step);
    llama_token_data_array cur = {data.data(), data.size(), -1, false};
    llama_sampler_apply(s, &cur);
    llama_sampler_accept(s, data[cur.selected].id);
    exactsample_token last{};
    EXPECT_EQ(exactsample_llama_last(s, &last), EXACTSAMPLE_OK);
    out.push_back(loop::Bits(last.logprob));
  }
  return out;
}

// Mirostat's state moves with each token: ON_REQUEST computes the logprob
// with the token, for a sampler made with it and for one restored.
TEST(CommonParams, OnRequestWithStateComputesTheLogprobWithTheToken) {
  exactsample_params p = Defaults();
  p.mirostat = 2, p.mirostat_tau = 1.0, p.mirostat_eta = 2.0;
  llama_sampler* made = exactsample_llama_init(loop::Vocab(V), &p, nullptr, 5);
  ASSERT_NE(made, nullptr);
  Sample(made, kPrompt, 3);
  size_t size = 0;
  ASSERT_EQ(exactsample_llama_snapshot(made, nullptr, 0, &size), EXACTSAMPLE_OK);
  std::vector<unsigned char> bytes(size);
  ASSERT_EQ(exactsample_llama_snapshot(made, bytes.data(), size, &size), EXACTSAMPLE_OK);
  llama_sampler* every = llama_sampler_clone(made);
  llama_sampler* restored = exactsample_llama_init_from_snapshot(loop::Vocab(V), bytes.data(), size);
  ASSERT_NE(restored, nullptr);
  ASSERT_EQ(exactsample_llama_set_logprob(made, EXACTSAMPLE_LLAMA_LOGPROB_ON_REQUEST), EXACTSAMPLE_OK);
  ASSERT_EQ(exactsample_llama_set_logprob(restored, EXACTSAMPLE_LLAMA_LOGPROB_ON_REQUEST),
            EXACTSAMPLE_OK);
  const std::vector<uint64_t> want = LogprobsAfterAccept(every, 12);
  EXPECT_EQ(LogprobsAfterAccept(made, 12), want);
  EXPECT_EQ(LogprobsAfterAccept(restored, 12), want);
  for (llama_sampler* s : {made, every, restored}) llama_sampler_free(s);
}

llama_sampler* Chain(std::initializer_list<llama_sampler*> samplers) {
  llama_sampler* chain = llama_sampler_chain_init(llama_sampler_chain_default_params());
  for (llama_sampler* s : samplers) llama_sampler_chain_add(chain, s);
  return chain;
}

// A chain's order, its parameters from the struct: placeholders ("?top-k")
// off, "temp" plain, "temp-ext" with the dynamic temperature.
TEST(FromChain, TheChainsOrderWithTheStructsValues) {
  exactsample_llama_common c = Common();
  c.temp = 0.9f, c.top_k = 0, c.top_p = 0.8f, c.penalty_repeat = 1.2f, c.penalty_last_n = 8;
  c.dynatemp_range = 0.4f;
  llama_sampler* chain = Chain({llama_sampler_init_penalties(V, 8, 1.2f, 0.0f, 0.0f),
                                llama_sampler_init_top_k(0),  // "?top-k"
                                llama_sampler_init_temp_ext(0.9f, 0.4f, 1.0f),
                                llama_sampler_init_top_p(0.8f, 1), llama_sampler_init_dist(3)});
  const int32_t steps[] = {EXACTSAMPLE_STEP_PENALTIES, EXACTSAMPLE_STEP_TEMPERATURE,
                           EXACTSAMPLE_STEP_TOP_P};
  exactsample_params want = Defaults();
  want.chain_preset = EXACTSAMPLE_CHAIN_LIST, want.chain_steps = steps, want.chain_len = 3;
  want.repetition_penalty = 1.2f, want.penalty_last_n = 8;
  want.temperature = 0.9f, want.dynatemp_range = 0.4f, want.top_p = 0.8f;
  ExpectSame(exactsample_llama_init_from_chain(loop::Vocab(V), chain, &c, nullptr, 9), want);
  EXPECT_EQ(llama_sampler_chain_n(chain), 5);  // not changed
  llama_sampler_free(chain);

  chain = Chain({llama_sampler_init_temp(0.9f), llama_sampler_init_mirostat_v2(3, 4.0f, 0.2f)});
  c.mirostat_tau = 4.0f, c.mirostat_eta = 0.2f;
  const int32_t temp_only[] = {EXACTSAMPLE_STEP_TEMPERATURE};
  want = Defaults();
  want.chain_preset = EXACTSAMPLE_CHAIN_LIST, want.chain_steps = temp_only, want.chain_len = 1;
  want.temperature = 0.9f, want.mirostat = 2, want.mirostat_tau = 4.0f, want.mirostat_eta = 0.2f;
  ExpectSame(exactsample_llama_init_from_chain(loop::Vocab(V), chain, &c, nullptr, 9), want);
  llama_sampler_free(chain);
}

// The one message logged contains `words`.
void ExpectRefused(llama_sampler* made, const std::vector<std::string>& words) {
  EXPECT_EQ(made, nullptr);
  if (made != nullptr) llama_sampler_free(made);
  const std::vector<std::string> errors = loop::TakeErrors();
  ASSERT_EQ(errors.size(), 1u);
  for (const std::string& w : words) EXPECT_NE(errors[0].find(w), std::string::npos) << errors[0];
}

TEST(CommonParams, BadInputMakesNoSamplerAndSaysWhy) {
  const llama_vocab* vocab = loop::Vocab(V);
  loop::TakeErrors();
  ExpectRefused(exactsample_llama_init_common(nullptr, nullptr, nullptr, 1), {"vocab is NULL"});
  ExpectRefused(exactsample_llama_init_common(vocab, nullptr, nullptr, 1), {"common is NULL"});
  exactsample_llama_common c = Common();
  c.struct_size = 8;
  ExpectRefused(exactsample_llama_init_common(vocab, &c, nullptr, 1),
                {"exactsample_llama_common.struct_size = 8, expected"});
  const char* const unknown[] = {"top_k", "topk2"};
  c = Common();
  c.samplers = unknown, c.n_samplers = 2;
  ExpectRefused(exactsample_llama_init_common(vocab, &c, nullptr, 1),
                {"samplers[1] = 'topk2': not one of common's samplers"});
  const char* const infill[] = {"infill"};
  c.samplers = infill, c.n_samplers = 1;
  ExpectRefused(exactsample_llama_init_common(vocab, &c, nullptr, 1),
                {"samplers[0] = 'infill'", "in front"});
  const char* const twice[] = {"top_k", "top-k"};
  c.samplers = twice, c.n_samplers = 2;
  ExpectRefused(exactsample_llama_init_common(vocab, &c, nullptr, 1),
                {"chain[1] = 'top_k': listed twice"});
  c = Common();
  c.samplers = nullptr;
  ExpectRefused(exactsample_llama_init_common(vocab, &c, nullptr, 1),
                {"samplers is NULL with n_samplers = 9"});
  const char* const empty_breaker[] = {"\n", ""};
  c = Common();
  c.dry_multiplier = 0.8f;
  c.dry_sequence_breakers = empty_breaker, c.n_dry_sequence_breakers = 2;
  ExpectRefused(exactsample_llama_init_common(vocab, &c, nullptr, 1),
                {"dry_sequence_breakers[1] = \"\": empty"});
  const char* const null_breaker[] = {nullptr};
  c.dry_sequence_breakers = null_breaker, c.n_dry_sequence_breakers = 1;
  ExpectRefused(exactsample_llama_init_common(vocab, &c, nullptr, 1),
                {"dry_sequence_breakers[0] is NULL"});
  c = Common();
  c.typ_p = std::nanf("");
  ExpectRefused(exactsample_llama_init_common(vocab, &c, nullptr, 1),
                {"typical_p = nan: must be >= 0 (1 or more: off)"});
  c = Common();
  c.mirostat = 3;
  ExpectRefused(exactsample_llama_init_common(vocab, &c, nullptr, 1),
                {"mirostat = 3: must be 0, 1 or 2"});
}

TEST(FromChain, BadChainsMakeNoSamplerAndSayWhy) {
  const llama_vocab* vocab = loop::Vocab(V);
  const exactsample_llama_common c = Common();
  loop::TakeErrors();
  ExpectRefused(exactsample_llama_init_from_chain(vocab, nullptr, &c, nullptr, 1),
                {"chain is NULL"});
  llama_sampler* dist = llama_sampler_init_dist(1);
  ExpectRefused(exactsample_llama_init_from_chain(vocab, dist, &c, nullptr, 1),
                {"chain is 'dist', not a llama_sampler_chain"});
  llama_sampler_free(dist);
  const llama_logit_bias bias = {5, 1.0f};
  const struct {
    std::vector<llama_sampler*> samplers;
    std::vector<std::string> words;
  } cases[] = {
      {{llama_sampler_init_logit_bias(V, 1, &bias), llama_sampler_init_dist(1)},
       {"chain[0] = 'logit-bias'", "extras"}},
      {{llama_sampler_init_infill(vocab), llama_sampler_init_dist(1)},
       {"chain[0] = 'infill'", "in front"}},
      {{llama_sampler_init_greedy()}, {"chain[0] = 'greedy': not a sampler exactsample runs"}},
      {{llama_sampler_init_top_k(5)}, {"no terminal"}},
      {{llama_sampler_init_dist(1), llama_sampler_init_top_k(5)},
       {"chain[1] = 'top-k': after the chain's terminal"}},
      {{llama_sampler_init_top_k(5), llama_sampler_init_top_k(6), llama_sampler_init_dist(1)},
       {"chain[1] = 'top_k': listed twice"}},
  };
  for (const auto& k : cases) {
    llama_sampler* chain = llama_sampler_chain_init(llama_sampler_chain_default_params());
    for (llama_sampler* s : k.samplers) llama_sampler_chain_add(chain, s);
    ExpectRefused(exactsample_llama_init_from_chain(vocab, chain, &c, nullptr, 1), k.words);
    EXPECT_EQ(llama_sampler_chain_n(chain), static_cast<int>(k.samplers.size()));
    llama_sampler_free(chain);
  }
}

}  // namespace
