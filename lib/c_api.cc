// The C ABI over the C++ API: argument checks, conversions, and no
// exception crossing the boundary.
#include "exactsample.h"

#include <algorithm>
#include <cstdint>
#include <initializer_list>
#include <new>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "exactsample/batch.hpp"
#include "exactsample/exactsample.hpp"
#include "exactsample/targets.hpp"
#include "exactsample/testing.hpp"
#include "lib/row_passes.hpp"

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

namespace {

using exactsample::ErrorCode;
using exactsample::Pcg32;

exactsample_status StatusOf(ErrorCode code) {
  switch (code) {
    case ErrorCode::invalid_parameter: return EXACTSAMPLE_INVALID_PARAMETER;
    case ErrorCode::invalid_logits: return EXACTSAMPLE_INVALID_LOGITS;
    case ErrorCode::invalid_ids: return EXACTSAMPLE_INVALID_IDS;
    case ErrorCode::degenerate: return EXACTSAMPLE_DEGENERATE;
    case ErrorCode::out_of_memory: return EXACTSAMPLE_OUT_OF_MEMORY;
  }
  return EXACTSAMPLE_INTERNAL;
}

Pcg32 ToPcg(const exactsample_rng& r) {
  return Pcg32::FromState(r.state, r.inc, r.draws_u32);
}

void FromPcg(const Pcg32& g, exactsample_rng* out) {
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

exactsample_status Fail(exactsample_sampler* s, exactsample_status status,
                        std::string message) {
  if (s != nullptr) s->last_error = std::move(message);
  return status;
}

// A null pointer is only valid for an empty id list.
bool IdsOk(const int32_t* ids, size_t len) { return ids != nullptr || len == 0; }

// "S.struct_size = N, expected M": a larger struct_size (a newer caller) is
// refused rather than half-read, a smaller one rather than read past.
std::string StructSizeProblem(const char* name, uint32_t given, size_t expected,
                              const char* fix) {
  if (given == expected) return {};
  return std::string(name) + ".struct_size = " + std::to_string(given) + ", expected " +
         std::to_string(expected) + " (sizeof(" + name + ") in this version; " + fix + ")";
}

// What is wrong with params, "" when nothing.
std::string ParamsProblem(const exactsample_params* p) {
  if (p == nullptr) return "params is NULL";
  return StructSizeProblem("exactsample_params", p->struct_size, sizeof(exactsample_params),
                           "exactsample_params_init sets it");
}

// What is wrong with one argument: its status and a message naming it;
// none when it is well formed.
struct Fault {
  exactsample_status status;
  std::string message;
};
using MaybeFault = std::optional<Fault>;

MaybeFault Invalid(std::string problem) {
  if (problem.empty()) return std::nullopt;
  return Fault{EXACTSAMPLE_INVALID_ARGUMENT, std::move(problem)};
}

// A null pointer `name` is only valid for an empty array (its length `length`).
MaybeFault NullArray(const char* name, const void* p, const char* length, size_t len) {
  if (p != nullptr || len == 0) return std::nullopt;
  return Invalid(std::string(name) + " is NULL with " + length + " = " + std::to_string(len));
}

MaybeFault NullPointer(const char* name, const void* p) {
  return p != nullptr ? std::nullopt : Invalid(std::string(name) + " is NULL");
}

// The first of the faults, if any.
MaybeFault First(std::initializer_list<MaybeFault> faults) {
  for (const MaybeFault& f : faults) {
    if (f) return f;
  }
  return std::nullopt;
}

exactsample::SamplingParams ToParams(const exactsample_params& p) {
  return {p.temperature, p.repetition_penalty, p.presence_penalty,
          p.frequency_penalty, p.top_k, p.top_p, p.min_p};
}

// A caller's row: f32 values or 16-bit words of `type`.
struct CRow {
  const void* data;
  exactsample::LogitType type;

  size_t WordSize() const {
    return type == exactsample::LogitType::f32 ? sizeof(float) : sizeof(uint16_t);
  }
  // Row i of a matrix with row_stride words per row.
  CRow Row(size_t i, size_t row_stride) const {
    return {static_cast<const unsigned char*>(data) + i * row_stride * WordSize(), type};
  }
};

// A C logits_type argument as the C++ type; nullopt for any other int.
std::optional<exactsample::LogitType> HalfType(int logits_type) {
  if (logits_type == EXACTSAMPLE_LOGITS_F16) return exactsample::LogitType::f16;
  if (logits_type == EXACTSAMPLE_LOGITS_BF16) return exactsample::LogitType::bf16;
  return std::nullopt;
}

exactsample::Request ToRequest(CRow logits, size_t vocab,
                               const int32_t* prompt, size_t prompt_len,
                               const int32_t* generated, size_t generated_len,
                               const exactsample_params& params) {
  exactsample::Request r{{},
                         {prompt, prompt_len},
                         {generated, generated_len},
                         ToParams(params)};
  r.logits_type = logits.type;
  if (logits.type == exactsample::LogitType::f32) {
    r.logits = {static_cast<const float*>(logits.data), vocab};
  } else {
    r.logits16 = {static_cast<const uint16_t*>(logits.data), vocab};
  }
  return r;
}

// What is wrong with an exactsample_extras, "" when nothing: its
// struct_size, an array for every length, output arrays for top_logprobs > 0.
std::string ExtrasProblem(const exactsample_extras& x) {
  std::string size = StructSizeProblem("exactsample_extras", x.struct_size,
                                       sizeof(exactsample_extras),
                                       "zero the struct and set it to sizeof");
  if (!size.empty()) return size;
  const auto null_with = [](const char* array, const char* length, size_t n) {
    return std::string("extras.") + array + " is NULL with " + length + " = " + std::to_string(n);
  };
  if (!IdsOk(x.bias_ids, x.bias_len)) return null_with("bias_ids", "bias_len", x.bias_len);
  if (x.bias_values == nullptr && x.bias_len != 0) {
    return null_with("bias_values", "bias_len", x.bias_len);
  }
  if (!IdsOk(x.allowed_ids, x.allowed_len)) {
    return null_with("allowed_ids", "allowed_len", x.allowed_len);
  }
  if (!IdsOk(x.banned_ids, x.banned_len)) return null_with("banned_ids", "banned_len", x.banned_len);
  if (x.allowed_bitmask == nullptr && x.allowed_bitmask_words != 0) {
    return null_with("allowed_bitmask", "allowed_bitmask_words", x.allowed_bitmask_words);
  }
  if (x.top_logprobs > 0 && (x.top_ids == nullptr || x.top_logprob_values == nullptr)) {
    return "extras.top_logprobs = " + std::to_string(x.top_logprobs) +
           " needs top_ids and top_logprob_values (one is NULL)";
  }
  return {};
}

// ExtrasProblem's fault, or an allow list given (not NULL) but empty, which
// allows no id: degenerate, as every id masked out is.
MaybeFault ExtrasFault(const exactsample_extras& x) {
  if (auto f = Invalid(ExtrasProblem(x))) return f;
  if (x.allowed_ids == nullptr || x.allowed_len != 0) return std::nullopt;
  return Fault{EXACTSAMPLE_DEGENERATE,
               "extras.allowed_ids: not NULL with allowed_len = 0, an empty list: no id may "
               "be drawn; pass NULL to allow every id"};
}

// What is wrong with batch row r (and its extras, when given), prefixed
// "row i: ".
MaybeFault RowFault(size_t i, const exactsample_row& r, const exactsample_extras* extras) {
  auto f = First({NullArray("prompt", r.prompt, "prompt_len", r.prompt_len),
                  NullArray("generated", r.generated, "generated_len", r.generated_len),
                  NullPointer("rng", r.rng), Invalid(ParamsProblem(r.params))});
  if (!f && extras != nullptr) f = ExtrasFault(extras[i]);
  if (f) f->message = "row " + std::to_string(i) + ": " + f->message;
  return f;
}

// The request with x's bias, mask and top-N.
exactsample::Request WithExtras(exactsample::Request request, const exactsample_extras& x) {
  request.params.top_logprobs = x.top_logprobs;
  request.bias = {{x.bias_ids, x.bias_len}, {x.bias_values, x.bias_len}};
  request.mask = {{x.allowed_ids, x.allowed_len},
                  {x.banned_ids, x.banned_len},
                  {x.allowed_bitmask, x.allowed_bitmask_words}};
  return request;
}

// x's outputs (each where given) from a sampled token.
void WriteExtras(const exactsample::Token& t, const exactsample_extras& x) {
  if (x.processed_logprob != nullptr) *x.processed_logprob = t.processed_logprob;
  for (size_t j = 0; j < t.top_count; ++j) {
    x.top_ids[j] = t.top[j].id;
    x.top_logprob_values[j] = t.top[j].logprob;
  }
  if (x.top_count != nullptr) *x.top_count = t.top_count;
}

// Names and support do not change while the process runs: list them once,
// so the names handed out stay valid.
const std::vector<exactsample::TargetInfo>& CompiledTargets() {
  static const std::vector<exactsample::TargetInfo> targets =
      exactsample::compiled_targets();
  return targets;
}

// The batch calls: checks the shared arguments, samples every row (with
// extras[i], when extras is not null) and hands each row's (status, id,
// logprob) to write(i, ...).
template <class Write>
exactsample_status SampleBatch(exactsample_sampler* s, CRow logits,
                               size_t rows, size_t vocab, size_t row_stride,
                               const exactsample_row* row_requests,
                               const exactsample_extras* extras, int threads,
                               bool logprob, Write&& write) {
  if (logits.data == nullptr || row_requests == nullptr) {
    return Fail(s, EXACTSAMPLE_INVALID_ARGUMENT,
                "logits or row_requests is NULL");
  }
  if (row_stride < vocab) {
    return Fail(s, EXACTSAMPLE_INVALID_ARGUMENT,
                "row_stride " + std::to_string(row_stride) +
                    " is smaller than vocab " + std::to_string(vocab));
  }
  // The caller's arrays must fit in memory: rows * row_stride words, and
  // a result per row.
  const size_t word = logits.WordSize();
  if (row_stride > PTRDIFF_MAX / word ||
      rows > PTRDIFF_MAX / std::max({row_stride * word, sizeof(exactsample_token)})) {
    return Fail(s, EXACTSAMPLE_INVALID_ARGUMENT,
                std::to_string(rows) + " rows of stride " + std::to_string(row_stride) +
                    " exceed the address space");
  }
  return Guard(s, [&] {
    s->batch_rows.clear();
    s->batch_rngs.clear();
    s->row_errors.assign(rows, std::string());
    s->batch_rngs.reserve(rows);
    std::vector<exactsample_status> fault_status(rows, EXACTSAMPLE_OK);
    for (size_t i = 0; i < rows; ++i) {
      const exactsample_row& r = row_requests[i];
      const MaybeFault fault = RowFault(i, r, extras);
      const bool ok = !fault;
      if (fault) {
        fault_status[i] = fault->status;
        s->row_errors[i] = fault->message;
      }
      s->batch_rngs.push_back(ok ? ToPcg(*r.rng) : Pcg32::FromState(0, 1, 0));
      // A malformed row is marked by a null generator; sample_batch reports it.
      exactsample::Request request;
      if (ok) {
        request = ToRequest(logits.Row(i, row_stride), vocab, r.prompt, r.prompt_len,
                            r.generated, r.generated_len, *r.params);
        if (extras != nullptr) request = WithExtras(request, extras[i]);
      }
      s->batch_rows.push_back({request, ok ? &s->batch_rngs[i] : nullptr});
    }
    exactsample::SampleOptions options;
    options.engine = s->engine;
    options.logprob = logprob;
    // Inside the batch's parallel region a row runs on one thread anyway.
    options.threads = s->threads;
    exactsample::sample_batch(s->batch_rows, s->batch_results,
                              s->batch_workspace, options, threads);
    exactsample_status first = EXACTSAMPLE_OK;
    for (size_t i = 0; i < rows; ++i) {
      const auto& r = s->batch_results[i];
      exactsample_status status = EXACTSAMPLE_OK;
      if (s->batch_rows[i].rng == nullptr) {
        status = fault_status[i];
        write(i, status, -1, 0.0);
      } else if (!r) {
        status = StatusOf(r.error().code);
        write(i, status, -1, 0.0);
        s->row_errors[i] = r.error().message;
      } else {
        write(i, status, r->id, r->logprob);
        if (extras != nullptr) WriteExtras(*r, extras[i]);
        FromPcg(s->batch_rngs[i], row_requests[i].rng);
      }
      if (first == EXACTSAMPLE_OK && status != EXACTSAMPLE_OK) {
        first = status;
        s->last_error = s->row_errors[i];
      }
    }
    return first;
  });
}

// exactsample_sample_ex and _ex16 after their sampler check.
exactsample_status SampleOne(exactsample_sampler* s, CRow logits, size_t vocab,
                             const int32_t* prompt, size_t prompt_len,
                             const int32_t* generated, size_t generated_len,
                             const exactsample_params* params,
                             const exactsample_extras* extras, exactsample_rng* rng,
                             int32_t* id, double* logprob) {
  exactsample_extras none{};
  none.struct_size = sizeof none;
  const exactsample_extras& x = extras != nullptr ? *extras : none;
  if (const auto f = First({NullArray("logits", logits.data, "vocab", vocab),
                            NullArray("prompt", prompt, "prompt_len", prompt_len),
                            NullArray("generated", generated, "generated_len", generated_len),
                            NullPointer("rng", rng), NullPointer("id", id),
                            Invalid(ParamsProblem(params)), ExtrasFault(x)})) {
    return Fail(s, f->status, f->message);
  }
  return Guard(s, [&] {
    Pcg32 g = ToPcg(*rng);
    exactsample::SampleOptions options;
    options.engine = s->engine;
    options.logprob = logprob != nullptr;
    options.threads = s->threads;
    const exactsample::Request request = WithExtras(
        ToRequest(logits, vocab, prompt, prompt_len, generated, generated_len, *params), x);
    const auto t = exactsample::sample(request, g, s->workspace, options);
    if (!t) return Fail(s, StatusOf(t.error().code), t.error().message);
    FromPcg(g, rng);
    *id = t->id;
    if (logprob != nullptr) *logprob = t->logprob;
    WriteExtras(*t, x);
    return EXACTSAMPLE_OK;
  });
}

exactsample_status BadHalfType(exactsample_sampler* s, int logits_type) {
  return Fail(s, EXACTSAMPLE_INVALID_ARGUMENT,
              "logits_type = " + std::to_string(logits_type) +
                  ": a 16-bit row is EXACTSAMPLE_LOGITS_F16 (1) or EXACTSAMPLE_LOGITS_BF16 (2)");
}

}  // namespace

extern "C" {

const char* exactsample_version(void) { return EXACTSAMPLE_VERSION_STRING; }

const char* exactsample_status_name(exactsample_status status) {
  switch (status) {
    case EXACTSAMPLE_OK: return "ok";
    case EXACTSAMPLE_INVALID_ARGUMENT: return "invalid argument";
    case EXACTSAMPLE_INVALID_PARAMETER: return "invalid parameter";
    case EXACTSAMPLE_INVALID_LOGITS: return "invalid logits";
    case EXACTSAMPLE_INVALID_IDS: return "invalid ids";
    case EXACTSAMPLE_DEGENERATE: return "degenerate";
    case EXACTSAMPLE_OUT_OF_MEMORY: return "out of memory";
    case EXACTSAMPLE_INTERNAL: return "internal error";
    case EXACTSAMPLE_STATUS_MAX_ENUM: break;
  }
  return "unknown status";
}

void exactsample_params_init(exactsample_params* params) {
  if (params == nullptr) return;
  const exactsample::SamplingParams d;
  *params = {sizeof(exactsample_params), d.temperature, d.repetition_penalty,
             d.presence_penalty, d.frequency_penalty, d.top_k, d.top_p, d.min_p};
}

exactsample_status exactsample_rng_stream(uint64_t seed, uint64_t purpose,
                                          exactsample_rng* out) {
  if (out == nullptr) return EXACTSAMPLE_INVALID_ARGUMENT;
  FromPcg(exactsample::stream(seed, purpose), out);
  return EXACTSAMPLE_OK;
}

exactsample_status exactsample_rng_advance(exactsample_rng* rng, uint64_t n) {
  if (rng == nullptr) return EXACTSAMPLE_INVALID_ARGUMENT;
  Pcg32 g = ToPcg(*rng);
  g.advance(n);
  FromPcg(g, rng);
  return EXACTSAMPLE_OK;
}

exactsample_status exactsample_rng_next_u32(exactsample_rng* rng, uint32_t* out) {
  if (rng == nullptr || out == nullptr) return EXACTSAMPLE_INVALID_ARGUMENT;
  Pcg32 g = ToPcg(*rng);
  *out = g.next_u32();
  FromPcg(g, rng);
  return EXACTSAMPLE_OK;
}

exactsample_status exactsample_sampler_create(int engine, exactsample_sampler** out) {
  if (out == nullptr) return EXACTSAMPLE_INVALID_ARGUMENT;
  *out = nullptr;
  if (engine != EXACTSAMPLE_ENGINE_REFERENCE && engine != EXACTSAMPLE_ENGINE_FAST) {
    return EXACTSAMPLE_INVALID_ARGUMENT;
  }
  return Guard(nullptr, [&] {
    *out = new exactsample_sampler{};
    (*out)->engine = engine == EXACTSAMPLE_ENGINE_FAST
                         ? exactsample::Engine::fast
                         : exactsample::Engine::reference;
    return EXACTSAMPLE_OK;
  });
}

void exactsample_sampler_destroy(exactsample_sampler* sampler) { delete sampler; }

exactsample_status exactsample_sampler_set_threads(exactsample_sampler* s,
                                                  int threads) {
  if (s == nullptr) return EXACTSAMPLE_INVALID_ARGUMENT;
  s->last_error.clear();
  if (threads < 1 || threads > exactsample::kMaxRowThreads) {
    return Fail(s, EXACTSAMPLE_INVALID_ARGUMENT,
                "threads = " + std::to_string(threads) + ": must be 1 to " +
                    std::to_string(exactsample::kMaxRowThreads));
  }
  s->threads = threads;
  return EXACTSAMPLE_OK;
}

const char* exactsample_sampler_last_error(const exactsample_sampler* sampler) {
  return sampler == nullptr ? "sampler is NULL" : sampler->last_error.c_str();
}

exactsample_status exactsample_sample(exactsample_sampler* s, const float* logits,
                                      size_t vocab, const int32_t* prompt,
                                      size_t prompt_len, const int32_t* generated,
                                      size_t generated_len,
                                      const exactsample_params* params,
                                      exactsample_rng* rng, int32_t* id,
                                      double* logprob) {
  return exactsample_sample_ex(s, logits, vocab, prompt, prompt_len, generated,
                               generated_len, params, nullptr, rng, id, logprob);
}

exactsample_status exactsample_sample_ex(exactsample_sampler* s, const float* logits,
                                         size_t vocab, const int32_t* prompt,
                                         size_t prompt_len, const int32_t* generated,
                                         size_t generated_len,
                                         const exactsample_params* params,
                                         const exactsample_extras* extras,
                                         exactsample_rng* rng, int32_t* id,
                                         double* logprob) {
  if (s == nullptr) return EXACTSAMPLE_INVALID_ARGUMENT;
  s->last_error.clear();
  return SampleOne(s, {logits, exactsample::LogitType::f32}, vocab, prompt, prompt_len,
                   generated, generated_len, params, extras, rng, id, logprob);
}

exactsample_status exactsample_sample_ex16(exactsample_sampler* s, const uint16_t* logits,
                                           int logits_type, size_t vocab,
                                           const int32_t* prompt, size_t prompt_len,
                                           const int32_t* generated, size_t generated_len,
                                           const exactsample_params* params,
                                           const exactsample_extras* extras,
                                           exactsample_rng* rng, int32_t* id,
                                           double* logprob) {
  if (s == nullptr) return EXACTSAMPLE_INVALID_ARGUMENT;
  s->last_error.clear();
  const auto type = HalfType(logits_type);
  if (!type) return BadHalfType(s, logits_type);
  return SampleOne(s, {logits, *type}, vocab, prompt, prompt_len, generated, generated_len,
                   params, extras, rng, id, logprob);
}

exactsample_status exactsample_sample_batch(exactsample_sampler* s,
                                            const float* logits, size_t rows,
                                            size_t vocab, size_t row_stride,
                                            const exactsample_row* row_requests,
                                            exactsample_token* results,
                                            int threads) {
  return exactsample_sample_batch_ex(s, logits, rows, vocab, row_stride, row_requests,
                                     nullptr, results, threads);
}

exactsample_status exactsample_sample_batch_arrays(
    exactsample_sampler* s, const float* logits, size_t rows, size_t vocab,
    size_t row_stride, const exactsample_row* row_requests,
    exactsample_status* statuses, int32_t* ids, double* logprobs, int threads) {
  if (s == nullptr) return EXACTSAMPLE_INVALID_ARGUMENT;
  s->last_error.clear();
  if (rows == 0) return EXACTSAMPLE_OK;
  if (statuses == nullptr || ids == nullptr) {
    return Fail(s, EXACTSAMPLE_INVALID_ARGUMENT, "statuses or ids is NULL");
  }
  return SampleBatch(s, {logits, exactsample::LogitType::f32}, rows, vocab, row_stride,
                     row_requests, nullptr, threads, /*logprob=*/logprobs != nullptr,
                     [&](size_t i, exactsample_status status, int32_t id,
                         double logprob) {
                       statuses[i] = status;
                       ids[i] = id;
                       if (logprobs != nullptr) logprobs[i] = logprob;
                     });
}

exactsample_status exactsample_sample_batch_ex(
    exactsample_sampler* s, const float* logits, size_t rows, size_t vocab,
    size_t row_stride, const exactsample_row* row_requests,
    const exactsample_extras* extras, exactsample_token* results, int threads) {
  if (s == nullptr) return EXACTSAMPLE_INVALID_ARGUMENT;
  s->last_error.clear();
  if (rows == 0) return EXACTSAMPLE_OK;
  if (results == nullptr) {
    return Fail(s, EXACTSAMPLE_INVALID_ARGUMENT, "results is NULL");
  }
  return SampleBatch(s, {logits, exactsample::LogitType::f32}, rows, vocab, row_stride,
                     row_requests, extras, threads, /*logprob=*/true,
                     [&](size_t i, exactsample_status status, int32_t id,
                         double logprob) { results[i] = {status, id, logprob}; });
}

exactsample_status exactsample_sample_batch_ex16(
    exactsample_sampler* s, const uint16_t* logits, int logits_type, size_t rows,
    size_t vocab, size_t row_stride, const exactsample_row* row_requests,
    const exactsample_extras* extras, exactsample_token* results, int threads) {
  if (s == nullptr) return EXACTSAMPLE_INVALID_ARGUMENT;
  s->last_error.clear();
  const auto type = HalfType(logits_type);
  if (!type) return BadHalfType(s, logits_type);
  if (rows == 0) return EXACTSAMPLE_OK;
  if (results == nullptr) {
    return Fail(s, EXACTSAMPLE_INVALID_ARGUMENT, "results is NULL");
  }
  return SampleBatch(s, {logits, *type}, rows, vocab, row_stride, row_requests, extras,
                     threads, /*logprob=*/true,
                     [&](size_t i, exactsample_status status, int32_t id,
                         double logprob) { results[i] = {status, id, logprob}; });
}

const char* exactsample_sampler_row_error(const exactsample_sampler* s,
                                          size_t row) {
  if (s == nullptr) return "sampler is NULL";
  if (row >= s->row_errors.size()) return "no such row in the last batch";
  return s->row_errors[row].c_str();
}

size_t exactsample_target_count(void) { return CompiledTargets().size(); }

const char* exactsample_target_name(size_t index) {
  const auto& targets = CompiledTargets();
  return index < targets.size() ? targets[index].name.c_str() : nullptr;
}

int exactsample_target_supported(size_t index) {
  const auto& targets = CompiledTargets();
  return index < targets.size() && targets[index].supported ? 1 : 0;
}

exactsample_status exactsample_testing_force_target(const char* name) {
  const auto r = exactsample::testing::force_target(name == nullptr ? "" : name);
  return r ? EXACTSAMPLE_OK : EXACTSAMPLE_INVALID_PARAMETER;
}

}  // extern "C"

// The executor hook: the host's submit behind exactsample::Executor.
#include "exactsample/executor.hpp"
#include "lib/executor.hpp"

namespace {

class HostExecutor final : public exactsample::Executor {
 public:
  explicit HostExecutor(const exactsample_executor& e) : e_(e) {}
  void Submit(size_t n, void (*task)(void*), void* arg) override {
    e_.submit(e_.user, n, task, arg);
  }

 private:
  exactsample_executor e_;
};

}  // namespace

extern "C" {

exactsample_status exactsample_sampler_set_executor(exactsample_sampler* s,
                                                    const exactsample_executor* executor) {
  if (s == nullptr) return EXACTSAMPLE_INVALID_ARGUMENT;
  s->last_error.clear();
  if (executor != nullptr && executor->submit == nullptr) {
    return Fail(s, EXACTSAMPLE_INVALID_ARGUMENT, "executor->submit is NULL");
  }
  return Guard(s, [&] {
    exactsample::threads::SharedExecutor shared;
    if (executor != nullptr) shared = std::make_shared<HostExecutor>(*executor);
    exactsample::threads::SetExecutor(s->workspace, shared);
    exactsample::threads::SetExecutor(s->batch_workspace, shared);
    return EXACTSAMPLE_OK;
  });
}

void exactsample_shutdown_pool(void) { exactsample::shutdown_library_pool(); }

}  // extern "C"
