// Running one audit request with traces on one engine, and comparing two
// such runs token by token.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "tools/lib/trace_diff.hpp"
#include "tools/cli/audit_inputs.hpp"
#include "tools/cli/audit_report.hpp"

namespace exactsample::cli {

// A verification's counts (docs/spec.md, "Speculative decoding").
struct VerifyCounts {
  size_t accepted = 0;
  uint64_t draws = 0;  // uniform_f64 draws
  friend bool operator==(const VerifyCounts&, const VerifyCounts&) = default;
};

struct EngineRun {
  std::vector<TracedToken> tokens;
  std::optional<Error> error;  // why the call after the last token failed
  // A verification only: the draft rows traced (compared before the
  // tokens) and the counts (compared after them).
  std::vector<TracedToken> draft_rows;
  std::optional<VerifyCounts> counts;
};

// rng = stream(seed, Purpose::sample) once, then `steps` traced calls, each id appended
// to the history; stops at the first error. A verification: see
// RunVerificationTraced.
EngineRun RunTraced(const AuditRequest& request, Engine engine, Workspace& ws);

// The counts in words.
std::string CountsText(const std::optional<VerifyCounts>& counts);

// The outcome of `run` at token t in words: its id and logprob, its error,
// or that it ended.
std::string Outcome(const EngineRun& run, size_t t);

// Reports the first token where b parts from a (the first differing stage),
// or where their outcomes differ; true when they agree throughout.
bool CompareRuns(const RequestRef& r, const std::string& a_name, const EngineRun& a,
                 const std::string& b_name, const EngineRun& b, AuditReport& report);

}  // namespace exactsample::cli
