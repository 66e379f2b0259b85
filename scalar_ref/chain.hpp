// The reference's chain (docs/llama-samplers.md): the request's steps in its
// order over l and K, then the terminal's kept set, with the draws the
// steps take and the state the terminal leaves.
#pragma once

#include <optional>
#include <span>

#include "exactsample/exactsample.hpp"
#include "scalar_ref/kept.hpp"

namespace exactsample::scalar_ref {

struct Chosen {
  // The row where the logprob is taken (all V ids), with its M and Z.
  Logits at_logprob;
  double max = -INFINITY;
  double z = 0.0;
  std::optional<int32_t> greedy;  // the temperature step's greedy id
  Logits l;                       // what the terminal draws from, over `kept`
  Ids kept;
  // For the trace: K after each of the spec's filters (as it was when off).
  Ids kept_top_k, kept_top_p, kept_min_p;
  // The state before the token, and what the terminal needs to update it.
  ChainState state;
  Softmax original;  // adaptive-p: q over K before its transform
};

// `l`: the row after step 1, the bias and the masks, with a finite logit.
// The draws (XTC's) come from rng; the caller commits it only on success.
Result<Chosen> RunChain(Logits l, const Request& request, Pcg32& rng, const ChainState& state);

// The steps of `steps` that are on, in order, over l and K: RunChain's,
// and the fast engine's tail over its K (lib/engine/tail.cc). The draws
// (XTC's) come from rng. A temperature step that makes the token greedy
// ends them with c.greedy set; the kept sets after top_k, top_p and min_p
// go to c for the trace.
std::optional<Error> RunSteps(std::span<const ChainStep> steps, Logits& l, Ids& kept,
                              const Request& request, Pcg32& rng, Chosen& c);

// The state after the token `id` with processed logprob `processed`.
ChainState After(const Chosen& chosen, const SamplingParams& p, int32_t id, double processed);

}  // namespace exactsample::scalar_ref
