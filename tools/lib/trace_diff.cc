#include "tools/lib/trace_diff.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <vector>

namespace exactsample {
namespace {

bool SameReal(double a, double b) {
  return std::bit_cast<uint64_t>(a) == std::bit_cast<uint64_t>(b) ||
         (std::isnan(a) && std::isnan(b));
}

std::optional<StageDiff> Scalar(Stage stage, double a, double b) {
  if (SameReal(a, b)) return std::nullopt;
  return StageDiff{stage, -1, a, b};
}

// The first id whose values differ; a shorter row reads NaN past its end.
std::optional<StageDiff> Rows(const std::vector<double>& a,
                              const std::vector<double>& b) {
  for (size_t i = 0; i < std::max(a.size(), b.size()); ++i) {
    const double va = i < a.size() ? a[i] : NAN;
    const double vb = i < b.size() ? b[i] : NAN;
    if (!SameReal(va, vb)) {
      return StageDiff{Stage::penalized, static_cast<int32_t>(i), va, vb};
    }
  }
  return std::nullopt;
}

// The smallest id in one ascending set and not the other.
std::optional<StageDiff> Sets(Stage stage, const std::vector<int32_t>& a,
                              const std::vector<int32_t>& b) {
  const auto [ia, ib] = std::mismatch(a.begin(), a.end(), b.begin(), b.end());
  if (ia == a.end() && ib == b.end()) return std::nullopt;
  // At the first position where they part, the smaller id is the one only
  // its own side has (both are ascending).
  const bool a_has = ib == b.end() || (ia != a.end() && *ia < *ib);
  return StageDiff{stage, a_has ? *ia : *ib, a_has ? 1.0 : 0.0, a_has ? 0.0 : 1.0};
}

// The first rank where the top-N lists part: by id (-1 past the end), else
// by logprob bits.
std::optional<StageDiff> Tops(const Token& a, const Token& b) {
  const auto ta = a.top_logprobs(), tb = b.top_logprobs();
  for (size_t j = 0; j < std::max(ta.size(), tb.size()); ++j) {
    const TopLogprob ea = j < ta.size() ? ta[j] : TopLogprob{-1, NAN};
    const TopLogprob eb = j < tb.size() ? tb[j] : TopLogprob{-1, NAN};
    const auto rank = static_cast<int32_t>(j);
    if (ea.id != eb.id) return StageDiff{Stage::top_ids, rank, double(ea.id), double(eb.id)};
    if (!SameReal(ea.logprob, eb.logprob)) {
      return StageDiff{Stage::top_logprobs, rank, ea.logprob, eb.logprob};
    }
  }
  return std::nullopt;
}

bool Keeps(const std::vector<int32_t>& kept, int32_t id) {
  return std::binary_search(kept.begin(), kept.end(), id);
}

}  // namespace

std::string_view StageName(Stage stage) {
  switch (stage) {
    case Stage::penalized: return "penalized";
    case Stage::max_logit: return "max_logit";
    case Stage::z_all: return "z_all";
    case Stage::logprob: return "logprob";
    case Stage::kept_top_k: return "kept_top_k";
    case Stage::kept_top_p: return "kept_top_p";
    case Stage::kept_min_p: return "kept_min_p";
    case Stage::z_kept: return "z_kept";
    case Stage::u: return "u";
    case Stage::cdf_at_choice: return "cdf_at_choice";
    case Stage::id: return "id";
    case Stage::processed_logprob: return "processed_logprob";
    case Stage::top_ids: return "top_ids";
    case Stage::top_logprobs: return "top_logprobs";
    case Stage::draws_u32: return "draws_u32";
  }
  return "?";
}

std::string_view StageTitle(Stage stage) {
  switch (stage) {
    case Stage::penalized: return "logits after penalties";
    case Stage::max_logit: return "M, the largest logit after penalties";
    case Stage::z_all: return "Z over all ids";
    case Stage::logprob: return "(l[id] - M) - log(Z), the reported logprob";
    case Stage::kept_top_k: return "kept set after top-k";
    case Stage::kept_top_p: return "kept set after top-p";
    case Stage::kept_min_p: return "kept set after min-p";
    case Stage::z_kept: return "Z over the kept set";
    case Stage::u: return "u, the draw";
    case Stage::cdf_at_choice: return "running sum through the chosen id";
    case Stage::id: return "chosen id";
    case Stage::processed_logprob: return "(t[id] - M_K) - log(Z_K), the processed logprob";
    case Stage::top_ids: return "top-N logprobs: the id at a rank";
    case Stage::top_logprobs: return "top-N logprobs: the logprob at a rank";
    case Stage::draws_u32: return "generator position (draws_u32)";
  }
  return "?";
}

bool IsKeptSet(Stage stage) {
  return stage == Stage::kept_top_k || stage == Stage::kept_top_p ||
         stage == Stage::kept_min_p;
}

bool IsInteger(Stage stage) {
  return stage == Stage::id || stage == Stage::top_ids || stage == Stage::draws_u32;
}

std::optional<StageDiff> OutputDifference(const Token& a, const Token& b) {
  if (auto d = Scalar(Stage::processed_logprob, a.processed_logprob, b.processed_logprob)) {
    return d;
  }
  return Tops(a, b);
}

std::optional<StageDiff> FirstDifference(const TracedToken& a,
                                         const TracedToken& b) {
  const Trace& ta = a.trace;
  const Trace& tb = b.trace;
  for (auto d : {Rows(ta.penalized, tb.penalized),
                 Scalar(Stage::max_logit, ta.max_logit, tb.max_logit),
                 Scalar(Stage::z_all, ta.z_all, tb.z_all),
                 Scalar(Stage::logprob, a.token.logprob, b.token.logprob),
                 Sets(Stage::kept_top_k, ta.kept_top_k, tb.kept_top_k),
                 Sets(Stage::kept_top_p, ta.kept_top_p, tb.kept_top_p),
                 Sets(Stage::kept_min_p, ta.kept_min_p, tb.kept_min_p),
                 Scalar(Stage::z_kept, ta.z_kept, tb.z_kept),
                 Scalar(Stage::u, ta.u, tb.u),
                 Scalar(Stage::cdf_at_choice, ta.cdf_at_choice, tb.cdf_at_choice)}) {
    if (d) return d;
  }
  if (a.token.id != b.token.id) {
    return StageDiff{Stage::id, -1, double(a.token.id), double(b.token.id)};
  }
  if (auto d = OutputDifference(a.token, b.token)) return d;
  if (a.draws_u32 != b.draws_u32) {
    return StageDiff{Stage::draws_u32, -1, double(a.draws_u32), double(b.draws_u32)};
  }
  return std::nullopt;
}

StageDiff ExplainOther(const TracedToken& a, const Token& b) {
  const Trace& t = a.trace;
  if (a.token.id == b.id) {
    return StageDiff{Stage::logprob, b.id, a.token.logprob, b.logprob};
  }
  if (b.id < 0 || static_cast<size_t>(b.id) >= t.penalized.size()) {
    return StageDiff{Stage::id, -1, double(a.token.id), double(b.id)};
  }
  // What this library would report for b's id: the reference's formula.
  const double ours = (t.penalized[b.id] - t.max_logit) - std::log(t.z_all);
  if (!SameReal(ours, b.logprob)) {
    return StageDiff{Stage::logprob, b.id, ours, b.logprob};
  }
  // A greedy call (u is NaN) leaves the kept sets empty: nothing to check.
  if (!std::isnan(t.u)) {
    for (auto [stage, kept] : {std::pair{Stage::kept_top_k, &t.kept_top_k},
                               std::pair{Stage::kept_top_p, &t.kept_top_p},
                               std::pair{Stage::kept_min_p, &t.kept_min_p}}) {
      if (!Keeps(*kept, b.id)) return StageDiff{stage, b.id, 0.0, 1.0};
    }
  }
  return StageDiff{Stage::id, -1, double(a.token.id), double(b.id)};
}

}  // namespace exactsample
