// JSON input for the program's files: parsing with a bounded depth, numbers
// and numeric strings, integers in a range, and values described briefly in
// messages (never serialised whole).
//
// A numeric string is JSON number syntax (-?(0|[1-9][0-9]*)(.[0-9]+)?
// ([eE][+-]?[0-9]+)?, nothing before or after) or one of "inf", "-inf",
// "nan"; tools/spec_sampler.py follows the same grammar.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

#include "exactsample/exactsample.hpp"

namespace exactsample::cli {

// Files nest no deeper than this (a replay case's logits sit at depth 4).
inline constexpr int kMaxJsonDepth = 32;

// The parsed text, or an error (field "file") starting with `where`.
Result<nlohmann::json> ParseJson(std::string_view text, const std::string& where);

// A short description of a value for messages: scalars as written
// (integral numbers as integers, long strings cut), containers by size.
std::string Brief(const nlohmann::json& v);

// A JSON number, or a numeric string; a value beyond the f64 range is an
// error. Errors (invalid_parameter) name `field`.
Result<double> ParseReal(const nlohmann::json& v, const std::string& field);

// An integer in [lo, hi]; the message gives the range.
Result<int64_t> ParseInt(const nlohmann::json& v, const std::string& field,
                         int64_t lo, int64_t hi);
Result<uint64_t> ParseUnsigned(const nlohmann::json& v, const std::string& field);

// An invalid_parameter error naming `field`, its message "<field>: <why>".
Error FieldError(const std::string& field, const std::string& why);

}  // namespace exactsample::cli
