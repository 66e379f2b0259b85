// Random cases (tests/support/random_requests.hpp) for the C ABI: their parameters
// and their extras as the C structs.
#pragma once

#include <cmath>
#include <cstddef>
#include <cstdint>

#include "exactsample.h"
#include "exactsample/exactsample.hpp"
#include "tests/support/random_requests.hpp"

namespace exactsample::test {

inline exactsample_params CParams(const SamplingParams& p) {
  exactsample_params params;
  exactsample_params_init(&params);
  params.temperature = p.temperature;
  params.repetition_penalty = p.repetition_penalty;
  params.presence_penalty = p.presence_penalty;
  params.frequency_penalty = p.frequency_penalty;
  params.top_k = p.top_k;
  params.top_p = p.top_p;
  params.min_p = p.min_p;
  params.penalty_last_n = p.penalty_last_n;
  return params;
}

// A case's additions as exactsample_extras (none when `with` is false), with
// the outputs in arrays here.
struct CExtras {
  int32_t top_ids[20];
  double top_values[20];
  double processed = NAN;
  size_t top_count = 99;
  exactsample_extras extras{};

  explicit CExtras(const RandomCase& c, bool with = true) {
    extras.struct_size = sizeof extras;
    extras.top_ids = top_ids;
    extras.top_logprob_values = top_values;
    extras.top_count = &top_count;
    extras.processed_logprob = &processed;
    if (!with) return;
    extras.bias_ids = c.bias_ids.data();
    extras.bias_values = c.bias_values.data();
    extras.bias_len = c.bias_ids.size();
    extras.allowed_ids = c.allowed.data();
    extras.allowed_len = c.allowed.size();
    extras.banned_ids = c.banned.data();
    extras.banned_len = c.banned.size();
    extras.allowed_bitmask = c.allowed_bits.data();
    extras.allowed_bitmask_words = c.allowed_bits.size();
    extras.top_logprobs = c.params.top_logprobs;
  }
  CExtras(const CExtras&) = delete;  // extras points into this object
  CExtras& operator=(const CExtras&) = delete;

  // The token these outputs describe, with the id and logprob given.
  Token TokenOf(int32_t id, double logprob) const {
    Token t{id, logprob, processed};
    t.top_count = top_count;
    for (size_t j = 0; j < top_count; ++j) t.top[j] = {top_ids[j], top_values[j]};
    return t;
  }
};

}  // namespace exactsample::test
