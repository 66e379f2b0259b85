// A sequence: one request followed from step to step. It holds the
// request's parameters and constraints, its generator, its prompt and generated
// ids and the per-id counts the penalties need, kept up to date as tokens
// arrive, so that a token costs the same at step 1 and step 100,000:
//
//   auto seq = exactsample::Sequence::create(V, params, exactsample::stream(seed, exactsample::Purpose::sample));
//   seq->accept_prompt(prompt_ids);
//   for (...) {
//     exactsample::Step step;
//     step.logits = model.next_logits();
//     auto t = seq->sample(step, ws);  // samples and appends
//     if (!t) { std::cerr << t.error().message << "\n"; break; }
//   }
//
// Every token equals the stateless sample() with the same row, prompt and
// generated ids, parameters and generator, bit for bit, on both engines.
#pragma once

#include "exactsample/cxx20.hpp"
#if EXACTSAMPLE_CXX20

#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include "exactsample/batch.hpp"
#include "exactsample/exactsample.hpp"

namespace exactsample {

struct Drafts;    // exactsample/speculative.hpp
namespace detail {
// The C ABI's way to a sequence's chain state (lib/api/sequence_state.hpp).
struct SequenceAccess;
}  // namespace detail
struct Verified;

// A request's logit bias and mask, owned (Request's spans view them).
struct Constraints {
  std::vector<int32_t> bias_ids{};
  std::vector<double> bias_values{};
  std::vector<int32_t> allowed{}, banned{};
  std::vector<uint32_t> allowed_bits{};

  LogitBias bias() const { return {bias_ids, bias_values}; }
  TokenMask mask() const { return {allowed, banned, allowed_bits}; }
};

// One step's row and what this call overrides. Null overrides: the
// sequence's own. A call whose parameters change penalty_last_n is sampled
// from the ids themselves (a pass over the window), not from the counts.
struct Step {
  std::span<const float> logits{};      // f32 rows
  std::span<const uint16_t> logits16{}; // 16-bit rows (logits_type f16 or bf16)
  LogitType logits_type = LogitType::f32;
  const SamplingParams* params = nullptr;
  const LogitBias* bias = nullptr;
  const TokenMask* mask = nullptr;
};

class EXACTSAMPLE_API Sequence {
 public:
  // A sequence for rows of `vocab` logits. Errors: vocab 0 or above 2^31 - 1,
  // parameters or constraints out of range (the messages of validate()).
  static Result<Sequence> create(size_t vocab, const SamplingParams& params, Pcg32 rng,
                                 Constraints constraints = {});

  Sequence(const Sequence&);  // clone: everything, the generator included
  Sequence& operator=(const Sequence&);
  Sequence(Sequence&&) noexcept;
  Sequence& operator=(Sequence&&) noexcept;
  ~Sequence();

  // Samples the next token and appends it to the generated ids. On error
  // nothing changes and no draw is taken.
  Result<Token> sample(const Step& step, Workspace& workspace,
                       const SampleOptions& options = {});
  // Samples without appending (the generator advances): for loops that
  // accept after the fact. An accept of the id it drew, before anything
  // else changes the ids, moves the chain state as sample does.
  Result<Token> sample_only(const Step& step, Workspace& workspace,
                            const SampleOptions& options = {});
  // The Request a step makes of this sequence (its views stay valid until
  // the sequence changes); sample_batch and sample() take it as it is.
  Result<Request> request(const Step& step) const;

  // Appends a generated token chosen elsewhere (a forced token, an accepted
  // draft) or prompt ids. Errors: an id outside [0, V); nothing changes.
  Result<std::monostate> accept(int32_t id);
  Result<std::monostate> accept_prompt(std::span<const int32_t> ids);
  // Keeps the first `length` generated ids and drops the rest (a rollback:
  // tokens the caller rejects, another branch); the generator stays where
  // it is. Errors: length above the generated ids' count; nothing changes.
  Result<std::monostate> truncate(size_t length);
  // Clears the prompt and generated ids; the generator goes back to where
  // it was at creation (or at restore).
  void reset();

  // Everything a second worker needs to continue the request, as bytes
  // (format in docs/sequence.md): V, parameters, constraints, the generator's
  // start and position, the prompt and generated ids, a checksum.
  std::vector<uint8_t> snapshot() const;
  // Errors: a truncated or corrupt snapshot, or one of another format
  // version (field "snapshot"), naming what was wrong.
  static Result<Sequence> restore(std::span<const uint8_t> bytes);

  size_t vocab() const;
  const SamplingParams& params() const;
  const Constraints& constraints() const;
  std::span<const int32_t> prompt() const;
  std::span<const int32_t> generated() const;
  Pcg32& rng();
  const Pcg32& rng() const;

  struct State;  // defined inside the library

 private:
  friend struct detail::SequenceAccess;
  friend EXACTSAMPLE_API Result<Verified> verify(Sequence&, const Drafts&, Workspace&,
                                                 const SampleOptions&);
  friend EXACTSAMPLE_API void sample_batch(std::span<Sequence* const>, std::span<const Step>,
                                           std::vector<Result<Token>>&, BatchWorkspace&,
                                           const SampleOptions&, int, bool);
  explicit Sequence(std::unique_ptr<State> state);
  // sample_only with `chain` (mirostat's mu, adaptive-p's average) in place
  // of the sequence's own, updated when a token is drawn.
  Result<Token> sample_with(const Step& step, Workspace& workspace, const SampleOptions& options,
                            ChainState& chain);
  std::unique_ptr<State> s_;
};

// One token for each sequence, rows[i] on *sequences[i], across threads as
// sample_batch does; results[i] equals sequences[i]->sample(rows[i], ...)
// (with `accept`; else sample_only). A row with bad input gets its error and
// its sequence is unchanged. A row with mirostat or adaptive-p (state from
// token to token) is sampled on the calling thread, as sample() does.
EXACTSAMPLE_API void sample_batch(std::span<Sequence* const> sequences,
                                  std::span<const Step> rows,
                                  std::vector<Result<Token>>& results,
                                  BatchWorkspace& workspace,
                                  const SampleOptions& options = {}, int threads = 0,
                                  bool accept = true);

}  // namespace exactsample

#endif  // EXACTSAMPLE_CXX20
