#include "tools/lib/input_file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace exactsample {
namespace {

Error Bad(const std::string& path, const std::string& why) {
  return {ErrorCode::invalid_parameter, "file", path + ": " + why};
}

// Every byte of an open descriptor, read with read(2) so that a failing
// read (EIO, a directory given as standard input) is an error naming the
// file, never an exception or a short file taken as whole.
Result<std::string> ReadAll(int fd, const std::string& path) {
  struct stat st {};
  if (fstat(fd, &st) == 0 && S_ISDIR(st.st_mode)) return Bad(path, "is a directory, not a file");
  std::string bytes;
  char buffer[1 << 16];
  for (;;) {
    const ssize_t n = read(fd, buffer, sizeof buffer);
    if (n == 0) return bytes;
    if (n < 0) {
      if (errno == EINTR) continue;
      if (errno == EISDIR) return Bad(path, "is a directory, not a file");
      return Bad(path, std::string("read error: ") + std::strerror(errno));
    }
    bytes.append(buffer, static_cast<size_t>(n));
  }
}

}  // namespace

Result<std::string> ReadInputFile(const std::string& path) {
  if (path.empty()) return Bad("\"\"", "empty path; give a file, or - for standard input");
  if (path == "-") return ReadAll(STDIN_FILENO, "- (standard input)");
  const int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return Bad(path, std::string("cannot open: ") + std::strerror(errno));
  auto bytes = ReadAll(fd, path);
  close(fd);
  return bytes;
}

}  // namespace exactsample
