// The C++ headers need C++20 (std::span, defaulted comparisons). Each one
// includes this first and declares nothing below C++20, so an older standard
// gets this one error, which names the header that works there, and no
// other.
#pragma once

#if __cplusplus >= 202002L || (defined(_MSVC_LANG) && _MSVC_LANG >= 202002L)
#define EXACTSAMPLE_CXX20 1
#else
#define EXACTSAMPLE_CXX20 0
#error "exactsample's C++ headers need C++20 (-std=c++20); from C or an older C++ standard include <exactsample.h>, the C ABI"
#endif
