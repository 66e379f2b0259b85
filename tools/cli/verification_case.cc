#include <algorithm>
#include "tools/cli/verification_case.hpp"

namespace exactsample::cli {
namespace {

using nlohmann::json;

Result<std::monostate> ParseRows(const json& j, const char* field,
                                 std::vector<std::vector<float>>& rows) {
  if (!j.contains(field)) return std::monostate{};  // the verification names what is missing
  const json& v = j[field];
  if (!v.is_array()) {
    return Error{ErrorCode::invalid_parameter, field,
                 std::string(field) + ": expected an array of rows, got " + Brief(v)};
  }
  rows.resize(v.size());
  for (size_t r = 0; r < v.size(); ++r) {
    if (auto e = ParseRow(v[r], std::string(field) + "[" + std::to_string(r) + "]", rows[r]);
        !e) {
      return e.error();
    }
  }
  return std::monostate{};
}

}  // namespace

bool IsVerification(const json& j) { return j.is_object() && j.contains("draft_ids"); }

Request VerificationCase::TargetRequest() const {
  return lists.With({{}, prompt, generated, params});
}

Drafts VerificationCase::View(std::vector<std::span<const float>>& views) const {
  views.clear();
  for (const auto& r : target_rows) views.emplace_back(r);
  for (const auto& r : draft_rows) views.emplace_back(r);
  const std::span<const std::span<const float>> all(views);
  return {.target_rows = all.first(target_rows.size()),
          .draft_rows = all.subspan(target_rows.size()),
          .draft_ids = draft_ids,
          .draft_params = draft_params};
}

Result<VerificationCase> ParseVerification(const json& j) {
  VerificationCase c;
  // As replay cases: an unknown field is refused, not ignored.
  static const char* const kFields[] = {
      "name",    "target_logits", "draft_logits", "draft_ids", "params",
      "draft_params", "prompt",   "generated",    "seed",      "ids",
      "logprobs", "processed_logprobs", "top_logprobs", "accepted", "rng_draws_consumed"};
  for (const auto& [key, value] : j.items()) {
    if (std::find(std::begin(kFields), std::end(kFields), key) == std::end(kFields)) {
      return Error{ErrorCode::invalid_parameter, key,
                   key + ": unknown case field; a verification case has name, target_logits, "
                         "draft_logits, draft_ids, params, draft_params, prompt, generated "
                         "and seed (and may carry its expected results)"};
    }
  }
  if (!j.contains("name") || !j["name"].is_string()) {
    return Error{ErrorCode::invalid_parameter, "name", "name: missing or not a string"};
  }
  c.name = j["name"].get<std::string>();
  if (auto r = ParseRows(j, "target_logits", c.target_rows); !r) return r.error();
  if (auto r = ParseRows(j, "draft_logits", c.draft_rows); !r) return r.error();
  const size_t vocab = c.target_rows.empty() ? 0 : c.target_rows[0].size();
  if (j.contains("params")) {
    if (auto r = ParseParams(j["params"], c.params, &c.lists, vocab); !r) return r.error();
  }
  if (j.contains("draft_params")) {
    // A draft side's parameters are complete in themselves (the defaults
    // where omitted); bias and mask fields are refused as unknown.
    SamplingParams& dp = c.draft_params.emplace();
    if (auto r = ParseParams(j["draft_params"], dp); !r) {
      return Error{r.error().code, "draft_params", "draft_params: " + r.error().message};
    }
  }
  // Ids as int32 here; verify() checks [0, V) in the library's words.
  for (auto [field, ids] : {std::pair{"draft_ids", &c.draft_ids},
                            std::pair{"prompt", &c.prompt},
                            std::pair{"generated", &c.generated}}) {
    if (!j.contains(field)) continue;
    if (auto r = ParseIds(j[field], field, 0, *ids); !r) return r.error();
  }
  if (!j.contains("seed")) return Error{ErrorCode::invalid_parameter, "seed", "seed: missing"};
  const auto seed = ParseUnsigned(j["seed"], "seed");
  if (!seed) return seed.error();
  c.seed = *seed;
  return c;
}

Result<Verified> RunVerification(const VerificationCase& c, Workspace& ws,
                                 const SampleOptions& options) {
  Pcg32 rng = stream(c.seed, Purpose::sample);
  std::vector<std::span<const float>> views;
  return verify(c.TargetRequest(), c.View(views), rng, ws, options);
}

std::string VerificationLine(const std::string& name, const Verified& v, bool top_logprobs) {
  nlohmann::ordered_json line = ResultJson(name, v.tokens, top_logprobs);
  line["accepted"] = v.accepted;
  line["rng_draws_consumed"] = v.draws;
  return line.dump();
}

}  // namespace exactsample::cli
