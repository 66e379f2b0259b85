#include "lib/c_abi/convert.hpp"

#include <cstddef>
#include <tuple>

namespace exactsample::c_abi {

namespace {

// The size of the struct before penalty_last_n: what older callers set.
constexpr uint32_t kParamsSizeBeforeWindow = offsetof(exactsample_params, penalty_last_n);

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
  if (p.struct_size == kParamsSizeBeforeWindow) return {};
  const std::string size = StructSizeProblem("exactsample_params", p.struct_size,
                                             sizeof(exactsample_params),
                                             "exactsample_params_init sets it");
  return size.empty() || prefix.empty() ? size : prefix + "params: " + size;
}

SamplingParams ToParams(const exactsample_params& p) {
  SamplingParams s{p.temperature, p.repetition_penalty, p.presence_penalty,
                   p.frequency_penalty, p.top_k, p.top_p, p.min_p};
  if (p.struct_size == sizeof(exactsample_params)) s.penalty_last_n = p.penalty_last_n;
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
