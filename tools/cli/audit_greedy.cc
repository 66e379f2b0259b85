#include "tools/cli/audit_greedy.hpp"

#include <chrono>
#include <filesystem>
#include <iostream>
#include <set>

#include "tools/lib/greedy_stream.hpp"
#include "tools/lib/npy.hpp"
#include "tools/lib/platform.hpp"
#include "tools/cli/audit_report.hpp"
#include "tools/cli/json_lines.hpp"
#include "tools/cli/replay_format.hpp"

namespace exactsample::cli {
namespace {

using nlohmann::json;

Error StreamError(const std::string& message) {
  return {ErrorCode::invalid_parameter, "stream", message};
}

// One line's stream; `rows` holds the logits its spans point into.
Result<GreedyStream> ParseStream(const json& j, const std::filesystem::path& folder,
                                 npy::Matrix& rows) {
  static const std::set<std::string> kKeys{"name",      "logits", "ids", "prompt",
                                           "generated", "params"};
  if (!j.is_object()) return StreamError("expected an object");
  for (const auto& [key, value] : j.items()) {
    if (!kKeys.contains(key)) return StreamError("unknown field \"" + key + "\"");
  }
  if (j.contains("name") && !j["name"].is_string()) return StreamError("name: not a string");
  if (!j.contains("logits") || !j["logits"].is_string()) {
    return StreamError("logits: missing or not the path of a .npy file");
  }
  const std::string npy_path = (folder / j["logits"].get<std::string>()).string();
  if (auto e = npy::Read(npy_path, rows)) return *e;
  GreedyStream s;
  for (size_t t = 0; t < rows.rows; ++t) s.rows.push_back(rows.row(t));
  s.params.temperature = 0.0;
  if (j.contains("params")) {
    if (auto e = ParseParams(j["params"], s.params); !e) return e.error();
  }
  if (!j.contains("ids")) return StreamError("ids: missing");
  for (auto [field, ids] : {std::pair{"ids", &s.other_ids}, std::pair{"prompt", &s.prompt},
                            std::pair{"generated", &s.generated}}) {
    if (!j.contains(field)) continue;
    if (auto e = ParseIds(j[field], field, rows.cols, *ids); !e) return e.error();
  }
  if (s.other_ids.size() > rows.rows) {
    return StreamError("ids: " + std::to_string(s.other_ids.size()) + " ids for the " +
                       std::to_string(rows.rows) + " rows of " + npy_path +
                       "; give one row of logits per step");
  }
  return s;
}

}  // namespace

int AuditGreedyStreams(const AuditOptions& o) {
  const auto start = std::chrono::steady_clock::now();
  const auto lines = ReadJsonLines(o.greedy_streams);
  if (!lines) {
    std::cerr << "exactsample audit: " << lines.error().message << "\n";
    return 2;
  }
  const std::filesystem::path folder = std::filesystem::path(o.greedy_streams).parent_path();
  AuditReport report(o.json);
  size_t steps = 0, agreed = 0, steps_agreed = 0;
  for (size_t i = 0; i < lines->size(); ++i) {
    const JsonLine& line = (*lines)[i];
    npy::Matrix rows;
    const auto s = ParseStream(line.value, folder, rows);
    const auto v = s ? CompareGreedyStream(*s, o.tie_tolerance) : Result<GreedyVerdict>(s.error());
    if (!v) {
      std::cerr << "exactsample audit: " << Where(o.greedy_streams, line)
                << v.error().message << "\n";
      return 2;
    }
    const std::string label = line.value.contains("name")
                                  ? line.value["name"].get<std::string>()
                                  : "stream " + std::to_string(i);
    steps_agreed += v->steps_agreed;
    if (v->outcome == GreedyVerdict::Outcome::agreed) {
      ++agreed;
      steps += v->steps_agreed;
    } else {
      steps += v->steps_agreed + 1;
      report.Greedy({i, label}, *v, o.tie_tolerance);
    }
  }
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return report.Summary({{"mode", "greedy-streams"},
                  {"streams", lines->size()},
                  {"steps_compared", steps},
                  {"steps_agreed", steps_agreed},
                  {"streams_agreed", agreed},
                  {"near_ties", report.near_ties()},
                  {"divergences", report.divergences()},
                  {"tie_tolerance", o.tie_tolerance},
                  {"architecture", platform::Describe()},
                  {"time_s", seconds}},
                        steps);
}

}  // namespace exactsample::cli
