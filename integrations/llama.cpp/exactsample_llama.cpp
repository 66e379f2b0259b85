// The llama_sampler over exactsample's sequence C ABI (exactsample_llama.h).
// C++17, as llama.cpp builds.
#include "exactsample_llama.h"

#include <memory>
#include <string>
#include <vector>

namespace {

// One sampler's request and the scratch its apply reuses from call to call.
struct State {
  exactsample_sampler* sampler = nullptr;  // thread context: engine, scratch, last error
  exactsample_sequence* sequence = nullptr;
  size_t vocab = 0;
  bool started = false;  // an apply since creation or reset: accepts are generated tokens
  bool has_last = false;
  exactsample_token last{};
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

// One token from `n` logits: the dense row when ids is null, else
// candidates (logits[j] the logit of ids[j]). The kept set goes to
// s.kept_ids / s.kept_probs (room for `kept_capacity`), *kept its size;
// kept null: not made at all.
exactsample_status Sample(State& s, const float* logits, const int32_t* ids, size_t n,
                          size_t kept_capacity, size_t* kept, exactsample_token* token) {
  s.started = true;
  s.has_last = true;
  if (s.kept_ids.size() < kept_capacity) {
    s.kept_ids.resize(kept_capacity);
    s.kept_probs.resize(kept_capacity);
  }
  exactsample_request request{};
  request.struct_size = sizeof request;
  request.logits = logits;
  request.logits_type = EXACTSAMPLE_LOGITS_F32;
  request.vocab = s.vocab;
  request.candidate_ids = ids;
  request.candidate_count = ids == nullptr ? 0 : n;
  double logprob = 0.0;
  request.logprob = &logprob;
  request.kept_ids = kept_capacity == 0 ? nullptr : s.kept_ids.data();
  request.kept_probs = kept_capacity == 0 ? nullptr : s.kept_probs.data();
  request.kept_capacity = kept_capacity;
  request.kept_count = kept;
  const exactsample_status status =
      exactsample_sample_request(s.sampler, s.sequence, &request, token);
  token->logprob = logprob;
  s.last = status == EXACTSAMPLE_OK ? *token : exactsample_token{status, -1, 0.0};
  return status;
}

// The fallback after `status`: the largest logit (LargestLogit), logged.
void FallBack(State& s, exactsample_status status, int32_t id) {
  s.last = {status, id, 0.0};
  Log("exactsample: apply: " + Failure(s, status) +
      "; selected the candidate with the largest logit (id " + std::to_string(id) + ")\n");
}

void Apply(llama_sampler* smpl, llama_token_data_array* cur) {
  State& s = *static_cast<State*>(smpl->ctx);
  const size_t n = cur->size;
  if (n == 0) {
    s.started = true;
    s.has_last = true;
    s.last = {EXACTSAMPLE_INVALID_LOGITS, -1, 0.0};
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
  s.has_last = false;
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
  s->has_last = from.has_last;
  s->last = from.last;
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

// V in a snapshot that restored: bytes 8 to 15, a little-endian u64
// (docs/sequence.md, "Snapshot format").
uint64_t SnapshotVocab(const unsigned char* bytes) {
  uint64_t v = 0;
  for (int i = 7; i >= 0; --i) v = v << 8 | bytes[8 + i];
  return v;
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
  return Wrap(std::move(s));
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
  const uint64_t snapshot_vocab = SnapshotVocab(static_cast<const unsigned char*>(snapshot));
  if (snapshot_vocab != s->vocab) {
    Log("exactsample: init_from_snapshot: the snapshot's V = " + std::to_string(snapshot_vocab) +
        ", the vocabulary's " + std::to_string(s->vocab) + "; no sampler made\n");
    return nullptr;
  }
  s->started = generated_len > 0;
  return Wrap(std::move(s));
}

llama_token exactsample_llama_sample(llama_sampler* smpl, llama_context* ctx, int32_t idx) {
  State* s = Of(smpl);
  if (s == nullptr) return llama_sampler_sample(smpl, ctx, idx);
  const float* logits = llama_get_logits_ith(ctx, idx);
  if (logits == nullptr) {
    s->started = true;
    s->has_last = true;
    s->last = {EXACTSAMPLE_INVALID_LOGITS, -1, 0.0};
    Log("exactsample: sample: llama_get_logits_ith(ctx, " + std::to_string(idx) +
        ") has no logits; no token (-1)\n");
    return -1;
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

exactsample_status exactsample_llama_last(const llama_sampler* smpl, exactsample_token* out) {
  const State* s = Of(smpl);
  if (s == nullptr || !s->has_last || out == nullptr) return EXACTSAMPLE_INVALID_ARGUMENT;
  *out = s->last;
  return EXACTSAMPLE_OK;
}

exactsample_status exactsample_llama_rng(const llama_sampler* smpl, exactsample_rng* out) {
  const State* s = Of(smpl);
  if (s == nullptr) return EXACTSAMPLE_INVALID_ARGUMENT;
  return exactsample_sequence_rng(s->sequence, out);
}

}  // extern "C"
