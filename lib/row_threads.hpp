// The fast engine's full-vocabulary passes with one row split across OpenMP
// threads (SampleOptions::threads). Every result is bit-identical to the
// one-thread kernel: maxima combine exactly, and the ascending-order sum
// stays sequential: one thread sums while the others compute e values ahead
// of it. The inverse CDF stays on one thread: splitting it needs the
// quotients e / Z of the far half, and computing them cost more than the
// walk saved (measured).
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

}  // namespace exactsample
