// The constants of ExpApprox (scalar_ref/twins/exp_bound.hpp), shared by the
// twin and the kernel.
#pragma once

namespace exactsample::twins::exp_bound {

inline constexpr double kFloor = -700.0;  // e^-700 is still a normal double
inline constexpr double kRound = 0x1.8p52;
inline constexpr double kInvLn2 = 0x1.71547652b82fep+0;
inline constexpr double kLn2 = 0x1.62e42fefa39efp-1;
// 1 / j! for j = 0..8 (each division rounded once).
inline constexpr int kDegree = 8;
inline constexpr double kTaylor[kDegree + 1] = {
    1.0, 1.0, 1.0 / 2, 1.0 / 6, 1.0 / 24, 1.0 / 120, 1.0 / 720.0, 1.0 / 5040.0, 1.0 / 40320.0};

}  // namespace exactsample::twins::exp_bound
