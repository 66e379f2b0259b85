// Where the tools run: the architecture they were compiled for, and whether
// a user-mode emulator (qemu-user) runs them, whose timings are not the
// hardware's. `targets`, `audit` and `bench` report both.
#pragma once

#include <string>

namespace exactsample::platform {

// "x86_64", "aarch64", "ppc64le", "s390x", ... (the compiler's target).
const char* Architecture();

// The emulator's program name (e.g. "qemu-aarch64") when qemu-user runs this
// process, else "". Seen in /proc/self/comm, which the kernel sets to the
// program it started (the emulator) and qemu-user does not rewrite.
std::string Emulator();

// "aarch64", or "aarch64 under qemu-aarch64 (emulated)".
std::string Describe();

}  // namespace exactsample::platform
