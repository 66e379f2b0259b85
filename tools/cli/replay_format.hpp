// The replay case format: a JSON object {"cases": [...]}; each case has
// name, logits (numbers, or numeric strings such as "-inf" and "2.88"; each
// read as f64 and rounded to f32, a finite value beyond the f32 range being
// an error), params (the spec's field names, missing fields take the
// defaults), prompt (ids), seed (unsigned 64-bit) and steps (default 12, at
// most kMaxSteps).
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "exactsample/exactsample.hpp"
#include "tools/cli/json_values.hpp"

namespace exactsample::cli {

// The most tokens one case or request may ask for.
inline constexpr int64_t kMaxSteps = 65536;

struct ReplayCase {
  std::string name;
  std::vector<float> logits;
  SamplingParams params;
  std::vector<int32_t> prompt;
  uint64_t seed = 0;
  int64_t steps = 12;
};

// The pieces of a case, also read by the audit's request files. Errors name
// the field; ids outside [0, vocab) are invalid_ids errors (vocab 0: ids
// outside int32 only, the sampler checks the rest).
Result<std::monostate> ParseParams(const nlohmann::json& v, SamplingParams& p);
Result<std::monostate> ParseIds(const nlohmann::json& v, const std::string& field,
                                size_t vocab, std::vector<int32_t>& ids);
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

// One output line: {"name", "ids", "logprobs"} or {"name", "error"}.
std::string ResultLine(const std::string& name, const std::vector<Token>& tokens);
std::string ErrorLine(const std::string& name, const std::string& error);

}  // namespace exactsample::cli
