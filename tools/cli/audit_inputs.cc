#include "tools/cli/audit_inputs.hpp"

#include <set>

#include "tools/cli/json_lines.hpp"
#include "tools/cli/replay_format.hpp"

namespace exactsample::cli {
namespace {

using nlohmann::json;

Error InputError(const std::string& message) {
  return {ErrorCode::invalid_parameter, "input", message};
}

// Every case of the replay file; a case the reader refuses stays in the
// list as rejected, as `exactsample replay` prints an error line for it.
Result<AuditInputs> FromReplay(const std::string& path) {
  const auto cases = ReadCaseFile(path);
  if (!cases) return cases.error();
  AuditInputs in;
  in.case_logits.reserve(cases->size());
  for (size_t i = 0; i < cases->size(); ++i) {
    AuditRequest r;
    r.name = CaseName((*cases)[i], i);
    r.named = (*cases)[i].is_object() && (*cases)[i].contains("name");
    if (IsVerification((*cases)[i])) {
      auto v = ParseVerification((*cases)[i]);
      if (v) {
        r.verification = std::make_shared<const VerificationCase>(std::move(v.value()));
      } else {
        r.rejected = v.error();
      }
      in.requests.push_back(std::move(r));
      continue;
    }
    auto c = ParseCase((*cases)[i]);
    if (!c) {
      r.rejected = c.error();
    } else {
      in.case_logits.push_back(c->logits);
      r.logits = in.case_logits.back();
      r.prompt = c->prompt;
      r.params = c->params;
      r.lists = c->lists;
      r.seed = c->seed;
      r.steps = c->steps;
    }
    in.requests.push_back(std::move(r));
  }
  return in;
}

// One line of a requests file: params, prompt, generated, seed, steps, row
// and an optional name; row defaults to the request's index modulo rows.
Result<AuditRequest> ParseRequest(const json& j, size_t index,
                                  const npy::Matrix& m) {
  static const std::set<std::string> kKeys{"name",      "params", "prompt",
                                           "generated", "seed",   "steps", "row"};
  if (!j.is_object()) return InputError("expected an object");
  for (const auto& [key, value] : j.items()) {
    if (!kKeys.contains(key)) return InputError("unknown field \"" + key + "\"");
  }
  AuditRequest r;
  r.named = j.contains("name");
  if (r.named && !j["name"].is_string()) return InputError("name: not a string");
  r.name = r.named ? j["name"].get<std::string>() : "request " + std::to_string(index);
  size_t row = index % m.rows;
  if (j.contains("row")) {
    const auto v = ParseInt(j["row"], "row", 0, static_cast<int64_t>(m.rows) - 1);
    if (!v) return v.error();
    row = static_cast<size_t>(*v);
  }
  r.logits = m.row(row);
  if (m.type == LogitType::f16) r.logits16 = m.row16(row);
  if (j.contains("params")) {
    if (auto e = ParseParams(j["params"], r.params, &r.lists, m.cols); !e) return e.error();
  }
  for (auto [field, ids] : {std::pair{"prompt", &r.prompt},
                            std::pair{"generated", &r.generated}}) {
    if (!j.contains(field)) continue;
    if (auto e = ParseIds(j[field], field, m.cols, *ids); !e) return e.error();
  }
  if (auto e = ParseSeedAndSteps(j, r.seed, r.steps); !e) return e.error();
  return r;
}

Result<AuditInputs> FromNpy(const AuditOptions& o) {
  AuditInputs in;
  if (auto e = npy::Read(o.logits, in.matrix)) return *e;
  if (in.matrix.rows == 0) return InputError(o.logits + ": no rows");
  if (o.requests.empty()) {  // the flags, for every row
    // Checked once here: a bad flag is bad usage, not a request every side rejects.
    const float one_logit = 0.0f;
    if (auto v = validate(Request{{&one_logit, 1}, {}, {}, o.params}); !v) {
      return InputError("bad flag: " + v.error().message);
    }
    for (size_t i = 0; i < in.matrix.rows; ++i) {
      AuditRequest r;
      r.name = "row " + std::to_string(i);
      r.logits = in.matrix.row(i);
      if (in.matrix.type == LogitType::f16) r.logits16 = in.matrix.row16(i);
      r.params = o.params;
      r.seed = o.seed;
      r.steps = o.steps;
      in.requests.push_back(std::move(r));
    }
    return in;
  }
  const auto lines = ReadJsonLines(o.requests);
  if (!lines) return lines.error();
  for (size_t i = 0; i < lines->size(); ++i) {
    auto r = ParseRequest((*lines)[i].value, i, in.matrix);
    if (!r) return InputError(Where(o.requests, (*lines)[i]) + r.error().message);
    in.requests.push_back(*r);
  }
  return in;
}

}  // namespace

Result<AuditInputs> LoadAuditInputs(const AuditOptions& o) {
  if (!o.replay.empty()) return FromReplay(o.replay);
  if (!o.logits.empty()) return FromNpy(o);
  return InputError("give --replay FILE, --logits FILE.npy or --greedy-streams FILE");
}

}  // namespace exactsample::cli
