// The C ABI over the C++ API: the sampler, generators, targets, the exp
// choice and the executor hook (sampling is in lib/c_abi/request.cc). No
// exception crosses the boundary.
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

// Names and support do not change while the process runs: list them once,
// so the names handed out stay valid.
const std::vector<exactsample::TargetInfo>& CompiledTargets() {
  static const std::vector<exactsample::TargetInfo> targets =
      exactsample::compiled_targets();
  return targets;
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
  *params = {sizeof(exactsample_params),
             d.temperature,
             d.repetition_penalty,
             d.presence_penalty,
             d.frequency_penalty,
             d.top_k,
             d.top_p,
             d.min_p,
             d.penalty_last_n,
             EXACTSAMPLE_CHAIN_SPEC,
             nullptr,
             0,
             d.min_keep,
             d.top_n_sigma,
             d.typical_p,
             d.xtc_probability,
             d.xtc_threshold,
             d.dry_multiplier,
             d.dry_base,
             d.dry_allowed_length,
             d.dry_penalty_last_n,
             nullptr,
             0,
             d.dynatemp_range,
             d.dynatemp_exponent,
             d.mirostat,
             d.mirostat_tau,
             d.mirostat_eta,
             d.mirostat_m,
             d.adaptive_target,
             d.adaptive_decay};
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

exactsample_status exactsample_rng_uniform_f64(exactsample_rng* rng, double* out) {
  if (rng == nullptr || out == nullptr) return EXACTSAMPLE_INVALID_ARGUMENT;
  Pcg32 g = ToPcg(*rng);
  *out = g.uniform_f64();
  FromPcg(g, rng);
  return EXACTSAMPLE_OK;
}

exactsample_status exactsample_rng_seeded(uint64_t initstate, uint64_t seq, exactsample_rng* out) {
  if (out == nullptr) return EXACTSAMPLE_INVALID_ARGUMENT;
  FromPcg(Pcg32::seeded(initstate, seq), out);
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

const char* exactsample_exp_choice(void) {
  static const std::string choice = exactsample::exp_choice();  // chosen once per process
  return choice.c_str();
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
  void submit(size_t n, void (*task)(void*), void* arg) override {
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

void exactsample_shutdown_library_pool(void) { exactsample::shutdown_library_pool(); }

}  // extern "C"
