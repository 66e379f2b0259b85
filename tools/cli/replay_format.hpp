// The replay case format: a JSON object {"cases": [...]}; each case has
// name, logits (numbers, or strings such as "-inf" and "2.88"; each read as
// f64 and rounded to f32), params (the spec's field names, missing fields
// take the defaults), prompt (ids), seed (unsigned 64-bit) and steps
// (default 12).
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "exactsample/exactsample.hpp"

namespace exactsample::cli {

struct ReplayCase {
  std::string name;
  std::vector<float> logits;
  SamplingParams params;
  std::vector<int32_t> prompt;
  uint64_t seed = 0;
  int64_t steps = 12;
};

// A case the file describes, or the error that names the bad field.
Result<ReplayCase> ParseCase(const nlohmann::json& json);

// One output line: {"name", "ids", "logprobs"} or {"name", "error"}.
std::string ResultLine(const std::string& name, const std::vector<Token>& tokens);
std::string ErrorLine(const std::string& name, const std::string& error);

}  // namespace exactsample::cli
