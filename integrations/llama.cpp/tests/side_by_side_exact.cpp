// The exactsample side: the configuration as SamplingParams and a chain of
// the C++ API (the `llama` preset, or the steps that are on followed by the
// temperature), sampled by exactsample::sample.
#include <algorithm>
#include <cstdio>
#include <cstdlib>

#include "exactsample/exactsample.hpp"
#include "exactsample/pcg32.hpp"
#include "side_by_side.hpp"

namespace side_by_side {
namespace {

using exactsample::ChainStep;

exactsample::Chain ExactChain(const Config& c) {
  if (c.common) return exactsample::Chain::Llama();
  exactsample::Chain chain{exactsample::ChainPreset::list, 0, {}};
  const auto add = [&](bool on, ChainStep step) {
    if (on) chain.list[chain.count++] = step;
  };
  add(c.repeat != 1.0f || c.frequency != 0.0f || c.presence != 0.0f, ChainStep::penalties);
  add(c.dry_multiplier > 0.0f, ChainStep::dry);
  add(c.top_n_sigma > 0.0f, ChainStep::top_n_sigma);
  add(c.top_k > 0, ChainStep::top_k);
  add(c.typical_p < 1.0f, ChainStep::typical);
  add(c.top_p < 1.0f, ChainStep::top_p);
  add(c.min_p > 0.0f, ChainStep::min_p);
  add(c.xtc_probability > 0.0f && c.xtc_threshold <= 0.5f, ChainStep::xtc);
  add(true, ChainStep::temperature);
  return chain;
}

exactsample::SamplingParams Params(const Config& c, const Nudge& n) {
  exactsample::SamplingParams p;
  const double d = n.direction;
  p.chain = ExactChain(c);
  p.temperature = std::isnan(c.exact_temperature) ? c.temp : c.exact_temperature;
  p.repetition_penalty = c.repeat;
  p.frequency_penalty = c.frequency;
  p.presence_penalty = c.presence;
  p.penalty_last_n = kLastN;
  p.dry_multiplier = c.dry_multiplier;
  p.dry_base = c.dry_base;
  p.dry_allowed_length = c.dry_allowed_length;
  p.dry_penalty_last_n = kLastN;
  p.top_n_sigma = c.top_n_sigma > 0.0f ? c.top_n_sigma * (1.0 + d * n.relative) : 0.0;
  p.top_k = c.exact_top_k >= 0 ? c.exact_top_k : c.top_k;
  p.typical_p = c.typical_p < 1.0f ? std::min(1.0, c.typical_p + d * n.probability) : 1.0;
  p.top_p = c.top_p < 1.0f ? std::min(1.0, c.top_p + d * n.probability) : 1.0;
  p.min_p = c.min_p * (1.0 - d * n.relative);
  p.min_keep = static_cast<int64_t>(c.min_keep);
  p.xtc_probability = c.xtc_probability;
  p.xtc_threshold = std::clamp(c.xtc_threshold + d * n.probability, 0.0, 1.0);
  p.dynatemp_range = c.dynatemp_range;
  p.dynatemp_exponent = c.dynatemp_exponent;
  p.mirostat = c.mirostat;
  p.mirostat_tau = c.tau * (1.0 + d * n.relative);
  p.mirostat_eta = c.eta;
  p.mirostat_m = 100;
  p.adaptive_target = c.adaptive_target;
  p.adaptive_decay = c.adaptive_decay;
  return p;
}

[[noreturn]] void Refused(const Config& c, const exactsample::Error& e) {
  std::fprintf(stderr, "side_by_side: %s: exactsample refused: %s\n", c.name, e.message.c_str());
  std::exit(1);
}

}  // namespace

std::vector<int32_t> ExactKept(const Config& config, const std::vector<float>& row,
                               const std::vector<int32_t>& history, const Nudge& nudge,
                               bool mirror) {
  const int32_t last = static_cast<int32_t>(row.size()) - 1;
  std::vector<float> logits = row;
  std::vector<int32_t> generated = history;
  if (mirror) {
    std::reverse(logits.begin(), logits.end());
    for (int32_t& t : generated) t = last - t;
  }
  exactsample::Request request;
  request.logits = logits;
  request.generated = generated;
  request.params = Params(config, nudge);
  std::vector<exactsample::KeptProb> distribution;
  exactsample::SampleOptions options;
  options.logprob = false;
  options.distribution = &distribution;
  exactsample::Pcg32 rng = exactsample::stream(1, exactsample::Purpose::sample);
  exactsample::Workspace workspace;
  const auto token = exactsample::sample(request, rng, workspace, options);
  if (!token) Refused(config, token.error());
  std::vector<int32_t> kept;
  for (const exactsample::KeptProb& k : distribution) kept.push_back(mirror ? last - k.id : k.id);
  std::sort(kept.begin(), kept.end());
  return kept;
}

std::vector<uint32_t> ExactCounts(const Config& config, const std::vector<float>& row,
                                  const std::vector<int32_t>& history, uint64_t seed, size_t n) {
  std::vector<uint32_t> counts(row.size(), 0);
  exactsample::Request request;
  request.logits = row;
  request.generated = history;
  request.params = Params(config, Nudge{});
  exactsample::SampleOptions options;
  options.logprob = false;
  exactsample::Pcg32 rng = exactsample::stream(seed, exactsample::Purpose::sample);
  exactsample::Workspace workspace;
  for (size_t i = 0; i < n; ++i) {
    const auto token = exactsample::sample(request, rng, workspace, options);
    if (!token) Refused(config, token.error());
    ++counts[static_cast<size_t>(token->id)];
  }
  return counts;
}

}  // namespace side_by_side
