// The constants and table of glibc's exp (glibc >= 2.28,
// sysdeps/ieee754/dbl-64/e_exp.c and e_exp_data.c, N = 128), shared by the
// scalar replicas (scalar_ref/twins/exp_glibc.cc) and the vector one
// (simd/exp-inl.h) so that both read the very same words.
#pragma once

#include <cstdint>

namespace exactsample::exp_data {

inline constexpr int kTableBits = 7;  // N = 2^7 table entries
inline constexpr uint64_t kIndexMask = (uint64_t{1} << kTableBits) - 1;
inline constexpr double kInvLn2N = 0x1.71547652b82fep+7;      // N / ln 2
inline constexpr double kNegLn2hiN = -0x1.62e42fefa0000p-8;   // -ln2/N, high
inline constexpr double kNegLn2loN = -0x1.cf79abc9e3b3ap-47;  // and low part
inline constexpr double kShift = 0x1.8p52;  // kd + kShift rounds kd to int
inline constexpr double kC2 = 0x1.ffffffffffdbdp-2;
inline constexpr double kC3 = 0x1.555555555543cp-3;
inline constexpr double kC4 = 0x1.55555cf172b91p-5;
inline constexpr double kC5 = 0x1.1111167a4d017p-7;

// Top 12 bits (sign cleared) bounding the main path: 2^-54 <= |x| < 512.
inline constexpr uint64_t kTopTiny = 0x3c9;   // top12(0x1p-54)
inline constexpr uint64_t kTopLarge = 0x408;  // top12(512.0)
inline constexpr uint64_t kTopHuge = 0x409;   // top12(1024.0)

// For k in [0, N): bits(T[k]), bits(H[k]) - (k << 45), generated from the
// definition by scalar_ref/twins/gen_exp_glibc_table.py
// (tests/kernels/exp_table_test.py checks it).
alignas(64) inline constexpr uint64_t kTable[2 << kTableBits] = {
#include "scalar_ref/twins/exp_glibc_table.inc"
};

}  // namespace exactsample::exp_data
