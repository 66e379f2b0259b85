#include "tools/cli/audit_verification.hpp"

#include <cmath>

namespace exactsample::cli {
namespace {

// A traced sample() call on a row with history `h`; the generator is a
// throwaway one, the same on every engine.
std::optional<TracedToken> TraceRow(const Request& r, Engine engine, uint64_t seed,
                                    Workspace& ws) {
  TracedToken traced;
  Pcg32 throwaway = stream(seed, Purpose::sample);
  const auto t = sample(r, throwaway, ws, {.engine = engine, .trace = &traced.trace});
  if (!t) return std::nullopt;
  traced.token = *t;
  return traced;
}

}  // namespace

EngineRun RunVerificationTraced(const VerificationCase& c, Engine engine, Workspace& ws) {
  EngineRun run;
  const auto v = RunVerification(c, ws, {.engine = engine});
  if (!v) {
    run.error = v.error();
    return run;
  }
  run.counts = VerifyCounts{v->accepted, v->draws};
  const Request target = c.TargetRequest();
  std::vector<int32_t> h = c.generated;
  const bool greedy = c.params.temperature == 0.0;
  for (size_t j = 0; !greedy && j < c.draft_rows.size(); ++j) {
    h.resize(c.generated.size());
    h.insert(h.end(), c.draft_ids.begin(), c.draft_ids.begin() + j);
    const Request r{c.draft_rows[j], c.prompt, h, c.draft_params.value_or(c.params)};
    if (auto traced = TraceRow(r, engine, c.seed, ws)) run.draft_rows.push_back(*traced);
  }
  for (size_t j = 0; j < v->tokens.size(); ++j) {
    h.resize(c.generated.size());
    h.insert(h.end(), c.draft_ids.begin(), c.draft_ids.begin() + j);
    Request r = target;
    r.logits = c.target_rows[j];
    r.generated = h;
    auto traced = TraceRow(r, engine, c.seed, ws).value_or(TracedToken{});
    traced.token = v->tokens[j];
    traced.trace.u = NAN;
    traced.trace.cdf_at_choice = NAN;
    // The page's accounting: an accepted draft's test took one draw.
    traced.draws_u32 = j + 1 == v->tokens.size() ? 2 * v->draws : greedy ? 0 : 2 * (j + 1);
    run.tokens.push_back(std::move(traced));
  }
  return run;
}

}  // namespace exactsample::cli
