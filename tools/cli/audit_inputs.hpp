// The requests an audit runs: from a replay file, or from a .npy file of
// logits with a requests file or the parameter flags.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "exactsample/exactsample.hpp"
#include "tools/cli/replay_format.hpp"
#include "tools/cli/verification_case.hpp"
#include "tools/lib/npy.hpp"
#include "tools/cli/audit.hpp"

namespace exactsample::cli {

// Like a replay case: rng = stream(seed, Purpose::sample) once, then `steps` tokens, each
// appended to `generated` before the next.
struct AuditRequest {
  std::string name;
  bool named = false;  // the name came from the input, not from the index
  std::span<const float> logits;  // an f16 .npy's rows widened (exact)
  std::span<const uint16_t> logits16;  // and its words, which the engines read
  std::vector<int32_t> prompt;
  std::vector<int32_t> generated;  // ids before the first token
  SamplingParams params;
  BiasAndMaskLists lists;
  uint64_t seed = 0;
  int64_t steps = 12;
  std::optional<Error> rejected;  // a replay case the reader refused
  // A replay case with draft_ids: a verification instead of `steps`
  // tokens (the fields above other than name unused).
  std::shared_ptr<const VerificationCase> verification;
};

struct AuditInputs {
  std::vector<AuditRequest> requests;
  // What the requests' logits point into (moving a vector keeps its buffer).
  npy::Matrix matrix;
  std::vector<std::vector<float>> case_logits;
};

// The inputs, or an error naming the file and the line or field (exit 2).
Result<AuditInputs> LoadAuditInputs(const AuditOptions& options);

}  // namespace exactsample::cli
