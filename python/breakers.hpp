// SamplingParams.dry_sequence_breakers: DRY's breakers as a list of id
// lists. A SamplingParams views its breakers (C++ spans); the module keeps
// each distinct list once for the process's life, so every copy of a
// SamplingParams, one a call made before another thread set the field
// again included, views ids that stay.
#pragma once

#include <pybind11/pybind11.h>

#include <cstdint>
#include <span>

namespace exactsample_python {

using BreakerViews = std::span<const std::span<const int32_t>>;

// The views of `value`, a list (or tuple) of lists (or tuples) of ints; a
// TypeError naming the field for anything else. Their values (empty, too
// long, outside [0, V)) are the library's checks, made when sampling.
BreakerViews BreakersFrom(pybind11::handle value);

// The same ids kept by the module: for a copy of params whose breakers
// another object owns (a sequence's).
BreakerViews Kept(BreakerViews breakers);

// The breakers as a list of lists of ints.
pybind11::list BreakersValue(BreakerViews breakers);

}  // namespace exactsample_python
