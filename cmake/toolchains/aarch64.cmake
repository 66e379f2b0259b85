# Cross build for aarch64 Linux, tests under qemu-aarch64. Needs Debian's g++-aarch64-linux-gnu and
# qemu-user, and the arm64 multiarch packages (cmake/install_cross_deps.sh aarch64).
#   cmake -S . -B build-aarch64 -G Ninja --toolchain cmake/toolchains/aarch64.cmake
set(CMAKE_SYSTEM_PROCESSOR aarch64)
set(EXACTSAMPLE_CROSS_TRIPLE aarch64-linux-gnu)
set(EXACTSAMPLE_CROSS_QEMU qemu-aarch64)
include(${CMAKE_CURRENT_LIST_DIR}/cross-linux-gnu.cmake)
