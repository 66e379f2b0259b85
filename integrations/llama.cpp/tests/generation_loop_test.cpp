// exactsample inside llama.cpp's own generation loop (llama_decode,
// llama_get_logits_ith, llama_sampler_sample) on random-weight models at
// V = 512 and V = 128256: every token and logprob equals exactsample called
// directly with the same row and history, bit for bit; a request handed to
// another context, a clone and a reset continue as the original; chains with
// llama.cpp's grammar, DRY and top-k samplers before exactsample give the
// spec's result over the candidates those leave.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "exactsample_llama.h"
#include "loop_harness.hpp"
#include "ten_lines.h"
#include "tiny_model.hpp"

namespace {

using loop::Bits;

constexpr uint32_t kSmallV = 512;
constexpr uint32_t kLlama3V = 128256;
// Repeats, so that the penalties and DRY have something to act on.
const std::vector<llama_token> kPrompt = {1, 300, 305, 310, 320, 300, 305, 310, 320, 300, 305};

struct Config {
  std::string name;
  exactsample_params params;
  bool with_extras;
};

// llama.cpp's common settings (penalties over the last 64 tokens, top-k 40,
// top-p 0.95, min-p 0.05, T 0.8), nucleus alone over the whole history with
// presence and frequency, greedy, and a bias and ban with min-p.
std::vector<Config> Configs() {
  return {{"common", loop::Params(0.8, 1.1, 0.0, 0.0, 40, 0.95, 0.05, 64), false},
          {"nucleus", loop::Params(1.0, 1.0, 0.5, 0.3, 0, 0.9, 0.0, 0), false},
          {"greedy", loop::Params(0.0, 1.3, 0.0, 0.0, 0, 1.0, 0.0, 16), false},
          {"biased", loop::Params(1.2, 1.05, 0.2, 0.1, 0, 1.0, 0.1, 32), true}};
}

struct Tokens {
  std::vector<llama_token> tokens;
  std::vector<uint64_t> logprobs;
  bool operator==(const Tokens& o) const { return tokens == o.tokens && logprobs == o.logprobs; }
};

// One request in one context: its decode position and its checks.
struct Loop {
  llama_context* ctx;
  uint32_t vocab;
  int32_t pos = 0;
  // exactsample_llama_sample (the row read in place) instead of llama_sampler_sample.
  bool in_place = false;

  // A context with the prompt decoded, and accepted by `prompt_to` (the
  // sampler or chain of the request) unless null.
  explicit Loop(uint32_t n_vocab, llama_sampler* prompt_to = nullptr)
      : ctx(tiny_model::MakeContext(loop::Model(n_vocab), 512)), vocab(n_vocab) {
    if (prompt_to != nullptr) {
      for (llama_token t : kPrompt) llama_sampler_accept(prompt_to, t);
    }
    Feed(kPrompt);
  }
  ~Loop() { llama_free(ctx); }
  Loop(const Loop&) = delete;
  Loop& operator=(const Loop&) = delete;

  void Feed(const std::vector<llama_token>& tokens) {
    ASSERT_TRUE(tiny_model::Decode(ctx, tokens, pos));
    pos += static_cast<int32_t>(tokens.size());
  }

  // `steps` tokens from llama_sampler_sample(smpl) (the sampler or a chain
  // ending in `es`), each checked against `direct` on the row exactsample was
  // given (the recorder's, when a chain filters before it). The first
  // `dump_steps` steps are dumped as `dump_name`. Stops after an end token.
  void Steps(llama_sampler* smpl, llama_sampler* es, const loop::Recorder* recorder,
             loop::Direct& direct, int steps, Tokens* out, const std::string& dump_name = "",
             int dump_steps = 0, const exactsample_params* params = nullptr,
             const exactsample_extras* extras = nullptr, const std::vector<int32_t>& prompt = {}) {
    for (int s = 0; s < steps; ++s) {
      const float* logits = llama_get_logits_ith(ctx, -1);
      std::vector<float> row(logits, logits + vocab);
      const exactsample_rng before = direct.rng();
      const std::vector<int32_t> generated = direct.generated();
      const llama_token token = in_place ? exactsample_llama_sample(smpl, ctx, -1)
                                         : llama_sampler_sample(smpl, ctx, -1);
      if (recorder != nullptr) row = recorder->Row(vocab);
      exactsample_token last{};
      ASSERT_EQ(exactsample_llama_last(es, &last), EXACTSAMPLE_OK);
      ASSERT_EQ(last.status, EXACTSAMPLE_OK) << "step " << s;
      const exactsample_token want = direct.Next(row);
      ASSERT_EQ(token, want.id) << "step " << s;
      ASSERT_EQ(last.id, want.id) << "step " << s;
      ASSERT_EQ(Bits(last.logprob), Bits(want.logprob)) << "step " << s;
      exactsample_rng now{};
      ASSERT_EQ(exactsample_llama_rng(es, &now), EXACTSAMPLE_OK);
      ASSERT_EQ(now.state, direct.rng().state);
      ASSERT_EQ(now.inc, direct.rng().inc);
      ASSERT_EQ(now.draws_u32, direct.rng().draws_u32);
      if (s < dump_steps) {
        loop::Dump(dump_name, row, prompt, generated, *params, extras, before, want);
      }
      out->tokens.push_back(token);
      out->logprobs.push_back(Bits(last.logprob));
      if (llama_vocab_is_eog(loop::Vocab(vocab), token)) return;
      Feed({token});
    }
  }

  // `steps` tokens from llama_sampler_sample(smpl), unchecked, for runs
  // compared with a checked one.
  Tokens Sample(llama_sampler* smpl, llama_sampler* es, int steps) {
    Tokens run;
    for (int s = 0; s < steps; ++s) {
      const llama_token token = llama_sampler_sample(smpl, ctx, -1);
      exactsample_token last{};
      EXPECT_EQ(exactsample_llama_last(es, &last), EXACTSAMPLE_OK);
      run.tokens.push_back(token);
      run.logprobs.push_back(Bits(last.logprob));
      Feed({token});
    }
    return run;
  }
};

void ExpectSameGenerator(const llama_sampler* a, const llama_sampler* b) {
  exactsample_rng ra{}, rb{};
  ASSERT_EQ(exactsample_llama_rng(a, &ra), EXACTSAMPLE_OK);
  ASSERT_EQ(exactsample_llama_rng(b, &rb), EXACTSAMPLE_OK);
  EXPECT_EQ(ra.state, rb.state);
  EXPECT_EQ(ra.inc, rb.inc);
  EXPECT_EQ(ra.draws_u32, rb.draws_u32);
}

class EveryToken : public ::testing::TestWithParam<uint32_t> {};

TEST_P(EveryToken, EqualsTheDirectCall) {
  const uint32_t V = GetParam();
  loop::TestExtras te;
  for (const Config& c : Configs()) {
    for (uint64_t seed : {1u, 2u, 77u}) {
      SCOPED_TRACE(c.name + " seed " + std::to_string(seed));
      const exactsample_extras* extras = c.with_extras ? &te.extras : nullptr;
      llama_sampler* es = exactsample_llama_init(loop::Vocab(V), &c.params, extras, seed);
      ASSERT_NE(es, nullptr);
      Loop l(V, es);
      l.in_place = seed == 2;
      loop::Direct direct(c.params, extras, seed, kPrompt);
      Tokens run;
      const int dumps = seed == 1 ? (V == kSmallV ? 6 : 2) : 0;
      l.Steps(es, es, nullptr, direct, 24, &run, c.name + "_" + std::to_string(V), dumps,
              &c.params, extras, kPrompt);
      EXPECT_EQ(run.tokens.size(), 24u);
      llama_sampler_free(es);
    }
  }
  EXPECT_TRUE(loop::TakeErrors().empty());
}

INSTANTIATE_TEST_SUITE_P(Vocab, EveryToken, ::testing::Values(kSmallV, kLlama3V));

// A sampler made from the first's snapshot continues in a second context
// (fed the same batches, so its logits are the same bits) as the first
// continues in its own, checked against the direct call.
TEST(LlamaLoop, HandOffToAnotherContextContinues) {
  for (uint32_t V : {kSmallV, kLlama3V}) {
    SCOPED_TRACE(V);
    const Config c = Configs()[0];
    llama_sampler* es = exactsample_llama_init(loop::Vocab(V), &c.params, nullptr, 5);
    ASSERT_NE(es, nullptr);
    Loop a(V, es);
    loop::Direct direct(c.params, nullptr, 5, kPrompt);
    Tokens first;
    a.Steps(es, es, nullptr, direct, 10, &first);
    size_t size = 0;
    ASSERT_EQ(exactsample_llama_snapshot(es, nullptr, 0, &size), EXACTSAMPLE_OK);
    std::vector<unsigned char> bytes(size);
    ASSERT_EQ(exactsample_llama_snapshot(es, bytes.data(), bytes.size(), &size), EXACTSAMPLE_OK);

    Loop b(V);
    for (llama_token t : first.tokens) b.Feed({t});
    llama_sampler* handed = exactsample_llama_init_from_snapshot(loop::Vocab(V), bytes.data(), size);
    ASSERT_NE(handed, nullptr);
    ExpectSameGenerator(es, handed);
    Tokens rest_a;
    a.Steps(es, es, nullptr, direct, 12, &rest_a);
    EXPECT_EQ(b.Sample(handed, handed, 12), rest_a);
    ExpectSameGenerator(es, handed);
    llama_sampler_free(handed);
    llama_sampler_free(es);
  }
}

// A clone (alone, and inside a cloned chain) continues as the original on
// the same logits.
TEST(LlamaLoop, CloneContinues) {
  const uint32_t V = kSmallV;
  const Config c = Configs()[1];
  llama_sampler* chain = llama_sampler_chain_init(llama_sampler_chain_default_params());
  llama_sampler_chain_add(chain, exactsample_llama_init(loop::Vocab(V), &c.params, nullptr, 9));
  llama_sampler* es = llama_sampler_chain_get(chain, 0);
  ASSERT_NE(es, nullptr);
  Loop l(V, chain);
  loop::Direct direct(c.params, nullptr, 9, kPrompt);
  Tokens first;
  l.Steps(chain, es, nullptr, direct, 8, &first);
  llama_sampler* alone = llama_sampler_clone(es);
  llama_sampler* chain_copy = llama_sampler_clone(chain);
  ASSERT_NE(alone, nullptr);
  ASSERT_NE(chain_copy, nullptr);
  llama_sampler* es_copy = llama_sampler_chain_get(chain_copy, 0);
  EXPECT_STREQ(llama_sampler_name(alone), "exactsample");
  ExpectSameGenerator(es, alone);
  for (int s = 0; s < 16; ++s) {
    const llama_token t_alone = llama_sampler_sample(alone, l.ctx, -1);
    // A chain goes to llama_sampler_sample.
    const llama_token t_copy = exactsample_llama_sample(chain_copy, l.ctx, -1);
    Tokens one;
    l.Steps(chain, es, nullptr, direct, 1, &one);  // checked, and feeds the token
    ASSERT_EQ(t_alone, one.tokens[0]) << "step " << s;
    ASSERT_EQ(t_copy, one.tokens[0]) << "step " << s;
    exactsample_token a{}, b{};
    ASSERT_EQ(exactsample_llama_last(alone, &a), EXACTSAMPLE_OK);
    ASSERT_EQ(exactsample_llama_last(es_copy, &b), EXACTSAMPLE_OK);
    ASSERT_EQ(Bits(a.logprob), one.logprobs[0]);
    ASSERT_EQ(Bits(b.logprob), one.logprobs[0]);
  }
  ExpectSameGenerator(es, alone);
  ExpectSameGenerator(es, es_copy);
  llama_sampler_free(alone);
  llama_sampler_free(chain_copy);
  llama_sampler_free(chain);
}

// reset restarts the request: the prompt accepted again, the same tokens.
TEST(LlamaLoop, ResetRestartsTheRequest) {
  const uint32_t V = kSmallV;
  const Config c = Configs()[0];
  llama_sampler* es = exactsample_llama_init(loop::Vocab(V), &c.params, nullptr, 3);
  ASSERT_NE(es, nullptr);
  Tokens runs[2];
  for (Tokens& run : runs) {
    llama_sampler_reset(es);
    EXPECT_EQ(exactsample_llama_last(es, nullptr), EXACTSAMPLE_INVALID_ARGUMENT);
    Loop l(V, es);
    loop::Direct direct(c.params, nullptr, 3, kPrompt);
    l.Steps(es, es, nullptr, direct, 12, &run);
  }
  EXPECT_EQ(runs[0], runs[1]);
  llama_sampler_free(es);
}

// A chain `before` -> recorder -> exactsample: every token is the spec's
// over the row the recorder saw (every id outside its array at -inf).
// Returns how many steps that row differed from the model's logits, so that
// each test can require that the sampler before exactsample acted.
int ChainSteps(uint32_t V, llama_sampler* before, bool prompt_to_chain, const Config& c,
               uint64_t seed, const std::string& dump_name, int steps) {
  llama_sampler* chain = llama_sampler_chain_init(llama_sampler_chain_default_params());
  llama_sampler_chain_add(chain, before);
  loop::Recorder* recorder = loop::NewRecorder();
  llama_sampler_chain_add(chain, recorder->sampler);
  llama_sampler_chain_add(chain, exactsample_llama_init(loop::Vocab(V), &c.params, nullptr, seed));
  llama_sampler* es = llama_sampler_chain_get(chain, 2);
  // A grammar reads only generated text: the prompt goes to exactsample alone.
  Loop l(V, prompt_to_chain ? chain : es);
  loop::Direct direct(c.params, nullptr, seed, kPrompt);
  int acted = 0;
  for (int s = 0; s < steps; ++s) {
    const float* logits = llama_get_logits_ith(l.ctx, -1);
    const std::vector<float> model_row(logits, logits + V);
    Tokens one;
    l.Steps(chain, es, recorder, direct, 1, &one, dump_name, s < 3 ? 1 : 0, &c.params, nullptr,
            kPrompt);
    if (::testing::Test::HasFatalFailure() || one.tokens.empty()) break;
    acted += recorder->Row(V) != model_row;
    if (llama_vocab_is_eog(loop::Vocab(V), one.tokens[0])) break;
  }
  llama_sampler_free(chain);
  return acted;
}

TEST(LlamaLoop, GrammarBeforeExactsample) {
  for (uint32_t V : {kSmallV, kLlama3V}) {
    SCOPED_TRACE(V);
    llama_sampler* grammar =
        llama_sampler_init_grammar(loop::Vocab(V), "root ::= [a-e]+ \" \" [f-h]+", "root");
    ASSERT_NE(grammar, nullptr);
    EXPECT_GT(ChainSteps(V, grammar, false, Configs()[0], 11, "grammar_" + std::to_string(V), 16), 0);
  }
}

TEST(LlamaLoop, DryBeforeExactsample) {
  for (uint32_t V : {kSmallV, kLlama3V}) {
    SCOPED_TRACE(V);
    llama_sampler* dry = llama_sampler_init_dry(loop::Vocab(V), 0.8f, 1.75f, 2, 64, nullptr, 0);
    ASSERT_NE(dry, nullptr);
    EXPECT_GT(ChainSteps(V, dry, true, Configs()[1], 12, "dry_" + std::to_string(V), 16), 0);
  }
}

// llama.cpp's top-k leaves a shorter array sorted by logit: the candidates path.
TEST(LlamaLoop, TopKBeforeExactsample) {
  for (uint32_t V : {kSmallV, kLlama3V}) {
    SCOPED_TRACE(V);
    EXPECT_GT(ChainSteps(V, llama_sampler_init_top_k(300), true, Configs()[1], 13,
                         "topk_" + std::to_string(V), 12),
              0);
  }
}

// apply on an array of one's own: `selected` is the token's index and p the
// kept set's probabilities (0 elsewhere), in id order and shuffled alike.
TEST(LlamaLoop, ApplySetsSelectedAndProbabilities) {
  const uint32_t V = kSmallV;
  const Config c = Configs()[1];
  Loop l(V);
  const float* logits = llama_get_logits_ith(l.ctx, -1);
  const std::vector<float> row(logits, logits + V);
  for (bool shuffled : {false, true}) {
    SCOPED_TRACE(shuffled);
    llama_sampler* es = exactsample_llama_init(loop::Vocab(V), &c.params, nullptr, 21);
    ASSERT_NE(es, nullptr);
    for (llama_token t : kPrompt) llama_sampler_accept(es, t);
    std::vector<llama_token_data> data;
    for (uint32_t i = 0; i < V; ++i) data.push_back({static_cast<llama_token>(i), row[i], 0.5f});
    if (shuffled) std::reverse(data.begin(), data.end());
    llama_token_data_array cur = {data.data(), data.size(), -1, false};
    llama_sampler_apply(es, &cur);
    loop::Direct direct(c.params, nullptr, 21, kPrompt);
    std::vector<int32_t> kept_ids;
    std::vector<double> kept_probs;
    const exactsample_token want = direct.Next(row, &kept_ids, &kept_probs);
    ASSERT_GE(cur.selected, 0);
    EXPECT_EQ(data[cur.selected].id, want.id);
    ASSERT_GT(kept_ids.size(), 1u);
    std::vector<float> p(V, 0.0f);
    for (size_t k = 0; k < kept_ids.size(); ++k) p[kept_ids[k]] = static_cast<float>(kept_probs[k]);
    for (const llama_token_data& d : data) ASSERT_EQ(d.p, p[d.id]) << "id " << d.id;
    llama_sampler_free(es);
  }
}

// A function of ten_lines.c: the page's lines as written.
using Lines = llama_token (*)(const llama_model*, llama_context*, const llama_token*, int,
                              uint64_t, double*, llama_sampler**);

// `lines` sample the token and logprob the direct call gives with `params`.
void ExpectLinesAreTheDirectCall(Lines lines, const exactsample_params& params) {
  const uint32_t V = kLlama3V;
  Loop l(V);
  const float* logits = llama_get_logits_ith(l.ctx, -1);
  const std::vector<float> row(logits, logits + V);
  double logprob = 0.0;
  llama_sampler* smpl = nullptr;
  const llama_token id = lines(loop::Model(V), l.ctx, kPrompt.data(),
                               static_cast<int>(kPrompt.size()), 42, &logprob, &smpl);
  ASSERT_NE(smpl, nullptr);
  loop::Direct direct(params, nullptr, 42, kPrompt);
  const exactsample_token want = direct.Next(row);
  EXPECT_EQ(id, want.id);
  EXPECT_EQ(Bits(logprob), Bits(want.logprob));
  llama_sampler_free(smpl);
}

// docs/llama-cpp.md's ten lines (ten_lines.c, C99): the direct call's token
// and logprob with the same parameters.
TEST(LlamaLoop, TheDocumentedTenLines) {
  ExpectLinesAreTheDirectCall(ten_lines, loop::Params(0.8, 1.1, 0.0, 0.0, 40, 0.95, 0.05, 64));
}

// The page's lines for a llama-server user's order (server_lines): the llama
// preset with common's values, written here as the mapping documents them.
TEST(LlamaLoop, TheDocumentedServerLines) {
  exactsample_params p = loop::Params(0.7f, 1.1f, 0.0, 0.0, 40, 0.95f, 0.05f, 64);
  p.chain_preset = EXACTSAMPLE_CHAIN_LLAMA;
  p.xtc_probability = 0.5f;
  p.xtc_threshold = 0.1f;
  ExpectLinesAreTheDirectCall(server_lines, p);
}

}  // namespace
