// DRY (docs/llama-samplers.md, dry): penalises the ids that would continue
// a repeat of the history's last tokens.
#pragma once

#include <cstdint>
#include <utility>
#include <vector>

#include "exactsample/exactsample.hpp"
#include "scalar_ref/kept.hpp"

namespace exactsample::scalar_ref {

// What DRY subtracts from each id's l, ascending ids (at most the window's
// length of them); the history is the request's prompt followed by generated.
std::vector<std::pair<int32_t, double>> DryAmounts(const Request& request);
// Changes l over K by DryAmounts.
void Dry(Logits& l, const Ids& kept, const Request& request);

}  // namespace exactsample::scalar_ref
