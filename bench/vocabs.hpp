// The vocabulary sizes every benchmark family runs at: LLaMA 2 (32000),
// LLaMA 3 (128256), Qwen 2 (151936), Gemma (262144). Each name ends in
// /<V>, so --benchmark_filter='/128256$' selects one size across families.
#pragma once

#include <cstddef>

namespace exactsample {

inline constexpr size_t kBenchVocabs[] = {32000, 128256, 151936, 262144};

}  // namespace exactsample
