#include "tools/lib/greedy_stream.hpp"

#include <algorithm>
#include <cmath>
#include <string>

namespace exactsample {
namespace {

// max - min over the finite values (penalties never make a logit +inf or NaN
// without sample() refusing the row).
double FiniteRange(const std::vector<double>& l) {
  double lo = INFINITY, hi = -INFINITY;
  for (double v : l) {
    if (std::isfinite(v)) {
      lo = std::min(lo, v);
      hi = std::max(hi, v);
    }
  }
  return hi - lo;
}

}  // namespace

Result<GreedyVerdict> CompareGreedyStream(const GreedyStream& input,
                                          double tolerance) {
  if (input.params.temperature != 0.0) {
    return Error{ErrorCode::invalid_parameter, "temperature",
                 "temperature = " + std::to_string(input.params.temperature) +
                     ": a greedy stream needs 0"};
  }
  Workspace ws;
  Pcg32 rng = stream(0, Purpose::sample);  // greedy tokens take no draw
  std::vector<int32_t> history = input.generated;
  GreedyVerdict v;
  const size_t steps = std::min(input.rows.size(), input.other_ids.size());
  for (size_t t = 0; t < steps; ++t) {
    const Request req{input.rows[t], input.prompt, history, input.params};
    Trace trace;
    const auto token = sample(req, rng, ws, {.engine = Engine::reference, .trace = &trace});
    if (!token) {
      Error e = token.error();
      e.message = "step " + std::to_string(t) + ": " + e.message;
      return e;
    }
    const int32_t theirs = input.other_ids[t];
    if (theirs < 0 || static_cast<size_t>(theirs) >= trace.penalized.size()) {
      return Error{ErrorCode::invalid_ids, "ids",
                   "ids[" + std::to_string(t) + "] = " + std::to_string(theirs) +
                       ": outside [0, V) with V = " +
                       std::to_string(trace.penalized.size())};
    }
    if (token->id != theirs) {
      v.step = t;
      v.ours = token->id;
      v.theirs = theirs;
      v.l_ours = trace.penalized[v.ours];
      v.l_theirs = trace.penalized[theirs];
      v.range = FiniteRange(trace.penalized);
      v.threshold = tolerance * v.range;
      v.outcome = std::fabs(v.l_ours - v.l_theirs) <= v.threshold
                      ? GreedyVerdict::Outcome::near_tie
                      : GreedyVerdict::Outcome::divergence;
      return v;
    }
    history.push_back(theirs);
    ++v.steps_agreed;
  }
  return v;
}

}  // namespace exactsample
