// Where two sample() calls part: the first stage of the pipeline whose
// traced values differ. Internal (not installed), used by `exactsample
// audit`; in the library so that the test programs can test it.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

#include "exactsample/exactsample.hpp"

namespace exactsample {

// One call's token, its trace and the generator position after it.
struct TracedToken {
  Token token;
  Trace trace;
  uint64_t draws_u32 = 0;
};

// The order in which stages are compared: the spec's step order, with the
// logprob right after M and Z, the values it is computed from.
enum class Stage {
  penalized,      // logits after steps 1 to 3
  max_logit,      // M over all ids
  z_all,          // Z over all ids
  logprob,        // (l[id] - M) - log(Z)
  kept_top_k,     // K after step 6
  kept_top_p,     // K after step 7
  kept_min_p,     // K after step 8
  z_kept,         // Z over the final K
  u,              // the draw
  cdf_at_choice,  // the running sum through the chosen id
  id,             // the chosen id
  processed_logprob,  // (t[id] - M_K) - log(Z_K)
  top_ids,        // Token::top_logprobs: the id at a rank (at_id: the rank)
  top_logprobs,   // Token::top_logprobs: the logprob at a rank
  draws_u32,      // generator position after the call
};

std::string_view StageName(Stage stage);   // "z_all"
std::string_view StageTitle(Stage stage);  // "Z over all ids"

// True for the stages whose values are kept-set memberships or integers.
bool IsKeptSet(Stage stage);
bool IsInteger(Stage stage);

struct StageDiff {
  Stage stage = Stage::id;
  // penalized: the first id whose values differ; kept sets: the first id in
  // one set and not the other; top_ids, top_logprobs: the rank; -1
  // otherwise.
  int32_t at_id = -1;
  // Side a's and side b's value: the real for the numeric stages (NaN where
  // a side has no value, e.g. past the end of a shorter logits row); 1 or 0
  // for whether the side keeps at_id; the id or the position (exact in a
  // double) for Stage::id and Stage::draws_u32.
  double a = 0;
  double b = 0;
};

// Stages processed_logprob, top_ids and top_logprobs of two tokens: the
// first that differs.
std::optional<StageDiff> OutputDifference(const Token& a, const Token& b);

// The first stage where a and b differ, or nullopt when every stage agrees.
// Reals compare by bits, except that any NaN equals any NaN (a stage the
// call skipped).
std::optional<StageDiff> FirstDifference(const TracedToken& a,
                                         const TracedToken& b);

// Side a is this library's traced call, side b another implementation's
// token, known only by id and logprob. Returns the first stage at which b
// provably differs, deduced from a's trace:
// - same id, other logprob bits: Stage::logprob (b's penalties, M or Z
//   differ; a's trace cannot say which);
// - b's id has a logprob under a's trace other than b's: Stage::logprob at
//   b's id (a = a's logprob for that id, b = b's);
// - b's id is missing from a kept set (b chose it, so b kept it): that
//   kept set, the first one missing it;
// - else Stage::id (the draw or the inverse CDF).
// Precondition: a.token != b (ids or logprob bits differ).
StageDiff ExplainOther(const TracedToken& a, const Token& b);

}  // namespace exactsample
