#include "tools/cli/json_lines.hpp"

#include <sstream>

#include "tools/cli/json_values.hpp"
#include "tools/lib/input_file.hpp"

namespace exactsample::cli {

Result<std::vector<JsonLine>> ReadJsonLines(const std::string& path) {
  const auto bytes = ReadInputFile(path);
  if (!bytes) return bytes.error();
  std::istringstream in(*bytes);
  std::vector<JsonLine> lines;
  std::string text;
  for (size_t n = 1; std::getline(in, text); ++n) {
    if (text.find_first_not_of(" \t\r") == std::string::npos) continue;
    auto value = ParseJson(text, path + " line " + std::to_string(n));
    if (!value) return value.error();
    lines.push_back({n, std::move(*value)});
  }
  return lines;
}

std::string Where(const std::string& path, const JsonLine& line) {
  return path + " line " + std::to_string(line.line) + ": ";
}

}  // namespace exactsample::cli
