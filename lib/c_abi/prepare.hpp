// One exactsample_request, checked and turned into the C++ call's inputs
// (Prepare), and the outputs of its token written back (Finish). The single
// and the batch call share both, so a batch row is checked, sampled and
// answered exactly as the same request alone.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "exactsample.h"
#include "exactsample/exactsample.hpp"
#include "exactsample/pcg32.hpp"
#include "lib/c_abi/candidates.hpp"

namespace exactsample::c_abi {

struct Problem {
  exactsample_status status = EXACTSAMPLE_OK;
  std::string message;
  bool ok() const { return status == EXACTSAMPLE_OK; }
};

struct PreparedRow {
  exactsample_sequence* sequence = nullptr;  // null: stateless
  const exactsample_request* c = nullptr;
  Request request;
  // Step's overrides, which request views until it is built, and the
  // views of its breakers.
  SamplingParams params;
  std::vector<std::span<const int32_t>> breakers;
  LogitBias bias;
  TokenMask mask;
  Pcg32 own_rng = Pcg32::from_state(0, 1, 0);  // a stateless row's (a copy of *c->rng)
  Pcg32* rng = nullptr;                        // own_rng, or the sequence's
  Pcg32 rng_before = Pcg32::from_state(0, 1, 0);  // as it was, should appending fail
  // A sequence's chain state (mirostat's mu, adaptive-p's average): its
  // copy before the token, updated by the draw, the sequence's when the
  // token is appended. A row that carries it is sampled alone.
  ChainState chain;
  bool stateful = false;
  CandidateRow* candidates = nullptr;  // the row scattered, to be cleared
  bool wants_logprob = false;
  bool wants_kept = false;
  bool wants_rank = false;
};

// Checks request `c` (its fields named after `prefix`, "request." or
// "requests[3].") for row `row` of a call (a batch's row_stride counts from
// row 0; a single call passes batch = false) and fills `out`, the candidates written into
// `candidates`. On a problem nothing the caller passed in is touched; the
// candidates row may still hold this row's ids (Clear it in any case).
Problem Prepare(exactsample_sequence* sequence, const exactsample_request& c,
                const std::string& prefix, size_t row, bool batch,
                CandidateRow& candidates, PreparedRow& out);

// Options for sampling `row` alone with the sampler's engine and row
// threads; the distribution goes to `distribution` when the row asks for it,
// a sequence's chain state to row.chain.
SampleOptions OptionsFor(PreparedRow& row, Engine engine, int threads,
                         std::vector<KeptProb>* distribution);

// After row's token t: appends it to the sequence (when asked), writes the
// stateless generator back and every output the request asked for, the
// distribution from `distribution` (what OptionsFor's distribution
// pointed at), and with the token the chain state. An append that cannot
// allocate restores the generator and is the row's error.
Problem Finish(PreparedRow& row, const Token& t,
               const std::vector<KeptProb>& distribution, exactsample_token& out);

}  // namespace exactsample::c_abi
