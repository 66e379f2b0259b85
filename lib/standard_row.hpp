// The standard logits row of the demo and the benchmarks: f32 logits drawn
// from N(0, 1.5^2), with 20 ids raised by 8 to 14 (a peaked head, like a
// real model's), from a fixed seed. One generator, so every figure the
// project quotes is measured on the same data.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace exactsample {

inline constexpr uint64_t kStandardRowSeed = 20261129;

std::vector<float> StandardRow(size_t vocab, uint64_t seed = kStandardRowSeed);

}  // namespace exactsample
