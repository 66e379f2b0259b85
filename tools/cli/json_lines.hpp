// JSON Lines files: one JSON value per line, blank lines skipped.
#pragma once

#include <cstddef>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "exactsample/exactsample.hpp"

namespace exactsample::cli {

struct JsonLine {
  size_t line = 0;  // 1-based, for messages
  nlohmann::json value;
};

// Every non-blank line parsed ("-": standard input), or an error naming the
// file and the line.
Result<std::vector<JsonLine>> ReadJsonLines(const std::string& path);

// "FILE line N: " for messages about one line.
std::string Where(const std::string& path, const JsonLine& line);

}  // namespace exactsample::cli
