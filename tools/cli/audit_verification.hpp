// A verification case on one engine, traced for the audit: each row the
// verification reads gets the trace of a traced sample() call on it (the
// same request, history h_j, rows' params), so that the engines' runs can
// be compared stage by stage, the draft rows first (their distributions
// decide the acceptance tests), then the emitted tokens, then the counts.
#pragma once

#include "tools/cli/audit_engines.hpp"
#include "tools/cli/verification_case.hpp"

namespace exactsample::cli {

// The emitted tokens carry their target row's trace (steps 1 to 9; u and
// the running sum are NaN: the verification's draws are its own) and the
// generator position after them; draft_rows the draft rows' traces (a
// sampled target only); counts the accepted drafts and draws. On error the
// error only.
EngineRun RunVerificationTraced(const VerificationCase& c, Engine engine, Workspace& ws);

}  // namespace exactsample::cli
