#include "scalar_ref/chain.hpp"

#include <algorithm>
#include <cmath>

#include "scalar_ref/chain_checks.hpp"
#include "scalar_ref/checks.hpp"
#include "scalar_ref/dry.hpp"
#include "scalar_ref/filters.hpp"
#include "scalar_ref/penalties.hpp"
#include "scalar_ref/terminals.hpp"

namespace exactsample::scalar_ref {
namespace {

Ids Finite(const Logits& l, const Ids& kept) {
  Ids out;
  for (int32_t i : kept) {
    if (l[i] != -INFINITY) out.push_back(i);
  }
  return out;
}

// After a step that changes l: no NaN or +inf over every id (the spec's
// rule for the penalties: a masked id in the history can meet -inf - -inf),
// and K not empty.
Result<Ids> Changed(const Logits& l, const Ids& kept, ChainStep step, const SamplingParams& p) {
  for (size_t i = 0; i < l.size(); ++i) {
    if (auto e = checks::Penalized(l[i], static_cast<int32_t>(i), p)) return *e;
  }
  Ids out = Finite(l, kept);
  if (!out.empty()) return out;
  if (step == ChainStep::penalties) return *checks::MaxAfterPenalties(-INFINITY, p);
  return checks::DryEmptied(p);
}

// l / T over K, with the spec's overflow check on M over K.
std::optional<Error> Divide(Logits& l, const Ids& kept, double t, const SamplingParams& p) {
  double max = -INFINITY;
  for (int32_t i : kept) max = std::max(max, l[i]);
  if (p.dynatemp_range == 0) {
    if (auto e = checks::MaxAfterPenalties(max, p)) return e;
  } else if (std::isinf(max / t)) {
    return checks::DynamicTooSmall(p, t, max / t);
  }
  for (int32_t i : kept) l[i] = l[i] / t;
  return std::nullopt;
}

// The spec's draw, mirostat or adaptive-p: the terminal's l and K.
void Terminal(Chosen& c, const SamplingParams& p, size_t vocab) {
  if (p.mirostat != 0) {
    const double mu = c.state.mu.value_or(2 * p.mirostat_tau);
    c.state.mu = mu;
    c.kept = p.mirostat == 1 ? MirostatV1(c.l, c.kept, mu, p.mirostat_m, vocab)
                             : MirostatV2(c.l, c.kept, mu);
  } else if (p.adaptive_target >= 0) {
    const double a = p.adaptive_target;
    const double d = p.adaptive_decay;
    const ChainState::Average w = c.state.average.value_or(
        ChainState::Average{a / (1 - d), 1 / (1 - d)});
    c.state.average = w;
    const double alpha = std::min(std::max(2 * a - w.weight / w.total, 0.0), 1.0);
    c.original = SoftmaxOver(c.l, c.kept);
    c.l = AdaptiveLogits(c.l, c.kept, c.original, alpha);
  }
}

}  // namespace

std::optional<Error> RunSteps(std::span<const ChainStep> steps, Logits& l, Ids& kept,
                              const Request& request, Pcg32& rng, Chosen& c) {
  const SamplingParams& p = request.params;
  for (const ChainStep step : steps) {
    if (IsOn(step, p)) switch (step) {
      case ChainStep::penalties: {
        Penalties(l, request);
        Result<Ids> k = Changed(l, kept, step, p);
        if (!k) return k.error();
        kept = std::move(*k);
        break;
      }
      case ChainStep::dry: {
        Dry(l, kept, request);
        Result<Ids> k = Changed(l, kept, step, p);
        if (!k) return k.error();
        kept = std::move(*k);
        break;
      }
      case ChainStep::top_n_sigma: kept = TopNSigma(l, kept, p.top_n_sigma); break;
      case ChainStep::top_k: kept = TopK(l, kept, p.top_k); break;
      case ChainStep::typical: kept = Typical(l, kept, p.typical_p, p.min_keep); break;
      case ChainStep::top_p: kept = TopP(l, kept, p.top_p, p.min_keep); break;
      case ChainStep::min_p: kept = MinP(l, kept, p.min_p, p.min_keep); break;
      case ChainStep::xtc: {
        const double u = rng.uniform_f64();  // whether or not it fires
        kept = Xtc(l, kept, u, p.xtc_probability, p.xtc_threshold, p.min_keep);
        break;
      }
      case ChainStep::temperature: {
        const std::optional<double> t =
            p.dynatemp_range == 0
                ? std::optional<double>(p.temperature)
                : DynamicTemperature(l, kept, p.temperature, p.dynatemp_range,
                                     p.dynatemp_exponent);
        if (!t) break;
        if (*t == 0) {  // greedy: the largest l in K, ties to the lowest id
          int32_t best = kept.front();
          for (int32_t i : kept) {
            if (l[i] > l[best]) best = i;
          }
          c.greedy = best;
          return std::nullopt;
        }
        if (auto e = Divide(l, kept, *t, p)) return *e;
        kept = Finite(l, kept);
        break;
      }
    }
    if (step == ChainStep::top_k) c.kept_top_k = kept;
    if (step == ChainStep::top_p) c.kept_top_p = kept;
    if (step == ChainStep::min_p) c.kept_min_p = kept;
  }
  return std::nullopt;
}

Result<Chosen> RunChain(Logits l, const Request& request, Pcg32& rng, const ChainState& state) {
  const SamplingParams& p = request.params;
  Chosen c;
  c.state = state;
  Ids kept;
  for (size_t i = 0; i < l.size(); ++i) {
    if (l[i] != -INFINITY) kept.push_back(static_cast<int32_t>(i));
  }
  // The logprob is taken before the first step that is on and changes
  // neither by penalties nor by DRY (K is then every finite id), or after
  // the last step.
  const std::span<const ChainStep> steps = p.chain.steps();
  size_t first = 0;
  while (first < steps.size() && !(IsOn(steps[first], p) && steps[first] != ChainStep::penalties &&
                                   steps[first] != ChainStep::dry)) {
    ++first;
  }
  if (auto e = RunSteps(steps.first(first), l, kept, request, rng, c)) return *e;
  const Softmax all = SoftmaxOver(l, kept);
  c.at_logprob = l;
  c.max = all.max;
  c.z = all.z;
  if (auto e = RunSteps(steps.subspan(first), l, kept, request, rng, c)) return *e;
  if (c.greedy) return c;
  c.l = std::move(l);
  c.kept = std::move(kept);
  Terminal(c, p, c.l.size());
  return c;
}

ChainState After(const Chosen& chosen, const SamplingParams& p, int32_t id, double processed) {
  ChainState s = chosen.state;
  if (p.mirostat != 0) {
    s.mu = *s.mu - p.mirostat_eta * (-processed / kLn2 - p.mirostat_tau);
  } else if (p.adaptive_target >= 0) {
    const auto j = static_cast<size_t>(
        std::lower_bound(chosen.kept.begin(), chosen.kept.end(), id) - chosen.kept.begin());
    const ChainState::Average w = *s.average;
    s.average = ChainState::Average{chosen.original.q[j] + p.adaptive_decay * w.weight,
                                    1 + p.adaptive_decay * w.total};
  }
  return s;
}

}  // namespace exactsample::scalar_ref
