// Which chains the fast engine runs (docs/llama-samplers.md, Engines): the
// steps that are on split into a prefix of the spec's steps in the spec's
// order, which its kernels run, and a tail of steps that read K alone, which
// the reference's own step functions run over K (lib/engine/tail.cc).
#pragma once

#include <array>
#include <cstddef>
#include <span>

#include "exactsample/exactsample.hpp"

namespace exactsample {

struct ChainSplit {
  bool fast = false;  // false: the reference's chain runs the request
  // The prefix holds the temperature: its filters run on t = l / T, as in
  // the spec. Else they run at T = 1 on l, and the tail's temperature step
  // divides K's l.
  bool tempered = false;
  // The tail's first step is top-n-sigma with its threshold over the row,
  // the prefix's top-k moved before it (ChainSplit::Of).
  bool sigma_over_row = false;
  std::array<ChainStep, kChainSteps> steps{};  // the tail's steps, all on
  size_t count = 0;

  std::span<const ChainStep> Tail() const { return {steps.data(), count}; }
  // The parameters the kernels run: `p` with the tail's steps off.
  SamplingParams Prefix(const SamplingParams& p) const;
  // `request` after the checks.
  static ChainSplit Of(const Request& request, const SampleOptions& options);
};

}  // namespace exactsample
