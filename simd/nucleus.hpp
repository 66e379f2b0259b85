// Nucleus (top-p) cut of the fast engine (Highway, dynamic dispatch): spec
// step 7 over large kept sets without sorting every id, equal to the scalar
// twin in scalar_ref/twins/nucleus.hpp.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>

#include "scalar_ref/twins/nucleus.hpp"

namespace exactsample::simd {

using twins::Cut;

// As twins::NucleusCut (ids with e[i] > 0, t = l / divisor, q = e / z,
// walk (t desc, id asc) until s >= p), for n < 2^31, divisor > 0, z > 0 and
// l[i] / divisor finite wherever e[i] > 0. `scratch` (at least
// NucleusScratchWords(n) words, the rank histogram's counts among them) is
// overwritten; the call allocates nothing and keeps under 20 KiB on the
// stack (runtimes run it on threads with 64 KiB stacks).
inline constexpr uint32_t kNucleusBuckets = 4096;
constexpr size_t NucleusScratchWords(size_t n) { return n + 2 * size_t{kNucleusBuckets} + 1; }
Cut NucleusCut(const double* l, double divisor, const double* e, size_t n,
               double z, double p, std::span<uint32_t> scratch);

}  // namespace exactsample::simd
