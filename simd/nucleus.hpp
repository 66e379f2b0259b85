// Nucleus (top-p) cut of the fast engine (Highway, dynamic dispatch): spec
// step 7 over large kept sets without sorting every id, equal to the scalar
// twin in scalar_ref/nucleus.hpp.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>

#include "scalar_ref/twins/nucleus.hpp"

namespace exactsample::simd {

using twins::Cut;

// As twins::NucleusCut (ids with e[i] > 0, t = l / divisor, q = e / z,
// walk (t desc, id asc) until s >= p), for n < 2^31, divisor > 0, z > 0 and
// l[i] / divisor finite wherever e[i] > 0. `scratch` (size >= n) is
// overwritten; the call allocates nothing (about 70 KiB of histogram and
// buffers live on the stack).
Cut NucleusCut(const double* l, double divisor, const double* e, size_t n,
               double z, double p, std::span<uint32_t> scratch);

}  // namespace exactsample::simd
