// CLI11 checks for option values that CLI11's own conversions would take
// too loosely: "-1" or "1e23" as an unsigned 64-bit integer, "nan" as a
// non-negative number.
#pragma once

#include <CLI/CLI.hpp>

namespace exactsample::cli {

// Decimal digits only, at most 2^64 - 1.
CLI::Validator Unsigned64();
// A finite number >= 0.
CLI::Validator FiniteNonNegative();

}  // namespace exactsample::cli
