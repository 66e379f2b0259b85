// What `exactsample audit` prints: one finding per mismatch (and per
// request both sides reject, per accepted near-tie), then a summary. As
// text, or with --json one JSON object per line. Reals print as the
// shortest decimal that round-trips and as their bits in hex.
#pragma once

#include <cstddef>
#include <nlohmann/json.hpp>
#include <string>

#include "tools/lib/greedy_stream.hpp"
#include "tools/lib/trace_diff.hpp"

namespace exactsample::cli {

// A request (or greedy stream) by position and name.
struct RequestRef {
  size_t index;
  const std::string& name;
};

class AuditReport {
 public:
  explicit AuditReport(bool json) : json_(json) {}

  // Two traced calls part at `token`; d from FirstDifference.
  void EngineMismatch(const RequestRef& r, size_t token, const std::string& a_name,
                      const TracedToken& a, const std::string& b_name,
                      const TracedToken& b, const StageDiff& d);
  // The library's call parts from another implementation's token; d from
  // ExplainOther. The library's trace values are shown too.
  void AgainstMismatch(const RequestRef& r, size_t token, const std::string& b_name,
                       const TracedToken& a, const Token& b, const StageDiff& d);
  // The two sides disagree on whether or where the request fails, or on
  // the number of tokens: each side's outcome in words.
  void OutcomeMismatch(const RequestRef& r, size_t token, const std::string& a_name,
                       const std::string& a_outcome, const std::string& b_name,
                       const std::string& b_outcome);
  // Every side rejects the request alike (not a mismatch).
  void Rejected(const RequestRef& r, const std::string& message);
  // A greedy stream's near-tie or real divergence.
  void Greedy(const RequestRef& r, const GreedyVerdict& v, double tolerance);
  // Prints the summary object with "result" added from the counts ("pass",
  // "fail", or "nothing compared" when `compared` is 0 tokens or steps) and
  // returns the exit status: 0 pass, 1 fail, 2 nothing compared (with the
  // reason on stderr).
  int Summary(nlohmann::ordered_json summary, size_t compared);

  size_t mismatches() const { return mismatches_; }
  size_t rejected() const { return rejected_; }
  size_t near_ties() const { return near_ties_; }
  size_t divergences() const { return divergences_; }

 private:
  void Emit(const nlohmann::ordered_json& finding, const std::string& text);

  bool json_;
  size_t mismatches_ = 0, rejected_ = 0, near_ties_ = 0, divergences_ = 0;
};

// Shortest round-trip decimal ("inf", "nan" for those) and "0x" + 16 hex
// digits of the bits.
std::string Decimal(double v);
std::string HexBits(double v);

}  // namespace exactsample::cli
