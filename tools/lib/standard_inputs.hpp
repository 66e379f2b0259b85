// The standard inputs of the demo and the benchmarks, made by one generator
// so every figure the project quotes is measured on the same data.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "exactsample/exactsample.hpp"

namespace exactsample {

inline constexpr uint64_t kStandardRowSeed = 20261129;

// f32 logits drawn from N(0, 1.5^2), with 20 ids raised by 8 to 14 (a
// peaked head, like a real model's).
std::vector<float> StandardRow(size_t vocab, uint64_t seed = kStandardRowSeed);

// The standard configurations: plain, topk40, topp, minp, full, greedy.
struct StandardConfig {
  std::string name;
  SamplingParams params;
  size_t history;  // generated ids before the token (drawn from the row)
};
const std::vector<StandardConfig>& StandardConfigs();

// `length` ids in [0, vocab) from a fixed seed: the history of `full`.
std::vector<int32_t> StandardHistory(size_t vocab, size_t length);

// `length` ids in [0, vocab) from a fixed seed with Zipf-like repeats, as a
// long request's text has them: the id of rank r (a fixed shuffle of the
// vocabulary) drawn with probability proportional to 1 / (r + 1).
std::vector<int32_t> ZipfHistory(size_t vocab, size_t length);

}  // namespace exactsample
