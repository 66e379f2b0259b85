// The C ABI over the C++ API: the sampler, generators, targets, the
// executor hook, and the older sampling calls as thin wrappers over the
// request calls (lib/c_abi/request.cc). No exception crosses the boundary.
#include "exactsample.h"

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "exactsample/batch.hpp"
#include "exactsample/exactsample.hpp"
#include "exactsample/targets.hpp"
#include "exactsample/testing.hpp"
#include "lib/c_abi/convert.hpp"
#include "lib/threads/row_passes.hpp"

namespace {

using namespace exactsample::c_abi;
using exactsample::Pcg32;

// A stateless request of the older calls' arguments.
exactsample_request StatelessRequest(const void* logits, int logits_type, size_t vocab,
                                     const int32_t* prompt, size_t prompt_len,
                                     const int32_t* generated, size_t generated_len,
                                     const exactsample_params* params,
                                     const exactsample_extras* extras, exactsample_rng* rng,
                                     double* logprob) {
  exactsample_request r{};
  r.struct_size = sizeof r;
  r.logits = logits;
  r.logits_type = logits_type;
  r.vocab = vocab;
  r.prompt = prompt;
  r.prompt_len = prompt_len;
  r.generated = generated;
  r.generated_len = generated_len;
  r.rng = rng;
  r.params = params;
  r.extras = extras;
  r.logprob = logprob;
  return r;
}

// Names and support do not change while the process runs: list them once,
// so the names handed out stay valid.
const std::vector<exactsample::TargetInfo>& CompiledTargets() {
  static const std::vector<exactsample::TargetInfo> targets =
      exactsample::compiled_targets();
  return targets;
}

// The older batch calls: their shared checks, then row i as a stateless
// request on row i of the matrix (with extras[i] when extras is not
// null), its logprob written to *logprob_of(i) (null: not wanted).
template <class LogprobOf>
exactsample_status SampleBatch(exactsample_sampler* s, const void* logits, int logits_type,
                               size_t rows, size_t vocab, size_t row_stride,
                               const exactsample_row* row_requests,
                               const exactsample_extras* extras, exactsample_token* results,
                               int threads, LogprobOf&& logprob_of) {
  if (logits == nullptr || row_requests == nullptr) {
    return Fail(s, EXACTSAMPLE_INVALID_ARGUMENT,
                logits == nullptr ? "logits is NULL" : "row_requests is NULL");
  }
  if (row_stride < vocab) {
    return Fail(s, EXACTSAMPLE_INVALID_ARGUMENT,
                "row_stride " + std::to_string(row_stride) +
                    " is smaller than vocab " + std::to_string(vocab));
  }
  // The caller's arrays must fit in memory: rows * row_stride words, and
  // a result per row.
  const size_t word = logits_type == EXACTSAMPLE_LOGITS_F32 ? sizeof(float) : sizeof(uint16_t);
  if (row_stride > PTRDIFF_MAX / word ||
      rows > PTRDIFF_MAX / std::max({row_stride * word, sizeof(exactsample_token),
                                     sizeof(exactsample_request)})) {
    return Fail(s, EXACTSAMPLE_INVALID_ARGUMENT,
                std::to_string(rows) + " rows of stride " + std::to_string(row_stride) +
                    " exceed the address space");
  }
  return Guard(s, [&] {
    s->wrapped_requests.clear();
    s->wrapped_refusals.assign(rows, std::string());
    for (size_t i = 0; i < rows; ++i) {
      const exactsample_row& r = row_requests[i];
      // These calls always took their parameters (a request's NULL is the defaults).
      if (r.params == nullptr) s->wrapped_refusals[i] = "params is NULL";
      s->wrapped_requests.push_back(StatelessRequest(
          static_cast<const unsigned char*>(logits) + i * row_stride * word, logits_type, vocab,
          r.prompt, r.prompt_len, r.generated, r.generated_len, r.params,
          extras != nullptr ? &extras[i] : nullptr, r.rng, logprob_of(i)));
    }
    return SampleRows(*s, nullptr, s->wrapped_requests.data(), rows, results, threads,
                      /*array_name=*/"", s->wrapped_refusals);
  });
}

// exactsample_sample_ex and _ex16 after their sampler check.
exactsample_status SampleOneStateless(exactsample_sampler* s, const void* logits,
                                      int logits_type, size_t vocab, const int32_t* prompt,
                                      size_t prompt_len, const int32_t* generated,
                                      size_t generated_len, const exactsample_params* params,
                                      const exactsample_extras* extras, exactsample_rng* rng,
                                      int32_t* id, double* logprob) {
  if (id == nullptr) return Fail(s, EXACTSAMPLE_INVALID_ARGUMENT, "id is NULL");
  if (params == nullptr) {
    return Fail(s, EXACTSAMPLE_INVALID_ARGUMENT, "params is NULL");
  }
  const exactsample_request r = StatelessRequest(logits, logits_type, vocab, prompt, prompt_len,
                                                 generated, generated_len, params, extras, rng,
                                                 logprob);
  exactsample_token t;
  const exactsample_status status = SampleOne(*s, nullptr, r, t, "");
  if (status == EXACTSAMPLE_OK) *id = t.id;
  return status;
}

bool IsHalfType(int logits_type) {
  return logits_type == EXACTSAMPLE_LOGITS_F16 || logits_type == EXACTSAMPLE_LOGITS_BF16;
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
             d.presence_penalty, d.frequency_penalty, d.top_k, d.top_p, d.min_p,
             d.penalty_last_n};
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
  return SampleOneStateless(s, logits, EXACTSAMPLE_LOGITS_F32, vocab, prompt, prompt_len,
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
  if (!IsHalfType(logits_type)) return BadHalfType(s, logits_type);
  return SampleOneStateless(s, logits, logits_type, vocab, prompt, prompt_len, generated,
                            generated_len, params, extras, rng, id, logprob);
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
  return Guard(s, [&] {
    // A token still unset after the call: the batch was refused before
    // any row (the arrays are then left alone).
    s->wrapped_tokens.assign(rows, {EXACTSAMPLE_STATUS_MAX_ENUM, -1, 0.0});
    const exactsample_status status = SampleBatch(
        s, logits, EXACTSAMPLE_LOGITS_F32, rows, vocab, row_stride, row_requests, nullptr,
        s->wrapped_tokens.data(), threads,
        [&](size_t i) { return logprobs != nullptr ? &logprobs[i] : nullptr; });
    if (s->wrapped_tokens[0].status != EXACTSAMPLE_STATUS_MAX_ENUM) {
      for (size_t i = 0; i < rows; ++i) {
        statuses[i] = s->wrapped_tokens[i].status;
        ids[i] = s->wrapped_tokens[i].id;
        if (logprobs != nullptr && statuses[i] != EXACTSAMPLE_OK) logprobs[i] = 0.0;
      }
    }
    return status;
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
  return SampleBatch(s, logits, EXACTSAMPLE_LOGITS_F32, rows, vocab, row_stride, row_requests,
                     extras, results, threads, [&](size_t i) { return &results[i].logprob; });
}

exactsample_status exactsample_sample_batch_ex16(
    exactsample_sampler* s, const uint16_t* logits, int logits_type, size_t rows,
    size_t vocab, size_t row_stride, const exactsample_row* row_requests,
    const exactsample_extras* extras, exactsample_token* results, int threads) {
  if (s == nullptr) return EXACTSAMPLE_INVALID_ARGUMENT;
  s->last_error.clear();
  if (!IsHalfType(logits_type)) return BadHalfType(s, logits_type);
  if (rows == 0) return EXACTSAMPLE_OK;
  if (results == nullptr) {
    return Fail(s, EXACTSAMPLE_INVALID_ARGUMENT, "results is NULL");
  }
  return SampleBatch(s, logits, logits_type, rows, vocab, row_stride, row_requests, extras,
                     results, threads, [&](size_t i) { return &results[i].logprob; });
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
#include "lib/threads/executor.hpp"

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
