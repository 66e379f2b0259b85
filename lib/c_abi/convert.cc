#include "lib/c_abi/convert.hpp"

#include <cstddef>
#include <tuple>

namespace exactsample::c_abi {

namespace {

// The sizes older callers set: the struct before penalty_last_n, and the
// struct before the chain's fields.
constexpr uint32_t kParamsSizeBeforeWindow = offsetof(exactsample_params, penalty_last_n);
constexpr uint32_t kParamsSizeBeforeChain = offsetof(exactsample_params, chain_preset);

// A chain or breaker field of p that this version cannot read, or "".
std::string ChainFieldsProblem(const exactsample_params& p, const std::string& name) {
  if (p.chain_preset < EXACTSAMPLE_CHAIN_SPEC || p.chain_preset > EXACTSAMPLE_CHAIN_LIST) {
    return name + "chain_preset = " + std::to_string(p.chain_preset) +
           ": EXACTSAMPLE_CHAIN_SPEC (0), EXACTSAMPLE_CHAIN_LLAMA (1) or EXACTSAMPLE_CHAIN_LIST (2)";
  }
  if (p.chain_preset != EXACTSAMPLE_CHAIN_LIST && p.chain_len != 0) {
    return name + "chain_len = " + std::to_string(p.chain_len) + " with chain_preset = " +
           std::to_string(p.chain_preset) +
           ": the steps are read only with EXACTSAMPLE_CHAIN_LIST (2)";
  }
  if (std::string a = ArrayProblem(p.chain_steps, p.chain_len, name + "chain_steps", "chain_len");
      !a.empty()) {
    return a;
  }
  for (size_t j = 0; j < p.chain_len; ++j) {
    const int32_t step = p.chain_steps[j];
    if (step < EXACTSAMPLE_STEP_PENALTIES || step > EXACTSAMPLE_STEP_TEMPERATURE) {
      return name + "chain_steps[" + std::to_string(j) + "] = " + std::to_string(step) +
             ": not a step (EXACTSAMPLE_STEP_PENALTIES (0) to EXACTSAMPLE_STEP_TEMPERATURE (8))";
    }
  }
  if (std::string a = ArrayProblem(p.dry_sequence_breakers, p.dry_sequence_breakers_len,
                                   name + "dry_sequence_breakers", "dry_sequence_breakers_len");
      !a.empty()) {
    return a;
  }
  for (size_t j = 0; j < p.dry_sequence_breakers_len; ++j) {
    const exactsample_ids& b = p.dry_sequence_breakers[j];
    const std::string field = name + "dry_sequence_breakers[" + std::to_string(j) + "]";
    if (std::string a = ArrayProblem(b.ids, b.len, field + ".ids", "len"); !a.empty()) return a;
  }
  return {};
}

Chain ToChain(const exactsample_params& p) {
  if (p.chain_preset == EXACTSAMPLE_CHAIN_LLAMA) return Chain::Llama();
  Chain chain{};
  if (p.chain_preset != EXACTSAMPLE_CHAIN_LIST) return chain;
  // A longer list repeats a step among the entries kept, which the checks
  // report as they would for the whole list.
  chain.preset = ChainPreset::list;
  for (size_t j = 0; j < p.chain_len && chain.count < chain.list.size(); ++j) {
    chain.list[chain.count++] = static_cast<ChainStep>(p.chain_steps[j]);
  }
  return chain;
}

}  // namespace

exactsample_status StatusOf(ErrorCode code) {
  switch (code) {
    case ErrorCode::invalid_parameter: return EXACTSAMPLE_INVALID_PARAMETER;
    case ErrorCode::invalid_logits: return EXACTSAMPLE_INVALID_LOGITS;
    case ErrorCode::invalid_ids: return EXACTSAMPLE_INVALID_IDS;
    case ErrorCode::degenerate: return EXACTSAMPLE_DEGENERATE;
    case ErrorCode::out_of_memory: return EXACTSAMPLE_OUT_OF_MEMORY;
  }
  return EXACTSAMPLE_INTERNAL;
}

std::string ArrayProblem(const void* pointer, size_t len, const std::string& name,
                         const std::string& len_name) {
  if (pointer != nullptr || len == 0) return {};
  return name + " is NULL with " + len_name + " = " + std::to_string(len);
}

std::string StructSizeProblem(const char* type, uint32_t given, size_t expected,
                              const char* fix) {
  if (given == expected) return {};
  return std::string(type) + ".struct_size = " + std::to_string(given) + ", expected " +
         std::to_string(expected) + " (sizeof(" + type + ") in this version; " + fix + ")";
}

std::string ParamsProblem(const exactsample_params& p, const std::string& prefix) {
  if (p.struct_size == kParamsSizeBeforeWindow || p.struct_size == kParamsSizeBeforeChain) {
    return {};
  }
  const std::string size = StructSizeProblem("exactsample_params", p.struct_size,
                                             sizeof(exactsample_params),
                                             "exactsample_params_init sets it");
  if (!size.empty()) return prefix.empty() ? size : prefix + "params: " + size;
  return ChainFieldsProblem(p, prefix.empty() ? prefix : prefix + "params.");
}

SamplingParams ToParams(const exactsample_params& p, BreakerViews& breakers) {
  SamplingParams s{p.temperature, p.repetition_penalty, p.presence_penalty,
                   p.frequency_penalty, p.top_k, p.top_p, p.min_p};
  if (p.struct_size > kParamsSizeBeforeWindow) s.penalty_last_n = p.penalty_last_n;
  if (p.struct_size != sizeof(exactsample_params)) return s;
  s.chain = ToChain(p);
  s.min_keep = p.min_keep;
  s.top_n_sigma = p.top_n_sigma;
  s.typical_p = p.typical_p;
  s.xtc_probability = p.xtc_probability;
  s.xtc_threshold = p.xtc_threshold;
  s.dry_multiplier = p.dry_multiplier;
  s.dry_base = p.dry_base;
  s.dry_allowed_length = p.dry_allowed_length;
  s.dry_penalty_last_n = p.dry_penalty_last_n;
  breakers.clear();
  for (size_t j = 0; j < p.dry_sequence_breakers_len; ++j) {
    breakers.emplace_back(p.dry_sequence_breakers[j].ids, p.dry_sequence_breakers[j].len);
  }
  s.dry_sequence_breakers = breakers;
  s.dynatemp_range = p.dynatemp_range;
  s.dynatemp_exponent = p.dynatemp_exponent;
  s.mirostat = p.mirostat;
  s.mirostat_tau = p.mirostat_tau;
  s.mirostat_eta = p.mirostat_eta;
  s.mirostat_m = p.mirostat_m;
  s.adaptive_target = p.adaptive_target;
  s.adaptive_decay = p.adaptive_decay;
  return s;
}

std::string ExtrasProblem(const exactsample_extras& x, const std::string& prefix,
                          bool outputs) {
  const std::string size = StructSizeProblem("exactsample_extras", x.struct_size,
                                             sizeof(exactsample_extras),
                                             "zero the struct and set it to sizeof");
  if (!size.empty()) return prefix.empty() ? size : prefix + "extras: " + size;
  const std::string name = prefix + "extras";
  for (const auto& [pointer, len, field, len_field] :
       {std::tuple<const void*, size_t, const char*, const char*>{x.bias_ids, x.bias_len, "bias_ids", "bias_len"},
        {x.bias_values, x.bias_len, "bias_values", "bias_len"},
        {x.allowed_ids, x.allowed_len, "allowed_ids", "allowed_len"},
        {x.banned_ids, x.banned_len, "banned_ids", "banned_len"},
        {x.allowed_bitmask, x.allowed_bitmask_words, "allowed_bitmask", "allowed_bitmask_words"}}) {
    std::string p = ArrayProblem(pointer, len, name + "." + field, len_field);
    if (!p.empty()) return p;
  }
  // An allow list given but empty would allow no id: NULL is "every id".
  if (x.allowed_ids != nullptr && x.allowed_len == 0) {
    return name + ".allowed_ids is not NULL with allowed_len = 0: an empty list allows no id; "
                  "pass NULL to allow every id";
  }
  if (outputs && x.top_logprobs > 0 && (x.top_ids == nullptr || x.top_logprob_values == nullptr)) {
    return name + ".top_logprobs = " + std::to_string(x.top_logprobs) +
           " needs top_ids and top_logprob_values (one is NULL)";
  }
  return {};
}

void WriteExtras(const Token& t, const exactsample_extras& x) {
  if (x.processed_logprob != nullptr) *x.processed_logprob = t.processed_logprob;
  for (size_t j = 0; j < t.top_count; ++j) {
    x.top_ids[j] = t.top[j].id;
    x.top_logprob_values[j] = t.top[j].logprob;
  }
  if (x.top_count != nullptr) *x.top_count = t.top_count;
  if (x.rank != nullptr) *x.rank = t.rank;
}

std::optional<LogitType> LogitTypeOf(int logits_type) {
  switch (logits_type) {
    case EXACTSAMPLE_LOGITS_F32: return LogitType::f32;
    case EXACTSAMPLE_LOGITS_F16: return LogitType::f16;
    case EXACTSAMPLE_LOGITS_BF16: return LogitType::bf16;
    default: return std::nullopt;
  }
}

}  // namespace exactsample::c_abi
