#include "lib/engine/chain_split.hpp"

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
  // DRY and top-n-sigma read the history or every id's l; mirostat and
  // adaptive-p replace the terminal and carry state.
  if (IsOn(ChainStep::dry, p) || IsOn(ChainStep::top_n_sigma, p) || p.mirostat != 0 ||
      p.adaptive_target >= 0) {
    return split;
  }
  size_t next = 0;  // in kSpecChain
  for (const ChainStep step : p.chain.steps()) {
    if (!IsOn(step, p)) continue;
    if (split.count == 0 && InPrefix(step, p)) {
      while (next < kChainSteps && kSpecChain[next] != step) ++next;
      if (next < kChainSteps) {
        ++next;
        split.tempered = split.tempered || step == ChainStep::temperature;
        continue;
      }
    }
    if (!InTail(step)) return split;
    split.steps[split.count++] = step;
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
