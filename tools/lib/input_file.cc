#include "tools/lib/input_file.hpp"

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <iterator>

namespace exactsample {
namespace {

Error Bad(const std::string& path, const std::string& why) {
  return {ErrorCode::invalid_parameter, "file", path + ": " + why};
}

Result<std::string> ReadAll(std::istream& in, const std::string& path) {
  std::string bytes{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
  if (in.bad()) return Bad(path, "read error");
  return bytes;
}

}  // namespace

Result<std::string> ReadInputFile(const std::string& path) {
  if (path.empty()) return Bad("\"\"", "empty path; give a file, or - for standard input");
  if (path == "-") return ReadAll(std::cin, "- (standard input)");
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) return Bad(path, "is a directory, not a file");
  std::ifstream in(path, std::ios::binary);
  if (!in) return Bad(path, std::string("cannot open: ") + std::strerror(errno));
  return ReadAll(in, path);
}

}  // namespace exactsample
