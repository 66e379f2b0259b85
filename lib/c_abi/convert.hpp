// What the C ABI's files share: the handles behind exactsample_sampler and
// exactsample_sequence, and the conversions and checks between the C
// structs and the C++ API. Messages name the field (as the caller spells
// it, e.g. "requests[2].extras.bias_ids") and the value.
#pragma once

#include <cstddef>
#include <cstdint>
#include <new>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "exactsample.h"
#include "exactsample/batch.hpp"
#include "exactsample/exactsample.hpp"
#include "exactsample/sequence.hpp"
#include "lib/c_abi/candidates.hpp"
#include "lib/c_abi/prepare.hpp"

struct exactsample_sampler {
  exactsample::Engine engine;
  int threads = 1;  // SampleOptions::threads of single calls
  exactsample::Workspace workspace;
  exactsample::BatchWorkspace batch_workspace;
  std::vector<exactsample::Result<exactsample::Token>> batch_results;
  std::vector<exactsample::BatchRow> batch_rows;
  std::vector<std::string> row_errors;
  std::string last_error;
  // The request calls' scratch, reused across calls: each row's checked
  // inputs, its candidates row, the sampled distribution, which batch row
  // samples which request, the batch's sequences in order.
  std::vector<exactsample::c_abi::PreparedRow> prepared;
  std::vector<exactsample::c_abi::CandidateRow> candidate_rows;
  std::vector<exactsample::KeptProb> distribution;
  std::vector<size_t> batch_index;
  std::vector<std::pair<const exactsample_sequence*, size_t>> batch_sequences;
};

struct exactsample_sequence {
  exactsample::Sequence sequence;
};

namespace exactsample::c_abi {

exactsample_status StatusOf(ErrorCode code);

inline Pcg32 ToPcg(const exactsample_rng& r) {
  return Pcg32::from_state(r.state, r.inc, r.draws_u32);
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

// "" when `pointer` may be read for `len` entries (a NULL pointer is only
// valid for an empty list), else "<name> is NULL with <len_name> = <len>".
std::string ArrayProblem(const void* pointer, size_t len, const std::string& name,
                         const std::string& len_name);

// "S.struct_size = N, expected M (sizeof(S) in this version; fix)", or ""
// when they agree: a larger struct_size (a newer caller) is refused rather
// than half-read, a smaller one rather than read past.
std::string StructSizeProblem(const char* type, uint32_t given, size_t expected,
                              const char* fix);

// "" when p is a struct this version reads: its own size, or the size
// before penalty_last_n or before the chain's fields (an older caller),
// with chain enums in range and an array for every length. `prefix` names
// what holds it ("request.", "config."; "" where params is the caller's own
// argument). The values' ranges are the C++ checks'.
std::string ParamsProblem(const exactsample_params& p, const std::string& prefix);
// The views of a C request's breakers that its SamplingParams points at;
// the ids stay the caller's, read during the call.
using BreakerViews = std::vector<std::span<const int32_t>>;
// p's fields (the defaults for those p's struct_size ends before), the
// breakers viewed in `breakers`.
SamplingParams ToParams(const exactsample_params& p, BreakerViews& breakers);

// "" when x (held by `prefix`, as for ParamsProblem) is well formed: its
// struct_size, an array for every length, allowed_ids NULL or not empty
// and, when `outputs`, top_ids and top_logprob_values for top_logprobs > 0.
std::string ExtrasProblem(const exactsample_extras& x, const std::string& prefix, bool outputs);
// x's outputs (each where given) from a sampled token.
void WriteExtras(const Token& t, const exactsample_extras& x);

// A C logits_type as the C++ type; nullopt for any other int.
std::optional<LogitType> LogitTypeOf(int logits_type);

}  // namespace exactsample::c_abi
