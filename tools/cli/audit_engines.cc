#include "tools/cli/audit_engines.hpp"

#include <algorithm>

#include "tools/cli/audit_verification.hpp"

namespace exactsample::cli {

EngineRun RunTraced(const AuditRequest& request, Engine engine, Workspace& ws) {
  EngineRun run;
  if (request.rejected) {
    run.error = request.rejected;
    return run;
  }
  if (request.verification) return RunVerificationTraced(*request.verification, engine, ws);
  Pcg32 rng = stream(request.seed, Purpose::sample);
  std::vector<int32_t> generated = request.generated;
  size_t checked = 0;
  ChainState state;  // mirostat's mu and adaptive-p's average, as replay carries them
  for (int64_t step = 0; step < request.steps; ++step) {
    Request req =
        request.lists.With({request.logits, request.prompt, generated, request.params});
    if (!request.logits16.empty()) {  // an f16 .npy: the engines read its words
      req.logits = {};
      req.logits16 = request.logits16;
      req.logits_type = LogitType::f16;
    }
    TracedToken traced;
    const auto t = sample(req, rng, ws,
                          {.engine = engine, .trace = &traced.trace,
                           .generated_checked = checked, .chain_state = &state});
    if (!t) {
      run.error = t.error();
      break;
    }
    traced.token = *t;
    traced.draws_u32 = rng.draws_u32();
    generated.push_back(t->id);
    checked = generated.size();  // only new ids are checked
    run.tokens.push_back(std::move(traced));
  }
  return run;
}

std::string CountsText(const std::optional<VerifyCounts>& counts) {
  if (!counts) return "no counts";
  return "accepted " + std::to_string(counts->accepted) + ", rng_draws_consumed " +
         std::to_string(counts->draws);
}

std::string Outcome(const EngineRun& run, size_t t) {
  if (t < run.tokens.size()) {
    const Token& token = run.tokens[t].token;
    return "id " + std::to_string(token.id) + ", logprob " + Decimal(token.logprob) +
           " (" + HexBits(token.logprob) + ")";
  }
  if (run.error) return "rejected: " + run.error->message;
  return "no token (" + std::to_string(run.tokens.size()) + " in all)";
}

bool CompareRuns(const RequestRef& r, const std::string& a_name, const EngineRun& a,
                 const std::string& b_name, const EngineRun& b, AuditReport& report) {
  for (size_t j = 0; j < std::min(a.draft_rows.size(), b.draft_rows.size()); ++j) {
    if (const auto d = FirstDifference(a.draft_rows[j], b.draft_rows[j])) {
      const std::string name = r.name + " (draft row " + std::to_string(j) + ")";
      report.EngineMismatch({r.index, name}, j, a_name, a.draft_rows[j], b_name,
                            b.draft_rows[j], *d);
      return false;
    }
  }
  const size_t n = std::min(a.tokens.size(), b.tokens.size());
  for (size_t t = 0; t < n; ++t) {
    if (const auto d = FirstDifference(a.tokens[t], b.tokens[t])) {
      report.EngineMismatch(r, t, a_name, a.tokens[t], b_name, b.tokens[t], *d);
      return false;
    }
  }
  const bool same_error =
      a.error.has_value() == b.error.has_value() &&
      (!a.error || (a.error->code == b.error->code && a.error->message == b.error->message));
  if (a.tokens.size() != b.tokens.size() || !same_error ||
      a.draft_rows.size() != b.draft_rows.size()) {
    report.OutcomeMismatch(r, n, a_name, Outcome(a, n), b_name, Outcome(b, n));
    return false;
  }
  if (a.counts != b.counts) {
    report.OutcomeMismatch(r, n, a_name, CountsText(a.counts), b_name, CountsText(b.counts));
    return false;
  }
  return true;
}

}  // namespace exactsample::cli
