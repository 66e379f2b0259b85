# Cross build for s390x Linux, tests under qemu-s390x. Needs Debian's g++-s390x-linux-gnu and
# qemu-user, and the s390x multiarch packages (cmake/install_cross_deps.sh s390x).
#   cmake -S . -B build-s390x -G Ninja --toolchain cmake/toolchains/s390x.cmake
set(CMAKE_SYSTEM_PROCESSOR s390x)
set(EXACTSAMPLE_CROSS_TRIPLE s390x-linux-gnu)
set(EXACTSAMPLE_CROSS_QEMU qemu-s390x)
include(${CMAKE_CURRENT_LIST_DIR}/cross-linux-gnu.cmake)
