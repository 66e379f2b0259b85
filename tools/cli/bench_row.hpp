// The row `exactsample bench --logits FILE` times: FILE.npy (or "-", a .npy
// on standard input) holding one row, or FILE.f32 holding raw little-endian
// f32 values. Any other name is refused rather than guessed.
#pragma once

#include <string>
#include <vector>

#include "exactsample/exactsample.hpp"

namespace exactsample::cli {

Result<std::vector<float>> ReadBenchRow(const std::string& path);

}  // namespace exactsample::cli
