#include "scalar_ref/checks.hpp"

#include <cmath>
#include <string>

#include "scalar_ref/chain_checks.hpp"
#include "scalar_ref/order.hpp"
#include "scalar_ref/twins/half.hpp"

namespace exactsample::checks {
namespace {

Error Param(const char* field, const std::string& value, const char* rule) {
  return {ErrorCode::invalid_parameter, field,
          std::string(field) + " = " + value + ": " + rule};
}

std::optional<Error> Ids(const char* field, std::span<const int32_t> ids,
                         size_t vocab, size_t from = 0) {
  for (size_t j = from; j < ids.size(); ++j) {
    if (ids[j] < 0 || static_cast<size_t>(ids[j]) >= vocab) {
      return Error{ErrorCode::invalid_ids, field,
                   std::string(field) + "[" + std::to_string(j) + "] = " +
                       std::to_string(ids[j]) + ": outside [0, V) with V = " +
                       std::to_string(vocab)};
    }
  }
  return std::nullopt;
}

std::optional<Error> BiasAndMask(const Request& request, size_t vocab) {
  const LogitBias& bias = request.bias;
  if (bias.ids.size() != bias.values.size()) {
    return Error{ErrorCode::invalid_parameter, "logit_bias",
                 "logit_bias: " + std::to_string(bias.ids.size()) + " ids but " +
                     std::to_string(bias.values.size()) + " values"};
  }
  if (auto e = Ids("logit_bias", bias.ids, vocab)) return e;
  for (size_t j = 0; j < bias.values.size(); ++j) {
    if (!std::isfinite(bias.values[j])) {
      return Param("logit_bias", Repr(bias.values[j]) + " for id " + std::to_string(bias.ids[j]),
                   "a bias must be finite");
    }
  }
  const TokenMask& mask = request.mask;
  if (auto e = Ids("allowed_token_ids", mask.allowed, vocab)) return e;
  if (auto e = Ids("banned_token_ids", mask.banned, vocab)) return e;
  const size_t words = (vocab + 31) / 32;
  if (!mask.allowed_bits.empty() && mask.allowed_bits.size() < words) {
    return Param("allowed_bitmask", std::to_string(mask.allowed_bits.size()) + " words",
                 ("needs ceil(V / 32) = " + std::to_string(words) + " words").c_str());
  }
  return std::nullopt;
}

}  // namespace

static const char* TypeName(LogitType t) {
  switch (t) {
    case LogitType::f16: return "f16";
    case LogitType::bf16: return "bf16";
    case LogitType::f32: break;
  }
  return "f32";
}

static std::optional<Error> Params(const SamplingParams& p, size_t vocab) {
  if (!std::isfinite(p.temperature) || p.temperature < 0) {
    return Param("temperature", Repr(p.temperature), "must be finite and >= 0");
  }
  if (std::isnan(p.top_p) || p.top_p < 0) {
    return Param("top_p", Repr(p.top_p), "must be >= 0 (>= 1 turns it off)");
  }
  if (!(p.min_p >= 0 && p.min_p <= 1)) {
    return Param("min_p", Repr(p.min_p), "must be in [0, 1]");
  }
  if (p.top_k < 0) {
    return Param("top_k", std::to_string(p.top_k),
                 "must be >= 0 (0 turns it off)");
  }
  if (!std::isfinite(p.repetition_penalty) || p.repetition_penalty <= 0) {
    return Param("repetition_penalty", Repr(p.repetition_penalty), "must be finite and > 0");
  }
  if (!std::isfinite(p.presence_penalty)) {
    return Param("presence_penalty", Repr(p.presence_penalty), "must be finite");
  }
  if (!std::isfinite(p.frequency_penalty)) {
    return Param("frequency_penalty", Repr(p.frequency_penalty), "must be finite");
  }
  if (p.top_logprobs < 0 || p.top_logprobs > kMaxTopLogprobs) {
    return Param("top_logprobs", std::to_string(p.top_logprobs), "must be in [0, 20]");
  }
  if (p.penalty_last_n < 0) {
    return Param("penalty_last_n", std::to_string(p.penalty_last_n),
                 "must be >= 0 (0: the whole history)");
  }
  return ChainParams(p, vocab);
}

std::optional<Error> ParamsAndExtras(const Request& request, size_t vocab) {
  if (auto e = Params(request.params, vocab)) return e;
  return BiasAndMask(request, vocab);
}

std::optional<Error> ParamsAndIds(const Request& request, size_t generated_checked) {
  const LogitType type = request.logits_type;
  if (type != LogitType::f32 && type != LogitType::f16 && type != LogitType::bf16) {
    return Error{ErrorCode::invalid_logits, "logits",
                 "logits: logits_type = " + std::to_string(static_cast<int>(type)) +
                     " is not f32, f16 or bf16"};
  }
  // The row logits_type does not select must be empty: one row, one type.
  const bool f32 = type == LogitType::f32;
  if (f32 ? !request.logits16.empty() : !request.logits.empty()) {
    return Error{ErrorCode::invalid_logits, "logits",
                 std::string("logits: logits_type = ") + TypeName(type) + " but " +
                     (f32 ? "16-bit words (logits16)" : "f32 logits") +
                     " given; give the row in the one its type selects"};
  }
  const size_t vocab = request.vocab();
  if (vocab == 0) {
    return Error{ErrorCode::invalid_logits, "logits",
                 "logits: empty (V = 0); at least one logit is needed"};
  }
  if (vocab > static_cast<size_t>(INT32_MAX)) {
    return Error{ErrorCode::invalid_logits, "logits",
                 "logits: V = " + std::to_string(vocab) +
                     " exceeds the largest id 2^31 - 1"};
  }
  if (auto e = Params(request.params, vocab)) return e;
  if (request.history == nullptr) {  // a Sequence checked its ids as they came
    if (auto e = Ids("prompt", request.prompt, vocab)) return e;
    if (auto e = Ids("generated", request.generated, vocab, generated_checked)) return e;
  }
  return BiasAndMask(request, vocab);
}

Error BadLogit(size_t id, float value) {
  return {
      ErrorCode::invalid_logits, "logits",
      "logits[" + std::to_string(id) + "] = " + Repr(value) + ": logits must not be NaN or +inf"};
}

Error AllMasked() {
  return {ErrorCode::invalid_logits, "logits",
          "logits: every logit is -inf, no token can be chosen"};
}

std::optional<Error> LogitValues(std::span<const float> logits) {
  bool any_finite = false;
  for (size_t i = 0; i < logits.size(); ++i) {
    const float x = logits[i];
    if (std::isnan(x) || x == INFINITY) return BadLogit(i, x);
    any_finite |= (x != -INFINITY);
  }
  if (!any_finite) return AllMasked();
  return std::nullopt;
}

std::optional<Error> LogitValues(const Request& request) {
  if (request.logits_type == LogitType::f32) return LogitValues(request.logits);
  const twins::Row x = twins::Row::Of(request);
  bool any_finite = false;
  for (size_t i = 0; i < request.logits16.size(); ++i) {
    const float v = x[i];
    if (std::isnan(v) || v == INFINITY) return BadLogit(i, v);
    any_finite |= (v != -INFINITY);
  }
  if (!any_finite) return AllMasked();
  return std::nullopt;
}

Error BiasedToInfinity(int32_t id) {
  return {ErrorCode::invalid_parameter, "logit_bias",
          "logit_bias: makes the logit of id " + std::to_string(id) + " +inf"};
}

Error AllMaskedOut() {
  return {ErrorCode::degenerate, "mask",
          "mask: every id with a finite logit is masked out (allowed_token_ids, "
          "banned_token_ids, allowed_bitmask) or biased to -inf; no token can be chosen"};
}

std::optional<Error> Penalized(double value, int32_t id,
                               const SamplingParams& p) {
  if (!std::isnan(value) && value != INFINITY) return std::nullopt;
  return Error{ErrorCode::degenerate, "penalties",
               "penalties make the logit of id " + std::to_string(id) + " " + Repr(value) +
                   " (repetition_penalty = " + Repr(p.repetition_penalty) +
                   ", presence_penalty = " + Repr(p.presence_penalty) +
                   ", frequency_penalty = " + Repr(p.frequency_penalty) + ")"};
}

std::optional<Error> MaxAfterPenalties(double max_logit,
                                       const SamplingParams& p) {
  if (max_logit == -INFINITY) {
    return Error{ErrorCode::degenerate, "penalties",
                 "penalties make every logit -inf (repetition_penalty = " +
                     Repr(p.repetition_penalty) + ")"};
  }
  if (p.temperature > 0) {
    const double tempered = scalar_ref::Tempered(max_logit, p.temperature);
    if (tempered == INFINITY || tempered == -INFINITY) {
      return Param("temperature", Repr(p.temperature),
                   ("too small: the largest logit " + Repr(max_logit) + " divided by it is " +
                    Repr(tempered))
                       .c_str());
    }
  }
  return std::nullopt;
}

}  // namespace exactsample::checks
