// The fast engine: the spec's steps composed from the SIMD kernels in simd/,
// returning exactly what the reference returns.
#pragma once

#include "exactsample/exactsample.hpp"
#include "lib/engine/chain_split.hpp"
#include "lib/engine/workspace.hpp"
#include "scalar_ref/reference.hpp"

namespace exactsample {

// `request` must have passed checks::ParamsAndIds, and `split` (its
// ChainSplit::Of) be fast. Fills *options.trace when given.
// With `choose`, steps 10 and 11 are its answer (scalar_ref::Choose).
Result<Token> SampleFast(const Request& request, const ChainSplit& split, Pcg32& rng,
                         detail::WorkspaceImpl& ws, const SampleOptions& options,
                         const scalar_ref::Choose* choose = nullptr);

}  // namespace exactsample
