// A reader for numpy's .npy files holding logits, for `exactsample audit`.
// Internal (not installed): it lives in the library so that the test
// programs, which link only the library, can test it.
//
// Accepted: format versions 1.0, 2.0 and 3.0; dtype '<f4', '<f8' or '<f2'
// (little-endian float32, float64 or float16); C order; shape (V,) for one
// row or (rows, V). f64 values are rounded to the nearest f32 (ties to even),
// as a C cast and the replay reader do: the sampler takes f32 logits, so an
// f64 file is audited on the f32 values it rounds to. A finite f64 beyond
// the f32 range is an error naming it, as in the replay reader (inf and
// -inf stay infinite). f16 values are kept as their 16-bit words (the sampler reads
// them as such, Request::logits16) and also widened to f32 (exact).
// Everything else is refused with a message that names the problem.
#pragma once

#include <cstddef>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "exactsample/exactsample.hpp"

namespace exactsample::npy {

struct Matrix {
  size_t rows = 0;
  size_t cols = 0;
  std::vector<float> values;  // rows * cols, row after row
  bool rounded_from_f64 = false;
  // '<f2': the words, host order, rows * cols (values holds them widened).
  std::vector<uint16_t> words;
  LogitType type = LogitType::f32;  // f16 for '<f2'

  std::span<const float> row(size_t r) const {
    return std::span<const float>(values).subspan(r * cols, cols);
  }
  std::span<const uint16_t> row16(size_t r) const {
    return std::span<const uint16_t>(words).subspan(r * cols, cols);
  }
};

// Fills `out` with the contents of a .npy file (out-parameter: logits files
// can be large, and a Result only hands out a const value). Errors (code
// invalid_logits, field "npy") start with `name`, e.g. the path.
std::optional<Error> Parse(std::string_view bytes, const std::string& name,
                           Matrix& out);
// Read: the file at `path` ("-": standard input).
std::optional<Error> Read(const std::string& path, Matrix& out);

}  // namespace exactsample::npy
