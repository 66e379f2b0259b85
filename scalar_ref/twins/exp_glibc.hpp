// Replicas of glibc's exp (glibc >= 2.28, N = 128), one per ifunc variant:
// the FMA variant (chosen by glibc when FMA and AVX2 are usable) and the
// non-FMA one (avx and sse2, identical operations). Each returns the very
// bits of that variant in round-to-nearest for every input (normal,
// subnormal, overflow, underflow, +-0, +-inf, NaN).
#pragma once

namespace exactsample::twins {

// Every multiply-add that glibc's FMA build contracts is one std::fma.
double ExpFused(double x);
// Every multiply and add rounded separately.
double ExpUnfused(double x);

}  // namespace exactsample::twins
