// The llama_sampler over exactsample's sequence C ABI (exactsample_llama.h).
// C++17, as llama.cpp builds.
#include "exactsample_llama.h"

#include "common_params.hpp"

#include <cmath>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

namespace {

// The last apply or sample: its outcome and, for a logprob on request, what
// its request needs to run again: the generator before the draw and the
// number of generated ids before the token (the row stays in
// State::logits, and State::ids when not dense).
struct Last {
  bool has = false;  // an apply or sample since creation or reset
  exactsample_token token{};
  bool logprob_pending = false;  // sampled ON_REQUEST, the logprob not computed yet
  bool dense = true;
  exactsample_rng rng_before{};
  size_t generated_before = 0;
};

// One sampler's request and the scratch its apply reuses from call to call.
struct State {
  exactsample_sampler* sampler = nullptr;  // thread context: engine, scratch, last error
  exactsample_sequence* sequence = nullptr;
  size_t vocab = 0;
  bool started = false;  // an apply since creation or reset: accepts are generated tokens
  int logprob_mode = EXACTSAMPLE_LLAMA_LOGPROB_EVERY_TOKEN;
  // Mirostat or adaptive-p: their state moves with each token, so a logprob
  // asked later could not run the token's request again; ON_REQUEST
  // computes it with the token.
  bool stateful = false;
  Last last;
  std::vector<float> logits;        // the candidates' logits, in array order
  std::vector<int32_t> ids;         // their ids, when the array is not the dense row
  std::vector<int32_t> kept_ids;    // the final kept set of the last apply
  std::vector<double> kept_probs;
  std::vector<int32_t> position;    // id -> index in the array, for a filtered array

  State() = default;
  State(const State&) = delete;
  State& operator=(const State&) = delete;
  ~State() {
    if (sequence != nullptr) exactsample_sequence_destroy(sequence);
    if (sampler != nullptr) exactsample_sampler_destroy(sampler);
  }
};

// Through llama.cpp's log callback (llama_log_set), llama.cpp's own default
// (standard error) when none was set.
void Log(const std::string& text) {
  ggml_log_callback callback = nullptr;
  void* user = nullptr;
  llama_log_get(&callback, &user);
  if (callback != nullptr) callback(GGML_LOG_LEVEL_ERROR, text.c_str(), user);
}

std::string Failure(const State& s, exactsample_status status) {
  return std::string(exactsample_status_name(status)) + ": " +
         exactsample_sampler_last_error(s.sampler);
}

const char* Name(const llama_sampler*) { return "exactsample"; }

void Accept(llama_sampler* smpl, llama_token token) {
  State& s = *static_cast<State*>(smpl->ctx);
  const exactsample_status status =
      s.started ? exactsample_sequence_accept(s.sampler, s.sequence, token)
                : exactsample_sequence_accept_prompt(s.sampler, s.sequence, &token, 1);
  if (status != EXACTSAMPLE_OK) {
    Log("exactsample: accept: " + Failure(s, status) + "; the token is ignored\n");
  }
}

// The fallback's token: the largest logit, the first on ties, NaN never (the
// first candidate when every logit is NaN).
template <typename Logit>
size_t LargestOf(size_t n, Logit logit) {
  size_t best = n;  // none yet
  for (size_t j = 0; j < n; ++j) {
    const float l = logit(j);
    if (l == l && (best == n || l > logit(best))) best = j;
  }
  return best == n ? 0 : best;
}

size_t LargestLogit(const llama_token_data* data, size_t n) {
  return LargestOf(n, [&](size_t j) { return data[j].logit; });
}

// A new last apply or sample, its outcome not known yet.
void Begin(State& s) {
  s.started = true;
  s.last = {};
  s.last.has = true;
}

// The request for `n` logits: the dense row when ids is null, else
// candidates (logits[j] the logit of ids[j]).
exactsample_request RowRequest(const State& s, const float* logits, const int32_t* ids,
                               size_t n) {
  exactsample_request request{};
  request.struct_size = sizeof request;
  request.logits = logits;
  request.logits_type = EXACTSAMPLE_LOGITS_F32;
  request.vocab = s.vocab;
  request.candidate_ids = ids;
  request.candidate_count = ids == nullptr ? 0 : n;
  return request;
}

// One token from `n` logits (RowRequest's), with its logprob as
// s.logprob_mode says; ON_REQUEST keeps what the logprob's request needs
// (the row must be s.logits and s.ids). The kept set goes to s.kept_ids /
// s.kept_probs (room for `kept_capacity`), *kept its size; kept null: not
// made at all.
exactsample_status Sample(State& s, const float* logits, const int32_t* ids, size_t n,
                          size_t kept_capacity, size_t* kept, exactsample_token* token) {
  Begin(s);
  if (s.kept_ids.size() < kept_capacity) {
    s.kept_ids.resize(kept_capacity);
    s.kept_probs.resize(kept_capacity);
  }
  const bool on_request = s.logprob_mode == EXACTSAMPLE_LLAMA_LOGPROB_ON_REQUEST && !s.stateful;
  const bool every_token =
      s.logprob_mode == EXACTSAMPLE_LLAMA_LOGPROB_EVERY_TOKEN ||
      (s.logprob_mode == EXACTSAMPLE_LLAMA_LOGPROB_ON_REQUEST && s.stateful);
  exactsample_request request = RowRequest(s, logits, ids, n);
  double logprob = 0.0;
  request.logprob = every_token ? &logprob : nullptr;
  request.kept_ids = kept_capacity == 0 ? nullptr : s.kept_ids.data();
  request.kept_probs = kept_capacity == 0 ? nullptr : s.kept_probs.data();
  request.kept_capacity = kept_capacity;
  request.kept_count = kept;
  if (on_request) {
    s.last.dense = ids == nullptr;
    exactsample_sequence_rng(s.sequence, &s.last.rng_before);
    exactsample_sequence_lengths(s.sequence, nullptr, &s.last.generated_before);
  }
  const exactsample_status status =
      exactsample_sample_request(s.sampler, s.sequence, &request, token);
  // Without request.logprob the token's is NaN: not computed.
  if (every_token) token->logprob = logprob;
  s.last.token = status == EXACTSAMPLE_OK ? *token : exactsample_token{status, -1, 0.0};
  s.last.logprob_pending = on_request && status == EXACTSAMPLE_OK;
  return status;
}

// The last token's logprob when it was sampled without it: its request
// again, on a copy of the sequence as it stood before the token (the
// generated ids then, the generator where the token's draw began), so the
// same draw and token, and the logprob that request gives with them.
exactsample_status LogprobOnRequest(State& s, double* logprob) {
  exactsample_sequence* before = nullptr;
  exactsample_status status = exactsample_sequence_clone(s.sampler, s.sequence, &before);
  if (status == EXACTSAMPLE_OK) {
    status = exactsample_sequence_truncate(s.sampler, before, s.last.generated_before);
  }
  if (status == EXACTSAMPLE_OK) {
    status = exactsample_sequence_set_rng(s.sampler, before, &s.last.rng_before);
  }
  if (status == EXACTSAMPLE_OK) {
    exactsample_request request = RowRequest(s, s.logits.data(),
                                             s.last.dense ? nullptr : s.ids.data(),
                                             s.logits.size());
    request.logprob = logprob;
    exactsample_token again{};
    status = exactsample_sample_request(s.sampler, before, &request, &again);
  }
  exactsample_sequence_destroy(before);
  return status;
}

// The fallback after `status`: the largest logit (LargestLogit), logged.
void FallBack(State& s, exactsample_status status, int32_t id) {
  s.last.token = {status, id, 0.0};
  Log("exactsample: apply: " + Failure(s, status) +
      "; selected the candidate with the largest logit (id " + std::to_string(id) + ")\n");
}

void Apply(llama_sampler* smpl, llama_token_data_array* cur) {
  State& s = *static_cast<State*>(smpl->ctx);
  const size_t n = cur->size;
  if (n == 0) {
    Begin(s);
    s.last.token = {EXACTSAMPLE_INVALID_LOGITS, -1, 0.0};
    cur->selected = -1;
    Log("exactsample: apply: the candidate array is empty; nothing selected (selected = -1)\n");
    return;
  }
  // One pass reads the logits into a row and tells whether the array is the
  // dense row (every id in id order) and whether any p is set; the ids are
  // read, and the p cleared, only when needed (the fresh array
  // llama_sampler_sample builds is dense with every p 0). Branch-free, so
  // that it runs at the speed of the memory.
  s.logits.resize(n);
  int32_t order = n == s.vocab ? 0 : 1;
  uint32_t any_p = 0;
  for (size_t j = 0; j < n; ++j) {
    const llama_token_data& d = cur->data[j];
    s.logits[j] = d.logit;
    order |= d.id ^ static_cast<int32_t>(j);
    any_p |= d.p != 0.0f;
  }
  const bool dense = order == 0;
  if (!dense) {
    s.ids.resize(n);
    for (size_t j = 0; j < n; ++j) s.ids[j] = cur->data[j].id;
  }
  if (any_p != 0) {
    for (size_t j = 0; j < n; ++j) cur->data[j].p = 0.0f;
  }
  size_t kept = 0;
  exactsample_token token{};
  const exactsample_status status =
      Sample(s, s.logits.data(), dense ? nullptr : s.ids.data(), n, n, &kept, &token);
  if (status != EXACTSAMPLE_OK) {
    const size_t best = LargestLogit(cur->data, n);
    cur->selected = static_cast<int64_t>(best);
    cur->data[best].p = 1.0f;
    FallBack(s, status, cur->data[best].id);
    return;
  }
  // The library checked the ids: distinct and in [0, V), so each kept id has
  // one index.
  if (!dense) {
    s.position.resize(s.vocab);
    for (size_t j = 0; j < n; ++j) s.position[s.ids[j]] = static_cast<int32_t>(j);
  }
  const auto index = [&](int32_t id) { return dense ? static_cast<size_t>(id) : s.position[id]; };
  for (size_t k = 0; k < kept && k < n; ++k) {
    cur->data[index(s.kept_ids[k])].p = static_cast<float>(s.kept_probs[k]);
  }
  cur->selected = static_cast<int64_t>(index(token.id));
}

void Reset(llama_sampler* smpl) {
  State& s = *static_cast<State*>(smpl->ctx);
  const exactsample_status status = exactsample_sequence_reset(s.sampler, s.sequence);
  if (status != EXACTSAMPLE_OK) Log("exactsample: reset: " + Failure(s, status) + "\n");
  s.started = false;
  s.last = {};
}

void Free(llama_sampler* smpl) { delete static_cast<State*>(smpl->ctx); }

llama_sampler* Wrap(std::unique_ptr<State> s);

// A State for rows of `vocab` ids with its thread context, or null (logged).
std::unique_ptr<State> NewState(size_t vocab, const std::string& what) {
  auto s = std::make_unique<State>();
  s->vocab = vocab;
  const exactsample_status status = exactsample_sampler_create(EXACTSAMPLE_ENGINE_FAST, &s->sampler);
  if (status != EXACTSAMPLE_OK) {
    Log("exactsample: " + what + ": " + exactsample_status_name(status) + "; no sampler made\n");
    return nullptr;
  }
  return s;
}

llama_sampler* Clone(const llama_sampler* smpl) {
  const State& from = *static_cast<const State*>(smpl->ctx);
  std::unique_ptr<State> s = NewState(from.vocab, "clone");
  if (s == nullptr) return nullptr;
  const exactsample_status status =
      exactsample_sequence_clone(s->sampler, from.sequence, &s->sequence);
  if (status != EXACTSAMPLE_OK) {
    Log("exactsample: clone: " + Failure(*s, status) + "; no sampler made\n");
    return nullptr;
  }
  s->started = from.started;
  s->logprob_mode = from.logprob_mode;
  s->stateful = from.stateful;
  s->last = from.last;
  if (from.last.logprob_pending) {  // the row its logprob's request reads
    s->logits = from.logits;
    s->ids = from.ids;
  }
  return Wrap(std::move(s));
}

llama_sampler_i MakeInterface() {
  llama_sampler_i i{};
  i.name = Name;
  i.accept = Accept;
  i.apply = Apply;
  i.reset = Reset;
  i.clone = Clone;
  i.free = Free;
  return i;
}

llama_sampler_i g_interface = MakeInterface();

llama_sampler* Wrap(std::unique_ptr<State> s) {
  return llama_sampler_init(&g_interface, s.release());
}

State* Of(const llama_sampler* smpl) {
  if (smpl == nullptr || smpl->iface != &g_interface) return nullptr;
  return static_cast<State*>(smpl->ctx);
}

// NewState for the vocabulary's size; null (logged) for a null vocab.
std::unique_ptr<State> NewState(const llama_vocab* vocab, const std::string& what) {
  if (vocab == nullptr) {
    Log("exactsample: " + what + ": vocab is NULL; no sampler made\n");
    return nullptr;
  }
  return NewState(static_cast<size_t>(llama_vocab_n_tokens(vocab)), what);
}

// The little-endian u64 at `offset` of a snapshot that restored
// (docs/sequence.md, "Snapshot format").
uint64_t SnapshotU64(const unsigned char* bytes, size_t offset) {
  uint64_t v = 0;
  for (int i = 7; i >= 0; --i) v = v << 8 | bytes[offset + i];
  return v;
}

// Whether a snapshot's parameters carry state: mirostat (the u64 at 112)
// or adaptive_target >= 0 (the f64 at 208); version 1 has neither.
bool SnapshotStateful(const unsigned char* bytes) {
  if (SnapshotU64(bytes, 4) % (uint64_t{1} << 32) < 2) return false;
  const uint64_t target_bits = SnapshotU64(bytes, 208);
  double target = 0;
  std::memcpy(&target, &target_bits, sizeof target);
  return SnapshotU64(bytes, 112) != 0 || target >= 0;
}

// A sampler from a mapping `map` fills (FromCommon, FromChain), or null with
// the mapping's problem logged.
template <typename Map>
llama_sampler* InitMapped(const char* what, const llama_vocab* vocab,
                          const exactsample_llama_common* common, const exactsample_extras* extras,
                          uint64_t seed, Map map) {
  if (vocab == nullptr || common == nullptr) {
    Log(std::string("exactsample: ") + what + ": " + (vocab == nullptr ? "vocab" : "common") +
        " is NULL; no sampler made\n");
    return nullptr;
  }
  exactsample_llama::Mapped mapped;
  if (const std::string problem = map(*common, mapped); !problem.empty()) {
    Log(std::string("exactsample: ") + what + ": " + problem + "; no sampler made\n");
    return nullptr;
  }
  return exactsample_llama_init(vocab, &mapped.params, extras, seed);
}

}  // namespace

extern "C" {

llama_sampler* exactsample_llama_init(const llama_vocab* vocab, const exactsample_params* params,
                                      const exactsample_extras* extras, uint64_t seed) {
  std::unique_ptr<State> s = NewState(vocab, "init");
  if (s == nullptr) return nullptr;
  exactsample_sequence_config config{};
  config.struct_size = sizeof config;
  config.vocab = s->vocab;
  config.params = params;
  config.extras = extras;
  config.seed = seed;
  const exactsample_status status = exactsample_sequence_create(s->sampler, &config, &s->sequence);
  if (status != EXACTSAMPLE_OK) {
    Log("exactsample: init: " + Failure(*s, status) + "; no sampler made\n");
    return nullptr;
  }
  // The struct was checked: its chain fields are read when it holds them.
  s->stateful = params != nullptr && params->struct_size == sizeof *params &&
                (params->mirostat != 0 || params->adaptive_target >= 0);
  return Wrap(std::move(s));
}

void exactsample_llama_common_init(exactsample_llama_common* c) {
  if (c == nullptr) return;
  // common_params_sampling's defaults (common/common.h).
  static const char* const kBreakers[] = {"\n", ":", "\"", "*"};
  static const char* const kSamplers[] = {"penalties", "dry",   "top_n_sigma",
                                          "top_k",     "typ_p", "top_p",
                                          "min_p",     "xtc",   "temperature"};
  *c = {};
  c->struct_size = sizeof *c;
  c->top_k = 40;
  c->top_p = 0.95f;
  c->min_p = 0.05f;
  c->typ_p = 1.0f;
  c->temp = 0.8f;
  c->dynatemp_range = 0.0f;
  c->dynatemp_exponent = 1.0f;
  c->penalty_last_n = 64;
  c->penalty_repeat = 1.0f;
  c->penalty_freq = 0.0f;
  c->penalty_present = 0.0f;
  c->dry_multiplier = 0.0f;
  c->dry_base = 1.75f;
  c->dry_allowed_length = 2;
  c->dry_penalty_last_n = 64;
  c->dry_sequence_breakers = kBreakers;
  c->n_dry_sequence_breakers = 4;
  c->mirostat = 0;
  c->mirostat_tau = 5.0f;
  c->mirostat_eta = 0.1f;
  c->xtc_probability = 0.0f;
  c->xtc_threshold = 0.1f;
  c->top_n_sigma = -1.0f;
  c->min_keep = 0;
  c->adaptive_target = -1.0f;
  c->adaptive_decay = 0.9f;
  c->samplers = kSamplers;
  c->n_samplers = 9;
}

llama_sampler* exactsample_llama_init_common(const llama_vocab* vocab,
                                             const exactsample_llama_common* common,
                                             const exactsample_extras* extras, uint64_t seed) {
  return InitMapped("init_common", vocab, common, extras, seed,
                    [&](const exactsample_llama_common& c, exactsample_llama::Mapped& m) {
                      return exactsample_llama::FromCommon(vocab, c, m);
                    });
}

llama_sampler* exactsample_llama_init_from_chain(const llama_vocab* vocab, llama_sampler* chain,
                                                 const exactsample_llama_common* common,
                                                 const exactsample_extras* extras, uint64_t seed) {
  return InitMapped("init_from_chain", vocab, common, extras, seed,
                    [&](const exactsample_llama_common& c, exactsample_llama::Mapped& m) {
                      return exactsample_llama::FromChain(vocab, chain, c, m);
                    });
}

llama_sampler* exactsample_llama_init_from_snapshot(const llama_vocab* vocab, const void* snapshot,
                                                    size_t size) {
  std::unique_ptr<State> s = NewState(vocab, "init_from_snapshot");
  if (s == nullptr) return nullptr;
  exactsample_status status = exactsample_sequence_restore(s->sampler, snapshot, size, &s->sequence);
  size_t prompt_len = 0;
  size_t generated_len = 0;
  if (status == EXACTSAMPLE_OK) {
    status = exactsample_sequence_lengths(s->sequence, &prompt_len, &generated_len);
  }
  if (status != EXACTSAMPLE_OK) {
    Log("exactsample: init_from_snapshot: " + Failure(*s, status) + "; no sampler made\n");
    return nullptr;
  }
  const uint64_t snapshot_vocab = SnapshotU64(static_cast<const unsigned char*>(snapshot), 8);
  if (snapshot_vocab != s->vocab) {
    Log("exactsample: init_from_snapshot: the snapshot's V = " + std::to_string(snapshot_vocab) +
        ", the vocabulary's " + std::to_string(s->vocab) + "; no sampler made\n");
    return nullptr;
  }
  s->started = generated_len > 0;
  s->stateful = SnapshotStateful(static_cast<const unsigned char*>(snapshot));
  return Wrap(std::move(s));
}

llama_token exactsample_llama_sample(llama_sampler* smpl, llama_context* ctx, int32_t idx) {
  State* s = Of(smpl);
  if (s == nullptr) return llama_sampler_sample(smpl, ctx, idx);
  const float* logits = llama_get_logits_ith(ctx, idx);
  if (logits == nullptr) {
    Begin(*s);
    s->last.token = {EXACTSAMPLE_INVALID_LOGITS, -1, 0.0};
    Log("exactsample: sample: llama_get_logits_ith(ctx, " + std::to_string(idx) +
        ") has no logits; no token (-1)\n");
    return -1;
  }
  // ON_REQUEST: a copy of the row, which the logprob's request reads
  // whenever it is asked for (llama.cpp's is overwritten by the next decode).
  if (s->logprob_mode == EXACTSAMPLE_LLAMA_LOGPROB_ON_REQUEST) {
    s->logits.assign(logits, logits + s->vocab);
    logits = s->logits.data();
  }
  // No candidate array to fill: the kept set is not asked for.
  exactsample_token token{};
  const exactsample_status status = Sample(*s, logits, nullptr, s->vocab, 0, nullptr, &token);
  if (status != EXACTSAMPLE_OK) {
    token.id = static_cast<int32_t>(LargestOf(s->vocab, [&](size_t j) { return logits[j]; }));
    FallBack(*s, status, token.id);
  }
  Accept(smpl, token.id);
  return token.id;
}

exactsample_status exactsample_llama_snapshot(const llama_sampler* smpl, void* buffer,
                                              size_t capacity, size_t* size) {
  const State* s = Of(smpl);
  if (s == nullptr) return EXACTSAMPLE_INVALID_ARGUMENT;
  return exactsample_sequence_snapshot(s->sampler, s->sequence, buffer, capacity, size);
}

exactsample_status exactsample_llama_set_logprob(llama_sampler* smpl, int mode) {
  State* s = Of(smpl);
  if (s == nullptr) return EXACTSAMPLE_INVALID_ARGUMENT;
  if (mode != EXACTSAMPLE_LLAMA_LOGPROB_EVERY_TOKEN && mode != EXACTSAMPLE_LLAMA_LOGPROB_ON_REQUEST &&
      mode != EXACTSAMPLE_LLAMA_LOGPROB_OFF) {
    Log("exactsample: set_logprob: mode = " + std::to_string(mode) +
        " is none of EVERY_TOKEN (0), ON_REQUEST (1), OFF (2); the mode is unchanged\n");
    return EXACTSAMPLE_INVALID_ARGUMENT;
  }
  s->logprob_mode = mode;
  return EXACTSAMPLE_OK;
}

exactsample_status exactsample_llama_last(const llama_sampler* smpl, exactsample_token* out) {
  State* s = Of(smpl);
  if (s == nullptr || !s->last.has || out == nullptr) return EXACTSAMPLE_INVALID_ARGUMENT;
  if (s->last.logprob_pending) {
    double logprob = std::nan("");
    const exactsample_status status = LogprobOnRequest(*s, &logprob);
    if (status == EXACTSAMPLE_OK) {
      s->last.token.logprob = logprob;
      s->last.logprob_pending = false;
    } else {
      Log("exactsample: last: " + Failure(*s, status) + "; the logprob is not computed (NaN)\n");
    }
  }
  *out = s->last.token;
  return EXACTSAMPLE_OK;
}

exactsample_status exactsample_llama_rng(const llama_sampler* smpl, exactsample_rng* out) {
  const State* s = Of(smpl);
  if (s == nullptr) return EXACTSAMPLE_INVALID_ARGUMENT;
  return exactsample_sequence_rng(s->sequence, out);
}

}  // extern "C"
