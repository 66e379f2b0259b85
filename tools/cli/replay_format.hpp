// The replay case format: a JSON object {"cases": [...]}; each case has
// name, logits (numbers, or numeric strings such as "-inf" and "2.88"; each
// read as f64 and rounded to f32, a finite value beyond the f32 range being
// an error), params (the spec's field names, missing fields take the
// defaults, and the library's: top_logprobs, penalty_last_n, logit_bias,
// allowed_token_ids, banned_token_ids), prompt (ids), seed (unsigned 64-bit)
// and steps (default 12, at most kMaxSteps), and may carry its expected ids,
// logprobs, processed_logprobs and top_logprobs (not read); any other field
// is an error.
#pragma once

#include <cstdint>
#include <span>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "exactsample/exactsample.hpp"
#include "tools/cli/json_values.hpp"

namespace exactsample::cli {

// The most tokens one case or request may ask for.
inline constexpr int64_t kMaxSteps = 65536;

// What a params object gives beyond SamplingParams: the logit bias
// ("logit_bias": {"id": bias}), the mask ("allowed_token_ids",
// "banned_token_ids") and DRY's breakers ("dry_sequence_breakers"), owned
// here and viewed by a Request.
struct BiasAndMaskLists {
  std::vector<int32_t> bias_ids;
  std::vector<double> bias_values;
  std::vector<int32_t> allowed, banned;
  std::vector<std::vector<int32_t>> breakers;
  // A chain name the reader could not read, refused by the checks in the
  // page's order (Chain::unknown views it).
  std::string chain_unknown;

  Request With(const Request& request) const {
    Request out = request;
    if (!chain_unknown.empty()) out.params.chain.unknown = chain_unknown;
    out.bias = {bias_ids, bias_values};
    out.mask.allowed = allowed;
    out.mask.banned = banned;
    breaker_views.assign(breakers.begin(), breakers.end());
    out.params.dry_sequence_breakers = breaker_views;
    return out;
  }

 private:
  mutable std::vector<std::span<const int32_t>> breaker_views;  // of `breakers`
};

struct ReplayCase {
  std::string name;
  std::vector<float> logits;
  SamplingParams params;
  BiasAndMaskLists lists;
  std::vector<int32_t> prompt;
  uint64_t seed = 0;
  int64_t steps = 12;
};

// The error for an id outside [0, V), in the library's words: "ID: outside
// [0, V) with V = N" (`id` says which, e.g. "allowed_token_ids[0] = 7").
Error IdOutside(const std::string& field, const std::string& id, size_t vocab);
// A logit_bias key as an id: the canonical decimal of one ("0", "17"; no
// sign, spaces or leading zeros), below vocab when vocab > 0. Python's
// module and tools/spec_sampler.py follow the same rule and words.
Result<int32_t> BiasKeyId(const std::string& key, size_t vocab);
// An allowed_token_ids given but empty allows no id: an error (degenerate),
// not "every id allowed".
Error EmptyAllowList();

// The pieces of a case, also read by the audit's request files. Errors name
// the field; ids outside [0, vocab) are invalid_ids errors (vocab 0: ids
// outside int32 only, the sampler checks the rest). Without `lists`,
// logit_bias and the mask fields are refused.
Result<std::monostate> ParseParams(const nlohmann::json& v, SamplingParams& p,
                                   BiasAndMaskLists* lists = nullptr, size_t vocab = 0);
Result<std::monostate> ParseIds(const nlohmann::json& v, const std::string& field,
                                size_t vocab, std::vector<int32_t>& ids);
// The f32 a logit rounds to; a finite value beyond the f32 range is an
// error (only "inf" and "-inf" are infinite logits).
Result<float> ParseLogit(const nlohmann::json& v, const std::string& field);
// An array of logits, each named field[i] in errors.
Result<std::monostate> ParseRow(const nlohmann::json& v, const std::string& field,
                                std::vector<float>& row);
// "seed" (required) and "steps" (optional) of an object.
Result<std::monostate> ParseSeedAndSteps(const nlohmann::json& j, uint64_t& seed,
                                         int64_t& steps);

// The "cases" array of a replay file ("-": standard input), or an error
// that names the file.
Result<nlohmann::json> ReadCaseFile(const std::string& path);
// The same from the file's text; errors start with `where`.
Result<nlohmann::json> ParseCaseFile(std::string_view text, const std::string& where);

// The case's name as its output line gives it: its "name", else "case i".
std::string CaseName(const nlohmann::json& json, size_t index);

// A case the file describes, or the error that names the bad field.
Result<ReplayCase> ParseCase(const nlohmann::json& json);

// One output line: {"name", "ids", "logprobs", "processed_logprobs"} (and
// "top_logprobs", one list of [id, logprob] pairs per token, when
// `top_logprobs`) or {"name", "error"}. A -inf logprob is written "-inf",
// a numeric string of the replay grammar: every value reads back exactly.
nlohmann::ordered_json ResultJson(const std::string& name, std::span<const Token> tokens,
                                  bool top_logprobs);
std::string ResultLine(const std::string& name, std::span<const Token> tokens,
                       bool top_logprobs);
std::string ErrorLine(const std::string& name, const std::string& error);

}  // namespace exactsample::cli
