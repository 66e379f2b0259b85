// The options of `exactsample audit` and which go together.
#include <CLI/CLI.hpp>

#include "tools/cli/audit.hpp"
#include "tools/cli/option_checks.hpp"
#include "tools/cli/replay_format.hpp"

namespace exactsample::cli {

CLI::App* AddAuditCommand(CLI::App& app, AuditOptions& o) {
  auto* audit = app.add_subcommand(
      "audit",
      "Check parity with evidence: reference vs fast engine on every supported "
      "SIMD target, the library vs another implementation (--against), or "
      "greedy streams under the near-tie rule (--greedy-streams)");

  auto* replay = audit->add_option(
      "--replay", o.replay, "replay file {\"cases\": [...]}: logits and requests");
  auto* logits = audit->add_option(
      "--logits", o.logits, ".npy file of logits: one row (V,) or rows (R, V), f32, f64 or f16 "
      "(read by the engines as 16-bit words)");
  auto* requests = audit->add_option(
      "--requests", o.requests,
      "JSON Lines, one request per line: params, prompt, generated, seed, steps, row");
  logits->excludes(replay);
  requests->needs(logits);

  // Flags that build one request per row of --logits.
  SamplingParams& p = o.params;
  const std::string group = "Request for every row of --logits";
  std::vector<CLI::Option*> flags{
      audit->add_option("--temperature", p.temperature, "0 means greedy")->check(Real()),
      audit->add_option("--top-k", p.top_k)->check(Signed64()),
      audit->add_option("--top-p", p.top_p)->check(Real()),
      audit->add_option("--min-p", p.min_p)->check(Real()),
      audit->add_option("--repetition-penalty", p.repetition_penalty)->check(Real()),
      audit->add_option("--presence-penalty", p.presence_penalty)->check(Real()),
      audit->add_option("--frequency-penalty", p.frequency_penalty)->check(Real()),
      audit->add_option("--penalty-last-n", p.penalty_last_n,
                        "penalty window: the last N tokens (default 0: the whole history)")
          ->check(Signed64()),
      audit->add_option("--seed", o.seed, "unsigned 64-bit; stream(seed, Purpose::sample)")
          ->check(Unsigned64()),
      audit->add_option("--steps", o.steps,
                        "tokens per request (default 12, at most " +
                            std::to_string(kMaxSteps) + ")")
          ->check(CLI::Range(int64_t{0}, kMaxSteps))};
  for (CLI::Option* f : flags) f->group(group)->needs(logits)->excludes(requests);

  auto* against = audit->add_option(
      "--against", o.against,
      "another implementation's output, one {\"name\", \"ids\", \"logprobs\"} "
      "line per case or request, in input order");

  auto* greedy = audit->add_option(
      "--greedy-streams", o.greedy_streams,
      "JSON Lines, one greedy stream per line: logits (.npy, row t = step t), "
      "ids (the other side's greedy ids), prompt, generated, params");
  greedy->excludes(replay, logits, against);
  audit->add_option("--tie-tolerance", o.tie_tolerance,
                    "near-tie if |l[a] - l[b]| <= this times the row's logit "
                    "range (default 1e-3)")
      ->check(FiniteNonNegative())
      ->needs(greedy);

  audit->add_flag("--json", o.json,
                  "one JSON object per finding and a summary object");
  return audit;
}

}  // namespace exactsample::cli
