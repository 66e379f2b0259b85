// The row `exactsample bench --logits FILE` times: FILE.npy (or "-", a .npy
// on standard input) holding one row, or FILE.f32 holding raw little-endian
// f32 values. Any other name is refused rather than guessed.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "exactsample/exactsample.hpp"

namespace exactsample::cli {

Result<std::vector<float>> ReadBenchRow(const std::string& path);

// The row a run times: the file's (`path` not empty), else the standard
// row of `vocab` ids from `row_seed` (0: kStandardRowSeed); checked as the
// sampler checks a row.
Result<std::vector<float>> BenchRowOf(const std::string& path, size_t vocab, uint64_t row_seed);

}  // namespace exactsample::cli
