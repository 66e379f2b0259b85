// Random verifications (spec/speculative.md) for the tests: target rows
// near one another, draft rows near the target rows (equal: p == q), drafts
// from the draft distribution or anywhere.
#pragma once

#include <cmath>
#include <optional>
#include <span>
#include <vector>

#include "exactsample/speculative.hpp"
#include "tests/support/random_requests.hpp"

namespace exactsample::test {

using Rows = std::vector<std::vector<float>>;

inline std::vector<std::span<const float>> Spans(const Rows& rows) {
  return {rows.begin(), rows.end()};
}

// A random verification: target rows near one another, draft rows near
// the target rows (or far from them), drafts from the draft rows' tops or
// anywhere the draft distribution holds them.
struct RandomVerification {
  RandomCase base;
  Rows target, draft;
  std::vector<int32_t> ids;
  std::optional<SamplingParams> draft_params;
};

inline RandomVerification MakeVerification(uint64_t seed, size_t max_vocab) {
  CaseMaker make(seed * 31 + 7);
  RandomVerification v{make.Make(seed, max_vocab, seed % 2 == 0), {}, {}, {}, {}};
  const size_t vocab = v.base.logits.size();
  const size_t gamma = 1 + make.Below(8);
  const double spread = make.Chance(0.2) ? 0.0 : make.LogUniform(1e-3, 3.0);
  const auto near = [&](const std::vector<float>& x) {
    std::vector<float> y = x;
    for (float& f : y) {
      if (std::isfinite(f)) f += static_cast<float>(spread * make.Normal());
    }
    return y;
  };
  for (size_t j = 0; j <= gamma; ++j) v.target.push_back(near(v.base.logits));
  for (size_t j = 0; j < gamma; ++j) {
    v.draft.push_back(spread == 0.0 ? v.target[j] : near(v.target[j]));  // p == q at 0
  }
  if (make.Chance(0.3)) {
    SamplingParams dp = make.Params(vocab);
    if (dp.temperature == 0.0) dp.temperature = 1.0;
    v.draft_params = dp;
  }
  const SamplingParams& dp = v.draft_params.value_or(v.base.params);
  Workspace ws;
  for (size_t j = 0; j < gamma; ++j) {
    std::vector<int32_t> h = v.base.generated;
    h.insert(h.end(), v.ids.begin(), v.ids.end());
    const auto q = distribution({v.draft[j], v.base.prompt, h, dp}, ws);
    v.ids.push_back(q && !make.Chance(0.1) ? (*q)[make.Below(static_cast<uint32_t>(q->size()))].id
                                           : static_cast<int32_t>(make.Below(static_cast<uint32_t>(vocab))));
  }
  return v;
}

}  // namespace exactsample::test
