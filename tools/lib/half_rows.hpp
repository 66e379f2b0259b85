// 16-bit rows for the tools: f32 values rounded to f16 or bf16 words (the
// rows a runtime holds), and the names of the logit types on the command
// line ("f32", "f16", "bf16").
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "exactsample/exactsample.hpp"

namespace exactsample::tools {

// The nearest f16 or bf16 word to x, ties to even (beyond f16's range: inf;
// NaN stays NaN, quiet). Widening the word back (exact) gives x when x is
// an f16 or bf16 value.
uint16_t F32ToF16(float x);
uint16_t F32ToBf16(float x);
std::vector<uint16_t> NarrowRow(std::span<const float> x, LogitType type);

// "f32", "f16" or "bf16".
std::string TypeName(LogitType type);
std::optional<LogitType> ParseType(const std::string& name);

}  // namespace exactsample::tools
