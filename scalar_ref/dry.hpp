// DRY (docs/llama-samplers.md, dry): penalises the ids that would continue
// a repeat of the history's last tokens.
#pragma once

#include "exactsample/exactsample.hpp"
#include "scalar_ref/kept.hpp"

namespace exactsample::scalar_ref {

// Changes l over K; the history is the request's prompt followed by generated.
void Dry(Logits& l, const Ids& kept, const Request& request);

}  // namespace exactsample::scalar_ref
