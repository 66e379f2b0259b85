// A replay case with "draft_ids" is a verification (docs/spec.md, "Speculative decoding"):
//   {"name", "target_logits": [[...], ...] (γ + 1 rows),
//    "draft_logits": [[...], ...] (γ rows; a greedy target needs none),
//    "draft_ids": [...], "params": {...}, "draft_params": {...} (absent:
//    params; no bias or mask fields: those apply to the target rows only),
//    "prompt": [...], "generated": [...] (history before the drafts), "seed"}
// rows as a case's logits. Its output line is a result line with
// "accepted" and "rng_draws_consumed" (uniform_f64 draws) added.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "exactsample/speculative.hpp"
#include "tools/cli/replay_format.hpp"

namespace exactsample::cli {

struct VerificationCase {
  std::string name;
  std::vector<std::vector<float>> target_rows, draft_rows;
  std::vector<int32_t> draft_ids;
  SamplingParams params;
  BiasAndMaskLists lists;
  std::optional<SamplingParams> draft_params;
  std::vector<int32_t> prompt, generated;
  uint64_t seed = 0;

  // The request whose history precedes the drafts (its logits unused).
  Request TargetRequest() const;
  // Views of the rows for verify(); `views` holds them.
  Drafts View(std::vector<std::span<const float>>& views) const;
};

bool IsVerification(const nlohmann::json& json);

// The case, or the error that names the bad field.
Result<VerificationCase> ParseVerification(const nlohmann::json& json);

// verify() on a fresh stream(seed, Purpose::sample).
Result<Verified> RunVerification(const VerificationCase& c, Workspace& ws,
                                 const SampleOptions& options);

std::string VerificationLine(const std::string& name, const Verified& v, bool top_logprobs);

}  // namespace exactsample::cli
