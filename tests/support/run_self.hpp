// Runs this test program again in a child process, with extra environment
// variables and a gtest filter, e.g. to see glibc's non-FMA exp
// (GLIBC_TUNABLES=glibc.cpu.hwcaps=-AVX2) or a forced start-up choice.
#pragma once

#include <unistd.h>

#include <cstdlib>
#include <string>

namespace exactsample::test {

// Returns the child's exit status (0 when every selected test passed). In a
// cross build the child runs under the same emulator (EXACTSAMPLE_TEST_EMULATOR,
// set by tests/CMakeLists.txt, empty in a native build).
inline int RunSelf(const std::string& env, const std::string& filter) {
  char self[4096];
  const ssize_t len = readlink("/proc/self/exe", self, sizeof(self) - 1);
  if (len <= 0) return -1;
  self[len] = '\0';
  const std::string cmd =
      env + " " EXACTSAMPLE_TEST_EMULATOR " '" + self + "' --gtest_filter='" + filter +
      "' > /dev/null";
  return std::system(cmd.c_str());
}

}  // namespace exactsample::test
