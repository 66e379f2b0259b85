# Shared part of the cross toolchain files beside it: each sets
# EXACTSAMPLE_CROSS_TRIPLE (the GNU triple, also the Debian multiarch
# directory), CMAKE_SYSTEM_PROCESSOR and EXACTSAMPLE_CROSS_QEMU, then
# includes this file.
#
# Compilers: Debian's g++-<triple> packages. Libraries: Debian's multiarch
# packages (libhwy-dev:arm64 and so on) under /usr/lib/<triple>, found through
# the root path "/" with the library architecture set; header-only packages
# (nlohmann-json, CLI11) are shared with the host. Tests run under qemu-user,
# which ctest puts in front of each test program. qemu runs without -L: the
# multiarch loader in /lib matches the multiarch libc (the cross sysroot's
# loader paired with it hangs threaded programs).
set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_C_COMPILER ${EXACTSAMPLE_CROSS_TRIPLE}-gcc)
set(CMAKE_CXX_COMPILER ${EXACTSAMPLE_CROSS_TRIPLE}-g++)
set(CMAKE_LIBRARY_ARCHITECTURE ${EXACTSAMPLE_CROSS_TRIPLE})
set(CMAKE_FIND_ROOT_PATH /usr/${EXACTSAMPLE_CROSS_TRIPLE} /)
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE BOTH)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE ONLY)
find_program(_exactsample_qemu ${EXACTSAMPLE_CROSS_QEMU} REQUIRED)
set(CMAKE_CROSSCOMPILING_EMULATOR ${_exactsample_qemu})
# pkg-config reads the target's multiarch .pc files only: the host's (an
# x86-64 sphinxbase for tools/trigram_rows.c) would put the host's headers
# into a cross build.
set(ENV{PKG_CONFIG_LIBDIR} /usr/lib/${EXACTSAMPLE_CROSS_TRIPLE}/pkgconfig:/usr/share/pkgconfig)
