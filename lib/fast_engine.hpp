// The fast engine: the spec's steps composed from the SIMD kernels in simd/,
// returning exactly what the reference returns.
#pragma once

#include "exactsample/exactsample.hpp"
#include "lib/workspace.hpp"

namespace exactsample {

// `request` must have passed checks::ParamsAndIds. Fills *options.trace
// when given.
Result<Token> SampleFast(const Request& request, Pcg32& rng,
                         detail::WorkspaceImpl& ws, const SampleOptions& options);

}  // namespace exactsample
