// `exactsample audit`: checks that the fast engine equals the reference on
// every supported SIMD target, that the library equals another
// implementation's output (--against), or that two greedy streams from
// different float paths agree up to a near-tie (--greedy-streams).
#pragma once

#include <cstdint>
#include <string>

#include "exactsample/exactsample.hpp"

namespace CLI {
class App;
}

namespace exactsample::cli {

struct AuditOptions {
  // Logits and requests: a replay file, or a .npy file with a requests file
  // or the parameter flags below (applied to every row).
  std::string replay;
  std::string logits;
  std::string requests;
  SamplingParams params;
  uint64_t seed = 0;
  int64_t steps = 12;
  std::string against;  // another implementation's result lines

  std::string greedy_streams;  // the greedy-stream mode's JSON Lines file
  double tie_tolerance = 1e-3;

  bool json = false;
};

// Registers the subcommand; `options` is filled when it is parsed.
CLI::App* AddAuditCommand(CLI::App& app, AuditOptions& options);

// Exit status: 0 everything matched (near-ties accepted count as matched),
// 1 a mismatch or a real divergence, 2 bad input or usage.
int Audit(const AuditOptions& options);

}  // namespace exactsample::cli
