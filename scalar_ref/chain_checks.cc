#include "scalar_ref/chain_checks.hpp"

#include <charconv>
#include <cmath>
#include <cstring>

namespace exactsample::scalar_ref {

bool IsOn(ChainStep step, const SamplingParams& p) {
  switch (step) {
    case ChainStep::penalties:
      return p.repetition_penalty != 1 || p.presence_penalty != 0 || p.frequency_penalty != 0;
    case ChainStep::dry: return p.dry_multiplier > 0 && p.dry_penalty_last_n > 0;
    case ChainStep::top_n_sigma: return p.top_n_sigma > 0;
    case ChainStep::top_k: return p.top_k > 0;
    case ChainStep::typical: return p.typical_p < 1;
    case ChainStep::top_p: return p.top_p < 1;
    case ChainStep::min_p: return p.min_p > 0;
    case ChainStep::xtc: return p.xtc_probability > 0 && p.xtc_threshold <= 0.5;
    case ChainStep::temperature: return p.temperature != 1 || p.dynatemp_range > 0;
  }
  return false;
}

}  // namespace exactsample::scalar_ref

namespace exactsample::checks {
namespace {

using scalar_ref::IsOn;

std::string Int(int64_t v) { return std::to_string(v); }

Error Bad(const char* field, const std::string& value, const std::string& rule) {
  return {ErrorCode::invalid_parameter, field, std::string(field) + " = " + value + ": " + rule};
}

std::optional<Error> FiniteAtLeast0(const char* field, double v, const char* note = "") {
  if (std::isfinite(v) && v >= 0) return std::nullopt;
  return Bad(field, Repr(v), std::string("must be finite and >= 0") + note);
}

std::optional<Error> Breakers(std::span<const std::span<const int32_t>> breakers,
                              size_t vocab) {
  constexpr size_t kMaxBreaker = 21;  // llama.cpp: a head token and 20 more
  const auto at = [](size_t j) { return "dry_sequence_breakers[" + std::to_string(j) + "]"; };
  for (size_t j = 0; j < breakers.size(); ++j) {
    const std::span<const int32_t> b = breakers[j];
    const auto error = [&](const std::string& m) {
      return Error{ErrorCode::invalid_parameter, "dry_sequence_breakers", at(j) + m};
    };
    if (b.empty()) return error(": empty");
    if (b.size() > kMaxBreaker) {
      return error(": " + std::to_string(b.size()) + " ids, at most " + Int(kMaxBreaker));
    }
    for (size_t k = 0; k < b.size(); ++k) {
      if (b[k] < 0 || static_cast<size_t>(b[k]) >= vocab) {
        std::string m = "[";  // appended: GCC 12 warns falsely on "[" + a temporary
        m += std::to_string(k) + "] = " + Int(b[k]) + ": outside [0, " +
             std::to_string(vocab) + ")";
        return error(m);
      }
    }
  }
  return std::nullopt;
}

// The field a step is named by: the first of its fields that turns it on.
std::string FieldOf(ChainStep step, const SamplingParams& p) {
  switch (step) {
    case ChainStep::penalties:
      if (p.repetition_penalty != 1) return "repetition_penalty = " + Repr(p.repetition_penalty);
      if (p.presence_penalty != 0) return "presence_penalty = " + Repr(p.presence_penalty);
      return "frequency_penalty = " + Repr(p.frequency_penalty);
    case ChainStep::dry: return "dry_multiplier = " + Repr(p.dry_multiplier);
    case ChainStep::top_n_sigma: return "top_n_sigma = " + Repr(p.top_n_sigma);
    case ChainStep::top_k: return "top_k = " + Int(p.top_k);
    case ChainStep::typical: return "typical_p = " + Repr(p.typical_p);
    case ChainStep::top_p: return "top_p = " + Repr(p.top_p);
    case ChainStep::min_p: return "min_p = " + Repr(p.min_p);
    case ChainStep::xtc: return "xtc_probability = " + Repr(p.xtc_probability);
    case ChainStep::temperature:
      if (p.temperature != 1) return "temperature = " + Repr(p.temperature);
      return "dynatemp_range = " + Repr(p.dynatemp_range);
  }
  return "?";
}

std::optional<Error> ChainSteps(const SamplingParams& p) {
  const std::span<const ChainStep> steps = p.chain.steps();
  const std::string unknown(p.chain.unknown);
  if (!unknown.empty() && steps.empty()) {
    return Error{ErrorCode::invalid_parameter, "chain",
                 "chain = '" + unknown + "': not a preset (spec, llama) or a list of step names"};
  }
  bool listed[kChainSteps] = {};
  for (size_t j = 0; j < steps.size(); ++j) {
    const auto i = static_cast<size_t>(steps[j]);
    const auto error = [&](const char* why) {
      return Error{ErrorCode::invalid_parameter, "chain",
                   "chain[" + std::to_string(j) + "] = '" +
                       (i >= kChainSteps && !unknown.empty()
                            ? unknown
                            : std::string(chain_step_name(steps[j]))) +
                       "': " + why};
    };
    if (i >= kChainSteps) {
      return error("not a step (penalties, dry, top_n_sigma, top_k, typical, top_p, min_p, "
                   "xtc, temperature)");
    }
    if (listed[i]) return error("listed twice");
    listed[i] = true;
  }
  for (size_t i = 0; i < kChainSteps; ++i) {
    const auto step = static_cast<ChainStep>(i);
    if (IsOn(step, p) && !listed[i]) {
      return Error{ErrorCode::invalid_parameter, "chain",
                   "chain: " + FieldOf(step, p) + " is on but the chain has no " +
                       std::string(chain_step_name(step)) + " step"};
    }
  }
  return std::nullopt;
}

// With mirostat: the filters, dynamic temperature and adaptive-p are refused.
std::optional<Error> WithMirostat(const SamplingParams& p) {
  struct Off {
    const char* field;
    bool on;
    std::string value;
    const char* off;
  };
  const Off fields[] = {
      {"top_n_sigma", IsOn(ChainStep::top_n_sigma, p), Repr(p.top_n_sigma), "0"},
      {"top_k", IsOn(ChainStep::top_k, p), Int(p.top_k), "0"},
      {"typical_p", IsOn(ChainStep::typical, p), Repr(p.typical_p), "1"},
      {"top_p", IsOn(ChainStep::top_p, p), Repr(p.top_p), "1"},
      {"min_p", IsOn(ChainStep::min_p, p), Repr(p.min_p), "0"},
      {"xtc_probability", IsOn(ChainStep::xtc, p), Repr(p.xtc_probability), "0"},
      {"dynatemp_range", p.dynatemp_range > 0, Repr(p.dynatemp_range), "0"},
  };
  const std::string mirostat = "mirostat = " + Int(p.mirostat);
  for (const Off& f : fields) {
    if (f.on) {
      return Bad(f.field, f.value,
                 mirostat + " replaces the filters; set " + f.field + " = " + f.off);
    }
  }
  if (p.adaptive_target >= 0) {
    return Bad("adaptive_target", Repr(p.adaptive_target),
               mirostat + " replaces the terminal; set adaptive_target = -1");
  }
  return std::nullopt;
}

}  // namespace

std::string Repr(double v) {
  if (std::isnan(v)) return "nan";
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  char buf[64];
  const auto sci = std::to_chars(buf, buf + sizeof buf, v, std::chars_format::scientific);
  const std::string scientific(buf, sci.ptr);
  const int exponent = std::atoi(std::strchr(scientific.c_str(), 'e') + 1);
  if (exponent < -4 || exponent >= 16) return scientific;  // Python's repr switches there
  const auto fixed = std::to_chars(buf, buf + sizeof buf, v, std::chars_format::fixed);
  std::string out(buf, fixed.ptr);
  if (out.find('.') == std::string::npos) out += ".0";
  return out;
}

std::optional<Error> ChainParams(const SamplingParams& p, size_t vocab) {
  if (p.min_keep < 0) return Bad("min_keep", Int(p.min_keep), "must be >= 0");
  if (auto e = FiniteAtLeast0("top_n_sigma", p.top_n_sigma, " (0: off)")) return e;
  if (!(p.typical_p >= 0)) {
    return Bad("typical_p", Repr(p.typical_p), "must be >= 0 (1 or more: off)");
  }
  if (!(p.xtc_probability >= 0 && p.xtc_probability <= 1)) {
    return Bad("xtc_probability", Repr(p.xtc_probability), "must be in [0, 1]");
  }
  if (!(p.xtc_threshold >= 0 && p.xtc_threshold <= 1)) {
    return Bad("xtc_threshold", Repr(p.xtc_threshold), "must be in [0, 1] (above 0.5: off)");
  }
  if (auto e = FiniteAtLeast0("dry_multiplier", p.dry_multiplier, " (0: off)")) return e;
  if (!(std::isfinite(p.dry_base) && p.dry_base >= 1)) {
    return Bad("dry_base", Repr(p.dry_base), "must be finite and >= 1");
  }
  if (p.dry_allowed_length < 0) {
    return Bad("dry_allowed_length", Int(p.dry_allowed_length), "must be >= 0");
  }
  if (p.dry_penalty_last_n < 0) {
    return Bad("dry_penalty_last_n", Int(p.dry_penalty_last_n), "must be >= 0 (0: off)");
  }
  if (auto e = Breakers(p.dry_sequence_breakers, vocab)) return e;
  if (auto e = FiniteAtLeast0("dynatemp_range", p.dynatemp_range, " (0: off)")) return e;
  if (auto e = FiniteAtLeast0("dynatemp_exponent", p.dynatemp_exponent)) return e;
  if (p.mirostat < 0 || p.mirostat > 2) {
    return Bad("mirostat", Int(p.mirostat), "must be 0, 1 or 2");
  }
  if (auto e = FiniteAtLeast0("mirostat_tau", p.mirostat_tau)) return e;
  if (auto e = FiniteAtLeast0("mirostat_eta", p.mirostat_eta)) return e;
  if (p.mirostat_m < 2) return Bad("mirostat_m", Int(p.mirostat_m), "must be >= 2");
  if (!(p.adaptive_target <= 1)) {
    return Bad("adaptive_target", Repr(p.adaptive_target), "must be <= 1 (below 0: off)");
  }
  if (!(p.adaptive_decay >= 0 && p.adaptive_decay <= 0.99)) {
    return Bad("adaptive_decay", Repr(p.adaptive_decay), "must be in [0, 0.99]");
  }
  if (auto e = ChainSteps(p)) return e;
  if (p.mirostat != 0) return WithMirostat(p);
  return std::nullopt;
}

std::optional<Error> FixedDistribution(const SamplingParams& p) {
  const auto refuse = [](const char* field, const std::string& value, const char* what) {
    return Bad(field, value,
               std::string("verification needs a fixed distribution; ") + what + " draws");
  };
  if (IsOn(ChainStep::xtc, p)) return refuse("xtc_probability", Repr(p.xtc_probability), "XTC");
  if (p.mirostat != 0) return refuse("mirostat", Int(p.mirostat), "mirostat");
  if (p.adaptive_target >= 0) {
    return refuse("adaptive_target", Repr(p.adaptive_target), "adaptive-p");
  }
  return std::nullopt;
}

Error DryEmptied(const SamplingParams& p) {
  return {ErrorCode::degenerate, "dry_multiplier",
          "dry_multiplier = " + Repr(p.dry_multiplier) + ": DRY makes every logit -inf"};
}

Error DynamicTooSmall(const SamplingParams& p, double divisor, double tempered) {
  return Bad("temperature", Repr(p.temperature),
             "the dynamic temperature " + Repr(divisor) + " is too small, max(l) / T' = " +
                 Repr(tempered));
}

}  // namespace exactsample::checks
