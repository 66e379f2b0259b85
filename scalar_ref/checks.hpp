// Input checks shared by both engines, so that a bad input gets the same
// error whichever engine runs. Order: parameters, ids, logit values, then
// the values that penalties and temperature produce.
#pragma once

#include <cstdint>
#include <optional>
#include <span>

#include "exactsample/exactsample.hpp"

namespace exactsample::checks {

// Empty logits (or the row logits_type does not select given), every
// SamplingParams field, prompt and generated ids (the
// generated ones from index `generated_checked` on), the bias (ids, finite
// values) and the mask (ids, the bitmask's length).
std::optional<Error> ParamsAndIds(const Request& request, size_t generated_checked = 0);
// The SamplingParams fields, the bias and the mask for rows of `vocab` ids
// (ParamsAndIds without the row and the history).
std::optional<Error> ParamsAndExtras(const Request& request, size_t vocab);
// The first NaN or +inf logit, or every logit -inf (ascending id scan).
std::optional<Error> LogitValues(std::span<const float> logits);
// The same over the request's row, whatever its type (widened to f32).
std::optional<Error> LogitValues(const Request& request);
// Error for a logit found NaN or +inf at `id` (used by kernels that detect
// it in their own pass and then locate it).
Error BadLogit(size_t id, float value);
Error AllMasked();
// The lowest id whose logit the bias made +inf (after the mask).
Error BiasedToInfinity(int32_t id);
// Every logit -inf after the bias and the mask (the row had a finite one).
Error AllMaskedOut();
// A penalised logit that became NaN or +inf.
std::optional<Error> Penalized(double value, int32_t id,
                               const SamplingParams& params);
// M is the largest penalised logit: all -inf after penalties, or l/T
// overflowing to +inf or leaving every logit -inf, is an error.
std::optional<Error> MaxAfterPenalties(double max_logit,
                                       const SamplingParams& params);

}  // namespace exactsample::checks
