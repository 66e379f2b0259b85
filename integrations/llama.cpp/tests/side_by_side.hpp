// Side by side with llama.cpp's own samplers (docs/llama-samplers.md, "Side
// by side with llama.cpp"): one configuration, written once with llama.cpp's
// parameters, run through libllama's public sampler API and through
// exactsample's C++ API as the same chain.
#ifndef EXACTSAMPLE_LLAMA_TESTS_SIDE_BY_SIDE_HPP_
#define EXACTSAMPLE_LLAMA_TESTS_SIDE_BY_SIDE_HPP_

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "llama.h"

namespace side_by_side {

// Both sides count the penalties and DRY over the same window, which holds
// the whole history (kHistory tokens): the library's presence and frequency
// window reads generated tokens only, so the history is all generated.
inline constexpr int32_t kLastN = 64;

// llama.cpp's parameters, as llama.cpp takes them (floats); each default is
// its off value. exactsample gets each float widened, so both sides start
// from the same numbers.
struct Config {
  const char* name = "";
  // true: llama.cpp's common chain with all nine samplers (the `llama`
  // preset); false: only the samplers that are on.
  bool common = false;
  float repeat = 1.0f, frequency = 0.0f, presence = 0.0f;
  float dry_multiplier = 0.0f, dry_base = 1.75f;
  int32_t dry_allowed_length = 2;
  float top_n_sigma = -1.0f;
  int32_t top_k = 0;
  float typical_p = 1.0f, top_p = 1.0f, min_p = 0.0f;
  float xtc_probability = 0.0f, xtc_threshold = 0.1f;
  float temp = 1.0f, dynatemp_range = 0.0f, dynatemp_exponent = 1.0f;
  int32_t mirostat = 0;
  float tau = 5.0f, eta = 0.1f;
  float adaptive_target = -1.0f, adaptive_decay = 0.9f;
  size_t min_keep = 0;
  // Which checks run; where one is off, why_not says why (docs).
  bool kept = true;
  bool frequencies = true;
  const char* why_not = "";
  // true: both checks must find a difference (a kept id that is not
  // undecided, and p below the threshold).
  bool must_differ = false;
  // Set: exactsample runs with this temperature and top-k instead.
  double exact_temperature = NAN;
  int32_t exact_top_k = -1;
};

// The cut parameters moved by a margin (see ExactKept): -1 tighter, 0 as
// given, +1 looser.
struct Nudge {
  int direction = 0;
  double probability = 0.0;  // added to top_p and typical_p, xtc_threshold
  double relative = 0.0;     // min_p, top_n_sigma and mirostat's tau, relative
};

// llama.cpp's survivors: the ids left in the candidates array with a finite
// logit after the chain without its final draw, ascending.
std::vector<int32_t> LlamaKept(const Config& config, const std::vector<float>& row,
                               const std::vector<int32_t>& history, const llama_vocab* vocab);
// n tokens drawn by llama.cpp's chain with `dist` (mirostat's or
// adaptive-p's own draw in their place), its counts per id.
std::vector<uint32_t> LlamaCounts(const Config& config, const std::vector<float>& row,
                                  const std::vector<int32_t>& history, const llama_vocab* vocab,
                                  uint32_t seed, size_t n);

// exactsample's kept set (the distribution it draws from, ascending ids) on
// `row` with the nudged parameters; `mirror` runs it on the row with ids
// reversed (id V - 1 - i) and maps the result back, which reverses every tie
// order.
std::vector<int32_t> ExactKept(const Config& config, const std::vector<float>& row,
                               const std::vector<int32_t>& history, const Nudge& nudge,
                               bool mirror);
// n tokens from exactsample (generator stream(seed, sample)), counts per id.
std::vector<uint32_t> ExactCounts(const Config& config, const std::vector<float>& row,
                                  const std::vector<int32_t>& history, uint64_t seed, size_t n);

}  // namespace side_by_side

#endif  // EXACTSAMPLE_LLAMA_TESTS_SIDE_BY_SIDE_HPP_
