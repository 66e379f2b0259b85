// Speculative decoding, exact: the distribution a row is sampled from, and
// the verification of draft tokens against target rows in the one op order
// of the spec (docs/spec.md, "Speculative decoding"; docs/speculative.md):
// the same ids, logprob bits and generator position as the Python
// transcription, on both engines.
#pragma once

#include "exactsample/cxx20.hpp"
#if EXACTSAMPLE_CXX20

#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "exactsample/exactsample.hpp"
#include "exactsample/sequence.hpp"

namespace exactsample {

// dist(row, params, history): steps 1 to 9 of the request (its bias and
// mask included) without a draw: the ids of the final K whose q is > 0,
// ascending, with q; a greedy request's step 4 id with 1.0. No generator is
// read or advanced.
EXACTSAMPLE_API Result<std::vector<KeptProb>> distribution(const Request& request,
                                                           Workspace& workspace,
                                                           const SampleOptions& options = {});

// γ = draft_ids.size() draft tokens proposed after the history, the γ + 1
// target rows (row j computed with the first j drafts appended) and the γ
// draft rows they were proposed from (absent for a greedy target: not
// read). f32 rows, all of one length V.
struct Drafts {
  std::span<const std::span<const float>> target_rows;
  std::span<const std::span<const float>> draft_rows;
  std::span<const int32_t> draft_ids;
  // The draft side's parameters, complete in themselves; absent: the
  // target's. The request's bias and mask apply to the target rows only.
  std::optional<SamplingParams> draft_params;
};

struct Verified {
  // The emitted tokens: the accepted drafts, then the token sampled at the
  // first rejection or mismatch (or the bonus token): accepted + 1 of them.
  // Each has the logprob, processed and top-N logprobs of its target row as
  // if it had been sampled there.
  std::vector<Token> tokens;
  size_t accepted = 0;
  // uniform_f64 draws taken (each two next_u32): a fresh stream(seed, Purpose::sample)
  // advanced by 2 * draws continues the request.
  uint64_t draws = 0;
};

// Verifies `drafts` for `request` (its logits unused: the rows are in
// drafts; its prompt and generated ids are the history before the drafts,
// its params the target's). Errors name the field and the value, with no
// draw taken and nothing emitted: no drafts, missing rows, rows of
// different lengths, a draft id outside [0, V), a draft whose draft
// probability is 0 (sampled target), and any error of a row.
EXACTSAMPLE_API Result<Verified> verify(const Request& request, const Drafts& drafts, Pcg32& rng,
                                        Workspace& workspace, const SampleOptions& options = {});

// One verification of a batch: verify()'s request, drafts and generator.
struct Verification {
  Request request;
  Drafts drafts;
  Pcg32* rng;  // advanced exactly as verify() would
};

// results[i] is what verify(verifications[i].request, .drafts, *.rng,
// workspace, options) returns, the verifications taken one after the other
// on the calling thread (options.threads splits each row's passes). They
// are not spread over threads whole: a helper would have to copy its
// 2 gamma + 1 rows first, which costs about what verifying them does. A
// verification with bad input (or no generator: field "rng") gets its
// error, its generator unchanged, and the others still run. results is
// resized.
EXACTSAMPLE_API void verify_batch(std::span<const Verification> verifications,
                                  std::vector<Result<Verified>>& results, Workspace& workspace,
                                  const SampleOptions& options = {});

// The same on a sequence: its history, parameters, extras and generator;
// the emitted tokens are appended and the generator advanced. On error the
// sequence is unchanged.
EXACTSAMPLE_API Result<Verified> verify(Sequence& sequence, const Drafts& drafts,
                                        Workspace& workspace, const SampleOptions& options = {});

}  // namespace exactsample

#endif  // EXACTSAMPLE_CXX20
