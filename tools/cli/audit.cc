// `exactsample audit` without --greedy-streams: every request on the
// reference engine and on the fast engine on every supported target, and
// against another implementation's output when --against is given.
#include "tools/cli/audit.hpp"
#include "tools/cli/commands.hpp"

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <iostream>

#include "exactsample/targets.hpp"
#include "exactsample/testing.hpp"
#include "tools/cli/audit_against.hpp"
#include "tools/cli/audit_engines.hpp"
#include "tools/cli/audit_greedy.hpp"
#include "tools/lib/platform.hpp"

namespace exactsample::cli {
namespace {

std::vector<std::string> SupportedTargets() {
  std::vector<std::string> names;
  for (const TargetInfo& t : compiled_targets()) {
    if (t.supported) names.push_back(t.name);
  }
  return names;
}

}  // namespace

int Audit(const AuditOptions& o) {
  const std::string* files[] = {&o.replay, &o.logits, &o.requests, &o.against,
                                &o.greedy_streams};
  if (std::count_if(std::begin(files), std::end(files),
                    [](const std::string* f) { return *f == "-"; }) > 1) {
    return UsageError("audit", "only one input can be - (standard input)");
  }
  if (!o.greedy_streams.empty()) return AuditGreedyStreams(o);
  const auto start = std::chrono::steady_clock::now();
  const auto inputs = LoadAuditInputs(o);
  if (!inputs) return UsageError("audit", inputs.error().message);
  const std::vector<AuditRequest>& requests = inputs->requests;

  std::vector<OtherResult> others;
  const std::string other_name = std::filesystem::path(o.against).filename().string();
  if (!o.against.empty()) {
    auto read = ReadOtherResults(o.against);
    if (!read) return UsageError("audit", read.error().message);
    others = *read;
    if (others.size() != requests.size()) {
      return UsageError("audit", o.against + " has " + std::to_string(others.size()) +
                                     " result lines for " + std::to_string(requests.size()) +
                                     " requests; give one line per request, in order");
    }
    for (size_t i = 0; i < others.size(); ++i) {
      if (others[i].name && requests[i].named && *others[i].name != requests[i].name) {
        return UsageError("audit", o.against + ": result " + std::to_string(i) + " is for \"" +
                                       *others[i].name + "\", request " + std::to_string(i) +
                                       " is \"" + requests[i].name +
                                       "\"; give the results in input order");
      }
    }
  }

  const std::vector<std::string> targets = SupportedTargets();
  AuditReport report(o.json);
  Workspace ws;
  size_t tokens = 0;
  for (size_t i = 0; i < requests.size(); ++i) {
    const RequestRef ref{i, requests[i].name};
    const EngineRun library = RunTraced(requests[i], Engine::reference, ws);
    tokens += library.tokens.size();
    bool agree = true;
    for (const std::string& target : targets) {
      testing::force_target(target);
      agree &= CompareRuns(ref, "reference", library, "fast/" + target,
                           RunTraced(requests[i], Engine::fast, ws), report);
    }
    testing::force_target("");
    if (!o.against.empty()) {
      agree &= CompareWithOther(ref, library, other_name, others[i], report);
    }
    if (library.error && agree) report.Rejected(ref, library.error->message);
  }

  nlohmann::ordered_json summary{{"mode", "engines"},
                                 {"requests", requests.size()},
                                 {"tokens", tokens},
                                 {"targets", targets},
                                 {"architecture", platform::Describe()}};
  if (!o.against.empty()) summary["against"] = o.against;
  summary["mismatches"] = report.mismatches();
  summary["rejected"] = report.rejected();
  summary["time_s"] =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return report.Summary(summary, tokens);
}

}  // namespace exactsample::cli
