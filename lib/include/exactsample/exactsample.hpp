// exactsample: picks the next token from f32 (or f16, bf16) logits exactly as
// the spec fixes it (docs/spec.md, steps 1 to 11), bit for bit the same in every engine.
//
//   exactsample::Workspace ws;                     // reuse across calls
//   auto rng = exactsample::stream(seed, exactsample::Purpose::sample);
//   exactsample::Request req{logits, prompt_ids, generated_ids, params};
//   auto r = exactsample::sample(req, rng, ws);
//   if (!r) std::cerr << r.error().message << "\n";
//   else generated.push_back(r->id);
#pragma once

#include "exactsample/cxx20.hpp"
#if EXACTSAMPLE_CXX20

#include <array>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

#include "exactsample/chain.hpp"
#include "exactsample/export.h"
#include "exactsample/pcg32.hpp"
// EXACTSAMPLE_VERSION_MAJOR, _MINOR, _PATCH, _STRING (the C header's too).
#include "exactsample/version.h"

namespace exactsample {

namespace detail {
// The scratch memory behind Workspace, defined inside the library only.
struct WorkspaceImpl;
struct WorkspaceAccess;
// A Sequence's per-id counts of its penalty window (lib/api/sequence_counts.hpp).
class HistoryCounts;
}  // namespace detail

// Field names and defaults of the spec; the defaults turn each step off.
struct SamplingParams {
  double temperature = 1.0;  // 0 means greedy
  double repetition_penalty = 1.0;
  double presence_penalty = 0.0;
  double frequency_penalty = 0.0;
  int64_t top_k = 0;  // 0 or >= V: off
  double top_p = 1.0;  // >= 1: off; 0 keeps only the top token
  double min_p = 0.0;
  // How many of the most likely ids Token::top_logprobs lists, 0 to
  // kMaxTopLogprobs (0: none, and nothing is computed for them).
  int64_t top_logprobs = 0;
  // The library's penalty window (docs/beyond-spec.md): 0, the spec,
  // penalises over the whole history; n > 0 applies the repetition penalty
  // over the distinct ids of the last n tokens of prompt followed by
  // generated, presence and frequency over the counts in the last n
  // generated tokens (llama.cpp's repeat_last_n / penalty_last_n).
  int64_t penalty_last_n = 0;

  // The chain and llama.cpp's samplers (docs/llama-samplers.md); each
  // default turns its step off, and the spec chain with all of them off is
  // the spec.
  Chain chain = {};
  int64_t min_keep = 0;  // top_p, min_p, typical and xtc keep at least this many ids
  double top_n_sigma = 0.0;  // 0: off
  double typical_p = 1.0;    // >= 1: off
  double xtc_probability = 0.0;  // 0: off
  double xtc_threshold = 0.1;    // above 0.5: off
  double dry_multiplier = 0.0;   // 0: off
  double dry_base = 1.75;
  int64_t dry_allowed_length = 2;
  int64_t dry_penalty_last_n = 64;  // 0: off
  // Each breaker 1 to 21 ids; not owned (a Sequence keeps its own copy).
  std::span<const std::span<const int32_t>> dry_sequence_breakers = {};
  double dynatemp_range = 0.0;  // 0: off
  double dynatemp_exponent = 1.0;
  int64_t mirostat = 0;  // 0: off, 1 or 2: the terminal is mirostat v1 or v2
  double mirostat_tau = 5.0;
  double mirostat_eta = 0.1;
  int64_t mirostat_m = 100;
  double adaptive_target = -1.0;  // < 0: off
  double adaptive_decay = 0.9;
};

inline constexpr int64_t kMaxTopLogprobs = 20;

// Logit bias: values[j] is added (in f64) to the widened logit of ids[j]
// after step 1 and before step 2; an id given twice gets both, in order.
// Values must be finite; ids.size() == values.size().
struct LogitBias {
  std::span<const int32_t> ids;
  std::span<const double> values;
};

// Which ids may be drawn. An id is masked out when `allowed` is given and
// lacks it, when `allowed_bits` is given and its bit (bit i % 32 of word
// i / 32) is clear, or when `banned` holds it. A masked-out id's logit
// becomes -inf after the bias, before step 2: it never enters K and its
// logprob is -inf. Empty spans are "not given"; allowed_bits, when given,
// holds at least ceil(V / 32) words.
struct TokenMask {
  std::span<const int32_t> allowed;
  std::span<const int32_t> banned;
  std::span<const uint32_t> allowed_bits;
};

// The element type of a row of logits.
enum class LogitType : uint8_t {
  f32,   // float: Request::logits
  f16,   // IEEE binary16 words: Request::logits16
  bf16,  // bfloat16 words (the upper half of an f32): Request::logits16
};

// One request's inputs for one step. Nothing here is modified by sampling.
struct Request {
  std::span<const float> logits;        // the V next-token logits (f32 rows)
  std::span<const int32_t> prompt;      // prompt ids
  std::span<const int32_t> generated;   // ids generated so far
  SamplingParams params;
  LogitBias bias = {};  // none by default
  TokenMask mask = {};  // nothing masked by default
  // A 16-bit row, read in place (no copy): with logits_type f16 or bf16 the
  // V logits are logits16's words, in host byte order, and `logits` must be
  // empty; with f32 (the default) logits16 must be empty. Each word widens
  // to f32 exactly, and the result is the one for that f32 row: a NaN or
  // +inf word is rejected as a NaN or +inf float is (invalid_logits,
  // field "logits").
  std::span<const uint16_t> logits16 = {};
  LogitType logits_type = LogitType::f32;
  // Set only by Sequence::request: the distinct ids of the penalty window
  // with their counts, kept as tokens arrived, whose ids were checked then.
  // The fast engine's penalties then cost what those ids cost (many of them:
  // a code per id read by the pass that widens the row) and the history is
  // neither checked nor read again; the reference engine reads prompt and
  // generated as always.
  const detail::HistoryCounts* history = nullptr;

  // V: the length of the row logits_type selects.
  size_t vocab() const {
    return logits_type == LogitType::f32 ? logits.size() : logits16.size();
  }
};

enum class Engine {
  reference,  // the spec step by step, scalar (scalar_ref/)
  fast,       // SIMD kernels, bit-identical to the reference (simd/)
};

// Intermediate values of one sample() call, filled by either engine when
// SampleOptions::trace is set (slower: for audits and debugging). Kept sets
// are ascending ids of K after each step, ids whose e underflowed to 0
// included (an id whose l / T is -inf has left K); steps that are off leave
// K as it was. For a greedy token the
// kept sets are empty and the values after step 4 are NaN.
struct Trace {
  std::vector<double> penalized;  // l after steps 1 to 3, all V ids
  double max_logit = NAN;         // M over all V ids (the logprob's softmax)
  double z_all = NAN;             // Z over all V ids
  std::vector<int32_t> kept_top_k, kept_top_p, kept_min_p;
  double z_kept = NAN;            // step 9's Z over the final K
  double u = NAN;                 // step 10's draw
  double cdf_at_choice = NAN;     // step 11's running sum through the id
};

// One id of the distribution a token is drawn from, and its probability.
struct KeptProb {
  int32_t id = -1;
  double q = 0.0;
  friend bool operator==(const KeptProb&, const KeptProb&) = default;
};

struct SampleOptions {
  Engine engine = Engine::fast;
  Trace* trace = nullptr;
  // false: the caller does not need Token::logprob (it is then NaN), so the
  // fast engine skips the softmax over all V ids where no other step needs
  // it (top-k, greedy). The id and the generator are the same either way.
  bool logprob = true;
  // Threads splitting one row's work (the caller and helpers from the library
  // pool or the workspace's executor); results are identical for any count.
  int threads = 1;
  // The first N ids of Request::generated are known to be in [0, V): an
  // earlier call checked them, or this call's sampler returned them. Only
  // the rest are checked, so a loop that appends each token and sets N to
  // generated.size() checks each id once. N beyond generated.size() counts
  // as generated.size().
  size_t generated_checked = 0;
  // When set, receives the distribution step 11 drew from: the ids of the
  // final K whose q is > 0, ascending, with q = e / Z of step 9 (the
  // speculative page's dist); for a greedy token the one id with 1.0. Its
  // memory is reused across calls. Left empty on error.
  std::vector<KeptProb>* distribution = nullptr;
  // true: Token::rank is filled (an O(V) count after sampling, and the
  // logprob's softmax even where logprob is false); false: it is 0 and
  // nothing is computed for it.
  bool rank = false;
  // Mirostat's mu and adaptive-p's average before this token, updated after
  // a drawn one (not on error, not for a greedy token); null: a stateless
  // call, which starts them unset.
  ChainState* chain_state = nullptr;
};

struct TopLogprob {
  int32_t id = -1;
  double logprob = 0.0;  // the raw logprob, as Token::logprob
  friend bool operator==(const TopLogprob&, const TopLogprob&) = default;
};

struct Token {
  int32_t id = -1;
  // log_softmax over all V ids after penalties, before temperature (in any
  // chain: before its first step that is on and neither penalties nor DRY):
  // (l[id] - M) - log(Z). NaN when SampleOptions::logprob is false.
  double logprob = 0.0;
  // The logprob of the distribution the id was drawn from: (t[id] - M_K) -
  // log(Z_K) with t = l / T, M_K the largest t in the final K (+0.0 when it
  // is zero) and Z_K step 9's sum over K; 0.0 for a greedy token.
  double processed_logprob = 0.0;
  // With SampleOptions::rank, the id's place among all V ids in the order
  // of top_logprobs, (raw logprob desc, id asc): 1 + the ids with a larger
  // logprob + the lower ids with an equal one (so 1 for the first entry of
  // top_logprobs; ids whose logits differ can tie by rounding). 0 without.
  int64_t rank = 0;
  // The SamplingParams::top_logprobs ids with the largest raw logprob, in
  // (logprob desc, id asc) order, -inf ones left out: top[0 .. top_count).
  size_t top_count = 0;
  std::array<TopLogprob, kMaxTopLogprobs> top{};

  std::span<const TopLogprob> top_logprobs() const { return {top.data(), top_count}; }
  friend bool operator==(const Token&, const Token&) = default;
};

enum class ErrorCode {
  invalid_parameter,  // a SamplingParams field out of range
  invalid_logits,     // empty, NaN, +inf, every logit -inf, or the row
                      // logits_type names is not the one given
  invalid_ids,        // a prompt, generated, bias or mask id outside [0, V)
  degenerate,         // the mask, penalties or temperature leave no valid logit
  out_of_memory,      // a batch row whose sampling could not allocate
};

struct Error {
  ErrorCode code;
  std::string field;    // "temperature", "logits", "prompt", ...
  std::string message;  // names the field and the value
};

// A value or an error.
template <class T>
class Result {
 public:
  Result(T value) : v_(std::move(value)) {}        // NOLINT: implicit
  Result(Error error) : v_(std::move(error)) {}    // NOLINT: implicit
  bool ok() const { return v_.index() == 0; }
  explicit operator bool() const { return ok(); }
  const T& value() const { return std::get<0>(v_); }
  T& value() { return std::get<0>(v_); }
  const T& operator*() const { return value(); }
  const T* operator->() const { return &value(); }
  const Error& error() const { return std::get<1>(v_); }

 private:
  std::variant<T, Error> v_;
};

// Scratch memory reused across calls so that steady sampling does not
// allocate. One workspace per thread; it grows to the largest V seen.
class EXACTSAMPLE_API Workspace {
 public:
  Workspace();
  ~Workspace();
  Workspace(Workspace&&) noexcept;
  Workspace& operator=(Workspace&&) noexcept;

 private:
  friend struct detail::WorkspaceAccess;
  std::unique_ptr<detail::WorkspaceImpl> impl_;
};

// The error sample() would return for this request, or none: the whole
// sampling path runs (on a scratch generator and a per-thread workspace) and
// the token is discarded, so a bias, mask, penalty or temperature that only
// the steps find wrong is reported too. The caller's generator is not read.
EXACTSAMPLE_API Result<std::monostate> validate(const Request& request);

// A chain from a preset's name ("spec", "llama") or from step names, with
// the page's errors (field "chain") for an unknown name or a preset in a
// list; a name listed twice is validation's to report.
EXACTSAMPLE_API Result<Chain> chain_from_preset(std::string_view name);
EXACTSAMPLE_API Result<Chain> chain_from_names(std::span<const std::string_view> names);
// A step's name, as the chain lists it.
EXACTSAMPLE_API std::string_view chain_step_name(ChainStep step);

// Steps 1 to 11 for one token, run as the request's chain. Takes one
// uniform_f64 from rng for each XTC step that is on and reached, then one
// when the token is sampled, none when greedy (temperature 0) or on error.
EXACTSAMPLE_API Result<Token> sample(const Request& request, Pcg32& rng,
                                     Workspace& workspace,
                                     const SampleOptions& options = {});

}  // namespace exactsample

#endif  // EXACTSAMPLE_CXX20
