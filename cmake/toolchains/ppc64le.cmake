# Cross build for ppc64le Linux, tests under qemu-ppc64le. Needs Debian's g++-powerpc64le-linux-gnu and
# qemu-user, and the ppc64el multiarch packages (cmake/install_cross_deps.sh ppc64le).
#   cmake -S . -B build-ppc64le -G Ninja --toolchain cmake/toolchains/ppc64le.cmake
set(CMAKE_SYSTEM_PROCESSOR ppc64le)
set(EXACTSAMPLE_CROSS_TRIPLE powerpc64le-linux-gnu)
set(EXACTSAMPLE_CROSS_QEMU qemu-ppc64le)
include(${CMAKE_CURRENT_LIST_DIR}/cross-linux-gnu.cmake)
