// The llama.cpp side: the configuration as a chain of libllama's samplers,
// built as llama.cpp's common/sampling.cpp builds it.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>

#include "side_by_side.hpp"

namespace side_by_side {
namespace {

bool PenaltiesOn(const Config& c) {
  return c.repeat != 1.0f || c.frequency != 0.0f || c.presence != 0.0f;
}

void Add(llama_sampler* chain, llama_sampler* s) {
  if (s == nullptr) {
    std::fprintf(stderr, "side_by_side: libllama refused a sampler\n");
    std::abort();
  }
  llama_sampler_chain_add(chain, s);
}

// The chain, and the history accepted into it. `draw`: end it with `dist`;
// mirostat and adaptive-p, which common puts in dist's place, draw in any
// case.
llama_sampler* Chain(const Config& c, const std::vector<int32_t>& history, const llama_vocab* vocab,
                     uint32_t seed, bool draw) {
  llama_sampler* chain = llama_sampler_chain_init(llama_sampler_chain_default_params());
  const bool all = c.common;
  if (c.mirostat != 0) {
    // common: logit_bias, temp, mirostat and nothing else.
    Add(chain, llama_sampler_init_temp(c.temp));
    if (c.mirostat == 1) {
      const int32_t n_vocab = llama_vocab_n_tokens(vocab);
      Add(chain, llama_sampler_init_mirostat(n_vocab, seed, c.tau, c.eta, 100));
    } else {
      Add(chain, llama_sampler_init_mirostat_v2(seed, c.tau, c.eta));
    }
  } else {
    if (all || PenaltiesOn(c)) {
      Add(chain, llama_sampler_init_penalties(llama_vocab_n_tokens(vocab), kLastN, c.repeat,
                                              c.frequency, c.presence));
    }
    if (all || c.dry_multiplier > 0.0f) {
      Add(chain, llama_sampler_init_dry(vocab, c.dry_multiplier, c.dry_base, c.dry_allowed_length,
                                        kLastN, nullptr, 0));
    }
    if (all || c.top_n_sigma > 0.0f) Add(chain, llama_sampler_init_top_n_sigma(c.top_n_sigma));
    if (all || c.top_k > 0) Add(chain, llama_sampler_init_top_k(c.top_k));
    if (all || c.typical_p < 1.0f) Add(chain, llama_sampler_init_typical(c.typical_p, c.min_keep));
    if (all || c.top_p < 1.0f) Add(chain, llama_sampler_init_top_p(c.top_p, c.min_keep));
    if (all || c.min_p > 0.0f) Add(chain, llama_sampler_init_min_p(c.min_p, c.min_keep));
    if (all || c.xtc_probability > 0.0f) {
      Add(chain, llama_sampler_init_xtc(c.xtc_probability, c.xtc_threshold, c.min_keep, seed));
    }
    if (all || c.temp != 1.0f || c.dynatemp_range > 0.0f) {
      Add(chain, llama_sampler_init_temp_ext(c.temp, c.dynatemp_range, c.dynatemp_exponent));
    }
    if (c.adaptive_target >= 0.0f) {
      // common: in dist's place, drawing in any case.
      Add(chain, llama_sampler_init_adaptive_p(c.adaptive_target, c.adaptive_decay, seed));
    } else if (draw) {
      Add(chain, llama_sampler_init_dist(seed));
    }
  }
  for (const int32_t t : history) llama_sampler_accept(chain, t);
  return chain;
}

std::vector<llama_token_data> Candidates(const std::vector<float>& row) {
  std::vector<llama_token_data> data(row.size());
  for (size_t i = 0; i < row.size(); ++i) data[i] = {static_cast<llama_token>(i), row[i], 0.0f};
  return data;
}

}  // namespace

std::vector<int32_t> LlamaKept(const Config& config, const std::vector<float>& row,
                               const std::vector<int32_t>& history, const llama_vocab* vocab) {
  llama_sampler* chain = Chain(config, history, vocab, 1, false);
  std::vector<llama_token_data> data = Candidates(row);
  llama_token_data_array array{data.data(), data.size(), -1, false};
  llama_sampler_apply(chain, &array);
  std::vector<int32_t> kept;
  for (size_t i = 0; i < array.size; ++i) {
    if (array.data[i].logit != -INFINITY) kept.push_back(array.data[i].id);
  }
  llama_sampler_free(chain);
  std::sort(kept.begin(), kept.end());
  return kept;
}

std::vector<uint32_t> LlamaCounts(const Config& config, const std::vector<float>& row,
                                  const std::vector<int32_t>& history, const llama_vocab* vocab,
                                  uint32_t seed, size_t n) {
  std::vector<uint32_t> counts(row.size(), 0);
  const std::vector<llama_token_data> fresh = Candidates(row);
  std::vector<llama_token_data> data;
  // Mirostat moves mu after each token, adaptive-p its average on accept; a
  // fresh sampler per token (seed + i) makes every token a first one, as
  // exactsample's stateless call is.
  const bool per_token = config.mirostat != 0 || config.adaptive_target >= 0.0f;
  llama_sampler* chain = per_token ? nullptr : Chain(config, history, vocab, seed, true);
  for (size_t i = 0; i < n; ++i) {
    if (per_token) chain = Chain(config, history, vocab, seed + static_cast<uint32_t>(i), true);
    data = fresh;
    llama_token_data_array array{data.data(), data.size(), -1, false};
    llama_sampler_apply(chain, &array);
    if (array.selected < 0 || static_cast<size_t>(array.selected) >= array.size) {
      std::fprintf(stderr, "side_by_side: %s: llama.cpp selected nothing\n", config.name);
      std::abort();
    }
    ++counts[static_cast<size_t>(array.data[array.selected].id)];
    if (per_token) llama_sampler_free(chain);
  }
  if (!per_token) llama_sampler_free(chain);
  return counts;
}

}  // namespace side_by_side
