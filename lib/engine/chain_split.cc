#include "lib/engine/chain_split.hpp"

#include <algorithm>

#include "lib/engine/kept_set.hpp"
#include "scalar_ref/chain_checks.hpp"

namespace exactsample {
namespace {

using scalar_ref::IsOn;

// A step the kernels run: the spec's, without what they do not know
// (dynamic temperature, min_keep).
bool InPrefix(ChainStep step, const SamplingParams& p) {
  switch (step) {
    case ChainStep::penalties:
    case ChainStep::dry:  // on the f64 row after the penalties (PenalizedLogits)
    case ChainStep::top_k: return true;
    case ChainStep::temperature: return p.dynatemp_range == 0;
    case ChainStep::top_p:
    case ChainStep::min_p: return p.min_keep <= 1;
    default: return false;
  }
}

// A step that reads l over K alone and keeps or divides it: after the
// prefix, the reference's function over K compacted gives its result.
bool InTail(ChainStep step) {
  switch (step) {
    case ChainStep::top_n_sigma:
    case ChainStep::top_k:
    case ChainStep::typical:
    case ChainStep::top_p:
    case ChainStep::min_p:
    case ChainStep::xtc:
    case ChainStep::temperature: return true;
    default: return false;
  }
}

}  // namespace

ChainSplit ChainSplit::Of(const Request& request, const SampleOptions& options) {
  const SamplingParams& p = request.params;
  ChainSplit split;
  // Mirostat and adaptive-p replace the terminal and carry state; the trace
  // does not record DRY.
  if (p.mirostat != 0 || p.adaptive_target >= 0 ||
      (IsOn(ChainStep::dry, p) && options.trace != nullptr)) {
    return split;
  }
  size_t next = 0;  // in kSpecChain
  bool prefix_filters = false;
  for (const ChainStep step : p.chain.steps()) {
    if (!IsOn(step, p)) continue;
    if (split.count == 0 && InPrefix(step, p)) {
      while (next < kChainSteps && kSpecChain[next] != step) ++next;
      if (next < kChainSteps) {
        ++next;
        split.tempered = split.tempered || step == ChainStep::temperature;
        prefix_filters = prefix_filters || step == ChainStep::top_k ||
                         step == ChainStep::top_p || step == ChainStep::min_p;
        continue;
      }
    }
    if (!InTail(step)) return split;
    split.steps[split.count++] = step;
  }
  // top-n-sigma then top-k (llama.cpp's order) keeps what top-k then the
  // threshold over the row keeps: the ids at or above a threshold come first
  // in (l desc, id asc) order, so top-k of them is top-k of the row cut
  // there. So where no filter comes first, the kernels run the top-k and the
  // tail cuts it at the threshold taken over the row (Tail in steps.hpp).
  if (!prefix_filters && split.count >= 2 && split.steps[0] == ChainStep::top_n_sigma &&
      split.steps[1] == ChainStep::top_k) {
    std::copy(split.steps.begin() + 2, split.steps.begin() + split.count,
              split.steps.begin() + 1);
    --split.count;
    split.sigma_over_row = true;
  }
  if (split.count > 0) {
    // The tail reads K's members, ids whose e underflowed included; top-k's
    // K holds them only when compact (beyond, its e is zeroed after the cut
    // in place), and the trace records the kernels' steps.
    const size_t v = request.vocab();
    const bool k_compact = !IsOn(ChainStep::top_k, p) || static_cast<size_t>(p.top_k) >= v ||
                           static_cast<size_t>(p.top_k) <= CompactCapacity(v);
    if (!k_compact || options.trace != nullptr) return split;
  }
  split.fast = true;
  return split;
}

SamplingParams ChainSplit::Prefix(const SamplingParams& p) const {
  SamplingParams prefix = p;
  for (const ChainStep step : Tail()) {
    switch (step) {
      case ChainStep::top_n_sigma: prefix.top_n_sigma = 0.0; break;
      case ChainStep::top_k: prefix.top_k = 0; break;
      case ChainStep::typical: prefix.typical_p = 1.0; break;
      case ChainStep::top_p: prefix.top_p = 1.0; break;
      case ChainStep::min_p: prefix.min_p = 0.0; break;
      case ChainStep::xtc: prefix.xtc_probability = 0.0; break;
      case ChainStep::temperature:
        prefix.temperature = 1.0;
        prefix.dynatemp_range = 0.0;
        break;
      default: break;  // not in a tail
    }
  }
  return prefix;
}

}  // namespace exactsample
