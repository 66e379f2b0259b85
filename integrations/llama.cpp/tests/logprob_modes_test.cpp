// The logprob modes (exactsample_llama_set_logprob) side by side in
// llama.cpp's loop, on the same logits: EVERY_TOKEN, ON_REQUEST and OFF give
// the same tokens and generator at every step; OFF's logprob is NaN, and
// ON_REQUEST's equals EVERY_TOKEN's bit for bit whenever it is asked: at
// once, twice, after the next decode has overwritten llama.cpp's row, after
// a forced token joined the history, or from a clone.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "exactsample_llama.h"
#include "loop_harness.hpp"
#include "tiny_model.hpp"

namespace {

using loop::Bits;

constexpr int kModes[] = {EXACTSAMPLE_LLAMA_LOGPROB_EVERY_TOKEN,
                          EXACTSAMPLE_LLAMA_LOGPROB_ON_REQUEST, EXACTSAMPLE_LLAMA_LOGPROB_OFF};
const std::vector<llama_token> kPrompt = {1, 300, 305, 310, 320, 300, 305, 310, 320, 300, 305};

// How the request reaches exactsample: alone through llama_sampler_sample,
// alone in place (exactsample_llama_sample), or after llama.cpp's top-k in
// a chain (a filtered candidate array).
enum class Path { sample, in_place, after_top_k };

struct Sampler {
  llama_sampler* outer;  // what the loop samples with: exactsample, or the chain
  llama_sampler* es;
};

Sampler Make(uint32_t V, Path path, const exactsample_params& p, const exactsample_extras* extras,
             int mode) {
  llama_sampler* es = exactsample_llama_init(loop::Vocab(V), &p, extras, 31);
  EXPECT_NE(es, nullptr);
  EXPECT_EQ(exactsample_llama_set_logprob(es, mode), EXACTSAMPLE_OK);
  if (path != Path::after_top_k) return {es, es};
  llama_sampler* chain = llama_sampler_chain_init(llama_sampler_chain_default_params());
  llama_sampler_chain_add(chain, llama_sampler_init_top_k(300));
  llama_sampler_chain_add(chain, es);
  return {chain, es};
}

exactsample_rng Rng(const llama_sampler* es) {
  exactsample_rng r{};
  EXPECT_EQ(exactsample_llama_rng(es, &r), EXACTSAMPLE_OK);
  return r;
}

exactsample_token Last(const llama_sampler* es) {
  exactsample_token t{};
  EXPECT_EQ(exactsample_llama_last(es, &t), EXACTSAMPLE_OK);
  EXPECT_EQ(t.status, EXACTSAMPLE_OK);
  return t;
}

// `steps` tokens with the three modes; step s asks ON_REQUEST's logprob as
// s % 5 says: at once and again, after the decode of the token, after a
// forced token, from a clone, or not at all.
void ThreeModes(uint32_t V, Path path, const exactsample_params& p, const exactsample_extras* extras,
         int steps) {
  llama_context* ctx = tiny_model::MakeContext(loop::Model(V), 512);
  int32_t pos = 0;
  const auto feed = [&](llama_token t) {
    ASSERT_TRUE(tiny_model::Decode(ctx, {t}, pos));
    ++pos;
  };
  ASSERT_TRUE(tiny_model::Decode(ctx, kPrompt, pos));
  pos += static_cast<int32_t>(kPrompt.size());
  std::vector<Sampler> s;
  for (int mode : kModes) s.push_back(Make(V, path, p, extras, mode));
  for (const Sampler& x : s) {
    for (llama_token t : kPrompt) llama_sampler_accept(x.outer, t);
  }
  const Sampler& every = s[0];
  const Sampler& lazy = s[1];
  const Sampler& off = s[2];
  for (int step = 0; step < steps; ++step) {
    SCOPED_TRACE("step " + std::to_string(step));
    std::vector<llama_token> tokens;
    for (const Sampler& x : s) {
      tokens.push_back(path == Path::in_place ? exactsample_llama_sample(x.outer, ctx, -1)
                                              : llama_sampler_sample(x.outer, ctx, -1));
    }
    ASSERT_EQ(tokens[1], tokens[0]);
    ASSERT_EQ(tokens[2], tokens[0]);
    for (const Sampler& x : s) {
      const exactsample_rng a = Rng(every.es), b = Rng(x.es);
      ASSERT_EQ(b.state, a.state);
      ASSERT_EQ(b.draws_u32, a.draws_u32);
    }
    const exactsample_token want = Last(every.es);
    ASSERT_EQ(want.id, tokens[0]);
    ASSERT_FALSE(std::isnan(want.logprob));
    const exactsample_token none = Last(off.es);
    EXPECT_EQ(none.id, tokens[0]);
    EXPECT_TRUE(std::isnan(none.logprob));
    const auto expect_want = [&](const llama_sampler* es) {
      const exactsample_token got = Last(es);
      EXPECT_EQ(got.id, want.id);
      EXPECT_EQ(Bits(got.logprob), Bits(want.logprob));
    };
    switch (step % 5) {
      case 0:
        expect_want(lazy.es);
        expect_want(lazy.es);
        feed(tokens[0]);
        break;
      case 1:
        feed(tokens[0]);
        expect_want(lazy.es);
        break;
      case 2: {
        feed(tokens[0]);
        const llama_token forced = 300 + step % 7;
        for (const Sampler& x : s) llama_sampler_accept(x.outer, forced);
        feed(forced);
        expect_want(lazy.es);
        break;
      }
      case 3: {
        llama_sampler* clone = llama_sampler_clone(lazy.es);
        ASSERT_NE(clone, nullptr);
        expect_want(clone);
        llama_sampler_free(clone);
        feed(tokens[0]);
        break;
      }
      default:
        feed(tokens[0]);
    }
    if (::testing::Test::HasFatalFailure()) break;
  }
  for (const Sampler& x : s) llama_sampler_free(x.outer);
  llama_free(ctx);
}

class LogprobModes : public ::testing::TestWithParam<uint32_t> {};

TEST_P(LogprobModes, SameTokensAndLogprobBits) {
  const uint32_t V = GetParam();
  loop::TestExtras te;
  for (Path path : {Path::sample, Path::in_place, Path::after_top_k}) {
    SCOPED_TRACE("path " + std::to_string(static_cast<int>(path)));
    ThreeModes(V, path, loop::Params(0.8, 1.1, 0.0, 0.0, 40, 0.95, 0.05, 64), nullptr, 40);
    ThreeModes(V, path, loop::Params(1.0, 1.0, 0.5, 0.3, 0, 0.9, 0.0, 0), &te.extras, 20);
    // The chain's samplers; mirostat and adaptive-p carry state from token
    // to token, which ON_REQUEST's later request must not see moved.
    exactsample_params chain = loop::Params(0.9, 1.1, 0.0, 0.0, 60, 0.95, 0.02, 32);
    chain.chain_preset = EXACTSAMPLE_CHAIN_LLAMA;
    chain.dry_multiplier = 0.8, chain.typical_p = 0.97, chain.xtc_probability = 0.3;
    ThreeModes(V, path, chain, nullptr, 20);
    exactsample_params mirostat = loop::Params(0.9, 1.0, 0.0, 0.0, 0, 1.0, 0.0, 0);
    mirostat.mirostat = 2, mirostat.mirostat_tau = 1.0, mirostat.mirostat_eta = 2.0;
    ThreeModes(V, path, mirostat, nullptr, 20);
    exactsample_params adaptive = loop::Params(1.0, 1.0, 0.0, 0.0, 0, 1.0, 0.0, 0);
    adaptive.adaptive_target = 0.9, adaptive.adaptive_decay = 0.0;
    ThreeModes(V, path, adaptive, nullptr, 20);
  }
  EXPECT_TRUE(loop::TakeErrors().empty());
}

INSTANTIATE_TEST_SUITE_P(Vocab, LogprobModes, ::testing::Values(512u, 128256u));

}  // namespace
