#include "tools/cli/json_lines.hpp"

#include <fstream>

namespace exactsample::cli {

Result<std::vector<JsonLine>> ReadJsonLines(const std::string& path) {
  std::ifstream in(path);
  if (!in) return Error{ErrorCode::invalid_parameter, "file", path + ": cannot open"};
  std::vector<JsonLine> lines;
  std::string text;
  for (size_t n = 1; std::getline(in, text); ++n) {
    if (text.find_first_not_of(" \t\r") == std::string::npos) continue;
    try {
      lines.push_back({n, nlohmann::json::parse(text)});
    } catch (const nlohmann::json::exception& e) {
      return Error{ErrorCode::invalid_parameter, "file",
                   path + " line " + std::to_string(n) + ": not JSON: " + e.what()};
    }
  }
  return lines;
}

std::string Where(const std::string& path, const JsonLine& line) {
  return path + " line " + std::to_string(line.line) + ": ";
}

}  // namespace exactsample::cli
