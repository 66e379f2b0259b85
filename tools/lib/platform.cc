#include "tools/lib/platform.hpp"

#include <fstream>

namespace exactsample::platform {

const char* Architecture() {
#if defined(__x86_64__)
  return "x86_64";
#elif defined(__i386__)
  return "i386";
#elif defined(__aarch64__)
  return "aarch64";
#elif defined(__powerpc64__) && defined(__LITTLE_ENDIAN__)
  return "ppc64le";
#elif defined(__powerpc64__)
  return "ppc64";
#elif defined(__s390x__)
  return "s390x";
#elif defined(__riscv) && __riscv_xlen == 64
  return "riscv64";
#elif defined(__arm__)
  return "arm";
#else
  return "unknown";
#endif
}

std::string Emulator() {
  std::ifstream in("/proc/self/comm");
  std::string comm;
  std::getline(in, comm);
  return comm.rfind("qemu-", 0) == 0 ? comm : "";
}

std::string Describe() {
  const std::string emulator = Emulator();
  return std::string(Architecture()) +
         (emulator.empty() ? "" : " under " + emulator + " (emulated)");
}

}  // namespace exactsample::platform
