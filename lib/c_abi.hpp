// What the C ABI's files share: the handle behind exactsample_sampler and
// the conversions and checks between the C structs and the C++ API.
#pragma once

#include <cstddef>
#include <cstdint>
#include <new>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "exactsample.h"
#include "exactsample/batch.hpp"
#include "exactsample/exactsample.hpp"

struct exactsample_sampler {
  exactsample::Engine engine;
  int threads = 1;  // SampleOptions::threads of single calls
  exactsample::Workspace workspace;
  exactsample::BatchWorkspace batch_workspace;
  std::vector<exactsample::Result<exactsample::Token>> batch_results;
  std::vector<exactsample::BatchRow> batch_rows;
  std::vector<exactsample::Pcg32> batch_rngs;
  std::vector<std::string> row_errors;
  std::string last_error;
};

namespace exactsample::c_abi {

exactsample_status StatusOf(ErrorCode code);

inline Pcg32 ToPcg(const exactsample_rng& r) {
  return Pcg32::FromState(r.state, r.inc, r.draws_u32);
}

inline void FromPcg(const Pcg32& g, exactsample_rng* out) {
  *out = {g.state(), g.inc(), g.draws_u32()};
}

// Runs body, turning exceptions into statuses and recording the message.
template <class Body>
exactsample_status Guard(exactsample_sampler* s, Body&& body) {
  try {
    return body();
  } catch (const std::bad_alloc&) {
    if (s != nullptr) s->last_error = "out of memory";
    return EXACTSAMPLE_OUT_OF_MEMORY;
  } catch (const std::length_error&) {  // larger than any allocation can be
    if (s != nullptr) s->last_error = "out of memory: too large to allocate";
    return EXACTSAMPLE_OUT_OF_MEMORY;
  } catch (const std::exception& e) {
    if (s != nullptr) s->last_error = e.what();
    return EXACTSAMPLE_INTERNAL;
  }
}

inline exactsample_status Fail(exactsample_sampler* s, exactsample_status status,
                               std::string message) {
  if (s != nullptr) s->last_error = std::move(message);
  return status;
}

// A null pointer is only valid for an empty id list.
inline bool IdsOk(const int32_t* ids, size_t len) { return ids != nullptr || len == 0; }

// What is wrong with params, "" when nothing.
std::string ParamsProblem(const exactsample_params* p);
SamplingParams ToParams(const exactsample_params& p);

// What is wrong with an exactsample_extras, "" when nothing: its
// struct_size, an array for every length, output arrays for top_logprobs > 0.
std::string ExtrasProblem(const exactsample_extras& x);
// The request with x's bias, mask and top-N.
Request WithExtras(Request request, const exactsample_extras& x);
// x's outputs (each where given) from a sampled token.
void WriteExtras(const Token& t, const exactsample_extras& x);

}  // namespace exactsample::c_abi
