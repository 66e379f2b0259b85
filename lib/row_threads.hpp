// The fast engine's full-vocabulary passes with one row split across OpenMP
// threads (SampleOptions::threads). Every result is bit-identical to the
// one-thread kernel: maxima combine exactly, and the ascending-order sums
// stay sequential: one thread sums while the others only compute e values
// (or quotients) ahead of it.
#pragma once

#include <cstddef>

#include "simd/exp_variant.hpp"
#include "simd/max.hpp"

namespace exactsample {

// simd::WidenMax over chunks.
simd::WidenResult WidenMaxThreads(const float* x, size_t n, double* l_out,
                                  int threads);

// simd::ExpSum with e stored into e_out (not null here).
double ExpSumThreads(const double* l, size_t n, double divisor, double shift,
                     double* e_out, simd::ExpVariant v, int threads);

// simd::InverseCdf; with several threads e[n/2..n) is overwritten by its
// quotients e / z.
size_t InverseCdfThreads(double* e, size_t n, double z, double u, int threads);

}  // namespace exactsample
