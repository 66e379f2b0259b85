// Steps 2 and 3 (the penalties), over the library's penalty window.
#pragma once

#include "exactsample/exactsample.hpp"
#include "scalar_ref/kept.hpp"

namespace exactsample::scalar_ref {

// Step 2 then step 3 (changes l).
void Penalties(Logits& l, const Request& request);

}  // namespace exactsample::scalar_ref
