// --against: another implementation's output in the replay line format,
// {"name", "ids", "logprobs"} (optionally "processed_logprobs" and
// "top_logprobs") or {"name", "error"} per case or request, in
// the inputs' order, compared with the library's reference run.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "tools/cli/audit_engines.hpp"

namespace exactsample::cli {

struct OtherResult {
  std::optional<std::string> name;
  std::vector<Token> tokens;
  // Whether the lines give "processed_logprobs" and "top_logprobs" (then
  // compared too).
  bool processed = false;
  bool top = false;
  // A verification's line: "accepted" and "rng_draws_consumed".
  std::optional<VerifyCounts> counts;
  std::optional<std::string> error;
};

// Every line of the file, or an error naming the file and the line.
Result<std::vector<OtherResult>> ReadOtherResults(const std::string& path);

// Reports the first token where the other side parts from the library's run
// (ids, logprob bits, or error-or-not; the stage deduced from the library's
// trace), or where the counts of a verification differ; true when they
// agree. Both rejecting a request agrees, whatever
// the messages (they differ between languages).
bool CompareWithOther(const RequestRef& r, const EngineRun& library,
                      const std::string& other_name, const OtherResult& other,
                      AuditReport& report);

}  // namespace exactsample::cli
