#include "tools/cli/audit_report.hpp"

#include <bit>
#include <charconv>
#include <cinttypes>
#include <cmath>
#include <cstdio>
#include <iostream>

namespace exactsample::cli {
namespace {

using nlohmann::ordered_json;

ordered_json Real(double v) { return {{"decimal", Decimal(v)}, {"bits", HexBits(v)}}; }
std::string RealText(double v) { return Decimal(v) + " (" + HexBits(v) + ")"; }

std::string Quoted(const std::string& s) { return nlohmann::json(s).dump(); }

ordered_json Finding(const char* kind, const RequestRef& r) {
  return {{"kind", kind}, {"request", r.index}, {"name", r.name}};
}

std::string MismatchHeader(const RequestRef& r, size_t token, const std::string& a,
                           const std::string& b) {
  return "MISMATCH request " + std::to_string(r.index) + " " + Quoted(r.name) +
         ", token " + std::to_string(token) + ": " + a + " vs " + b + "\n";
}

// Names padded to one column.
std::string Pad(const std::string& name, size_t width) {
  return "    " + name + std::string(width > name.size() ? width - name.size() : 0, ' ') + "  ";
}

const std::vector<int32_t>& KeptSet(const Trace& t, Stage s) {
  return s == Stage::kept_top_k ? t.kept_top_k
         : s == Stage::kept_top_p ? t.kept_top_p
                                  : t.kept_min_p;
}

ordered_json StageValue(const StageDiff& d, double v) {
  if (IsKeptSet(d.stage)) return v != 0;
  if (IsInteger(d.stage)) return static_cast<int64_t>(v);
  return Real(v);
}

// One side's value; `trace` (when the side has one) adds a kept set's size.
std::string StageValueText(const StageDiff& d, double v, const Trace* trace) {
  if (IsKeptSet(d.stage)) {
    std::string s = (v != 0 ? "keeps id " : "does not keep id ") + std::to_string(d.at_id);
    if (trace) s += " (|K| = " + std::to_string(KeptSet(*trace, d.stage).size()) + ")";
    return s;
  }
  if (IsInteger(d.stage)) return std::to_string(static_cast<int64_t>(v));
  return RealText(v);
}

// The stage fields of a finding and their text block.
void AddStage(ordered_json& f, std::string& text, const StageDiff& d,
              const std::string& a_name, const Trace* a_trace,
              const std::string& b_name, const Trace* b_trace) {
  f["stage"] = StageName(d.stage);
  f["title"] = StageTitle(d.stage);
  if (d.at_id >= 0) f["at_id"] = d.at_id;
  f["values"] = {StageValue(d, d.a), StageValue(d, d.b)};
  const size_t w = std::max(a_name.size(), b_name.size());
  text += "  first differing stage: " + std::string(StageName(d.stage)) + " (" +
          std::string(StageTitle(d.stage)) + ")" +
          (d.at_id >= 0 && !IsKeptSet(d.stage)
               ? (d.stage == Stage::top_ids || d.stage == Stage::top_logprobs ? ", at rank "
                                                                               : ", at id ") +
                     std::to_string(d.at_id)
               : "") +
          "\n" + Pad(a_name, w) + StageValueText(d, d.a, a_trace) + "\n" +
          Pad(b_name, w) + StageValueText(d, d.b, b_trace) + "\n";
}

ordered_json TokenJson(const std::string& side, const Token& t,
                       std::optional<uint64_t> draws) {
  ordered_json j{{"side", side}, {"id", t.id}, {"logprob", Real(t.logprob)}};
  if (draws) j["draws_u32"] = *draws;
  return j;
}

std::string TokenText(const std::string& side, size_t w, const Token& t,
                      std::optional<uint64_t> draws) {
  return Pad(side, w) + "id " + std::to_string(t.id) + ", logprob " + RealText(t.logprob) +
         (draws ? ", draws_u32 " + std::to_string(*draws) : "") + "\n";
}

// A summary value as text: strings bare, lists space-separated, reals to
// three significant digits (times and tolerances).
std::string SummaryText(const ordered_json& v) {
  if (v.is_string()) return v.get<std::string>();
  if (v.is_array()) {
    std::string s;
    for (const auto& item : v) {
      if (!s.empty()) s += ' ';
      s += SummaryText(item);
    }
    return s;
  }
  if (v.is_number_float()) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.3g", v.get<double>());
    return buf;
  }
  return v.dump();
}

}  // namespace

std::string Decimal(double v) {
  char buf[64];
  const auto r = std::to_chars(buf, buf + sizeof buf, v);
  return std::string(buf, r.ptr);
}

std::string HexBits(double v) {
  char buf[24];
  std::snprintf(buf, sizeof buf, "0x%016" PRIx64, std::bit_cast<uint64_t>(v));
  return buf;
}

void AuditReport::Emit(const ordered_json& finding, const std::string& text) {
  if (json_) {
    std::cout << finding.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace)
              << std::endl;
  } else {
    std::cout << text << std::flush;
  }
}

void AuditReport::EngineMismatch(const RequestRef& r, size_t token,
                                 const std::string& a_name, const TracedToken& a,
                                 const std::string& b_name, const TracedToken& b,
                                 const StageDiff& d) {
  ++mismatches_;
  ordered_json f = Finding("mismatch", r);
  f["token"] = token;
  f["sides"] = {a_name, b_name};
  std::string text = MismatchHeader(r, token, a_name, b_name);
  AddStage(f, text, d, a_name, &a.trace, b_name, &b.trace);
  f["tokens"] = {TokenJson(a_name, a.token, a.draws_u32),
                 TokenJson(b_name, b.token, b.draws_u32)};
  const size_t w = std::max(a_name.size(), b_name.size());
  text += "  tokens:\n" + TokenText(a_name, w, a.token, a.draws_u32) +
          TokenText(b_name, w, b.token, b.draws_u32);
  Emit(f, text);
}

void AuditReport::AgainstMismatch(const RequestRef& r, size_t token,
                                  const std::string& b_name, const TracedToken& a,
                                  const Token& b, const StageDiff& d) {
  ++mismatches_;
  const std::string a_name = "library";
  ordered_json f = Finding("mismatch", r);
  f["token"] = token;
  f["sides"] = {a_name, b_name};
  std::string text = MismatchHeader(r, token, a_name, b_name);
  AddStage(f, text, d, a_name, &a.trace, b_name, nullptr);
  f["tokens"] = {TokenJson(a_name, a.token, a.draws_u32),
                 TokenJson(b_name, b, std::nullopt)};
  const size_t w = std::max(a_name.size(), b_name.size());
  text += "  tokens:\n" + TokenText(a_name, w, a.token, a.draws_u32) +
          TokenText(b_name, w, b, std::nullopt);
  const Trace& t = a.trace;
  f["library_trace"] = {{"max_logit", Real(t.max_logit)},
                        {"z_all", Real(t.z_all)},
                        {"kept_sizes", {t.kept_top_k.size(), t.kept_top_p.size(),
                                        t.kept_min_p.size()}},
                        {"z_kept", Real(t.z_kept)},
                        {"u", Real(t.u)},
                        {"cdf_at_choice", Real(t.cdf_at_choice)}};
  text += "  library trace at this token:\n"
          "    M              " + RealText(t.max_logit) + "\n"
          "    Z              " + RealText(t.z_all) + "\n"
          "    |K|            after top-k " + std::to_string(t.kept_top_k.size()) +
          ", top-p " + std::to_string(t.kept_top_p.size()) + ", min-p " +
          std::to_string(t.kept_min_p.size()) + "\n"
          "    Z over K       " + RealText(t.z_kept) + "\n"
          "    u              " + RealText(t.u) + "\n"
          "    cdf at choice  " + RealText(t.cdf_at_choice) + "\n";
  Emit(f, text);
}

void AuditReport::OutcomeMismatch(const RequestRef& r, size_t token,
                                  const std::string& a_name, const std::string& a_outcome,
                                  const std::string& b_name, const std::string& b_outcome) {
  ++mismatches_;
  ordered_json f = Finding("mismatch", r);
  f["token"] = token;
  f["sides"] = {a_name, b_name};
  f["stage"] = "outcome";
  f["title"] = "result or error";
  f["values"] = {a_outcome, b_outcome};
  const size_t w = std::max(a_name.size(), b_name.size());
  Emit(f, MismatchHeader(r, token, a_name, b_name) +
              "  first differing stage: outcome (result or error)\n" +
              Pad(a_name, w) + a_outcome + "\n" + Pad(b_name, w) + b_outcome + "\n");
}

void AuditReport::Rejected(const RequestRef& r, const std::string& message) {
  ++rejected_;
  ordered_json f = Finding("rejected", r);
  f["message"] = message;
  Emit(f, "rejected request " + std::to_string(r.index) + " " + Quoted(r.name) +
              " (alike on every side): " + message + "\n");
}

void AuditReport::Greedy(const RequestRef& r, const GreedyVerdict& v, double tolerance) {
  const bool tie = v.outcome == GreedyVerdict::Outcome::near_tie;
  ++(tie ? near_ties_ : divergences_);
  const double gap = std::fabs(v.l_ours - v.l_theirs);
  ordered_json f = Finding(tie ? "near_tie" : "divergence", r);
  f["step"] = v.step;
  f["ids"] = {v.ours, v.theirs};
  f["logits"] = {Real(v.l_ours), Real(v.l_theirs)};
  f["gap"] = Real(gap);
  f["range"] = Real(v.range);
  f["tolerance"] = Real(tolerance);
  f["threshold"] = Real(v.threshold);
  Emit(f, std::string(tie ? "NEAR-TIE" : "DIVERGENCE") + " stream " +
              std::to_string(r.index) + " " + Quoted(r.name) + ", step " +
              std::to_string(v.step) + ": library id " + std::to_string(v.ours) +
              ", other id " + std::to_string(v.theirs) + "\n    logits " +
              RealText(v.l_ours) + " and " + RealText(v.l_theirs) + "\n    gap " +
              RealText(gap) + (tie ? " <= " : " > ") + Decimal(tolerance) +
              " x range " + Decimal(v.range) + " = " + Decimal(v.threshold) +
              (tie ? ": accepted as a near-tie" : ": a real divergence") +
              "; comparison stops here\n");
}

int AuditReport::Summary(ordered_json summary, size_t compared) {
  const bool pass = mismatches_ == 0 && divergences_ == 0;
  summary["result"] = compared == 0 ? "nothing compared" : pass ? "pass" : "fail";
  ordered_json f{{"kind", "summary"}};
  f.update(summary);
  std::string text = "summary:";
  for (const auto& [key, value] : summary.items()) {
    text += "\n  " + key + ": " + SummaryText(value);
  }
  Emit(f, text + "\n");
  if (compared == 0) {
    std::cerr << "exactsample audit: nothing compared: no request produced a token "
                 "(no requests, every one rejected, or steps 0)\n";
    return 2;
  }
  return pass ? 0 : 1;
}

}  // namespace exactsample::cli
