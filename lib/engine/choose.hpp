// sample() with steps 10 and 11 replaced by a chooser (scalar_ref::Choose):
// the speculative page's acceptance tests, and dist() (which draws nothing).
#pragma once

#include "exactsample/exactsample.hpp"
#include "scalar_ref/reference.hpp"

namespace exactsample::detail {

// sample() when `choose` is null.
Result<Token> SampleChoosing(const Request& request, Pcg32& rng, Workspace& workspace,
                             const SampleOptions& options, const scalar_ref::Choose* choose);

}  // namespace exactsample::detail
