// The exactsample_sequence handle over exactsample::Sequence: creation
// from a config, clone, reset, accept, the generator and lengths, snapshot
// and restore.
#include <cstring>
#include <span>
#include <string>
#include <utility>

#include "exactsample.h"
#include "exactsample/sequence.hpp"
#include "lib/c_abi/convert.hpp"

namespace {

using namespace exactsample::c_abi;

exactsample_status NullArgument(exactsample_sampler* s, const char* name) {
  return Fail(s, EXACTSAMPLE_INVALID_ARGUMENT, std::string(name) + " is NULL");
}

// Hands a sequence to the caller (which destroys it).
exactsample_status Give(exactsample::Sequence sequence, exactsample_sequence** out) {
  *out = new exactsample_sequence{std::move(sequence)};
  return EXACTSAMPLE_OK;
}

exactsample_status Created(exactsample_sampler* s, exactsample::Result<exactsample::Sequence> r,
                           exactsample_sequence** out) {
  if (!r) return Fail(s, StatusOf(r.error().code), r.error().message);
  return Give(std::move(r.value()), out);
}

// The config's bias and masks as owned lists.
exactsample::Constraints ExtrasOf(const exactsample_extras& x) {
  exactsample::Constraints e;
  e.bias_ids.assign(x.bias_ids, x.bias_ids + x.bias_len);
  e.bias_values.assign(x.bias_values, x.bias_values + x.bias_len);
  e.allowed.assign(x.allowed_ids, x.allowed_ids + x.allowed_len);
  e.banned.assign(x.banned_ids, x.banned_ids + x.banned_len);
  e.allowed_bits.assign(x.allowed_bitmask, x.allowed_bitmask + x.allowed_bitmask_words);
  return e;
}

}  // namespace

extern "C" {

exactsample_status exactsample_sequence_create(exactsample_sampler* s,
                                               const exactsample_sequence_config* config,
                                               exactsample_sequence** out) {
  if (s == nullptr) return EXACTSAMPLE_INVALID_ARGUMENT;
  s->last_error.clear();
  if (config == nullptr) return NullArgument(s, "config");
  if (out == nullptr) return NullArgument(s, "out");
  if (std::string size = StructSizeProblem("exactsample_sequence_config", config->struct_size,
                                            sizeof(exactsample_sequence_config),
                                            "zero the struct and set it to sizeof");
      !size.empty()) {
    return Fail(s, EXACTSAMPLE_INVALID_ARGUMENT, std::move(size));
  }
  if (config->params != nullptr) {
    std::string p = ParamsProblem(*config->params, "config.");
    if (!p.empty()) return Fail(s, EXACTSAMPLE_INVALID_ARGUMENT, std::move(p));
  }
  if (config->extras != nullptr) {
    std::string p = ExtrasProblem(*config->extras, "config.", /*outputs=*/false);
    if (!p.empty()) return Fail(s, EXACTSAMPLE_INVALID_ARGUMENT, std::move(p));
  }
  return Guard(s, [&] {
    BreakerViews breakers;  // the sequence copies their ids
    exactsample::SamplingParams params = config->params != nullptr
                                             ? ToParams(*config->params, breakers)
                                             : exactsample::SamplingParams{};
    exactsample::Constraints extras;
    if (config->extras != nullptr) {
      params.top_logprobs = config->extras->top_logprobs;
      extras = ExtrasOf(*config->extras);
    }
    const exactsample::Pcg32 rng =
        config->rng != nullptr ? ToPcg(*config->rng)
                               : exactsample::stream(config->seed, exactsample::Purpose::sample);
    return Created(s, exactsample::Sequence::create(config->vocab, params, rng, std::move(extras)),
                   out);
  });
}

void exactsample_sequence_destroy(exactsample_sequence* sequence) { delete sequence; }

exactsample_status exactsample_sequence_clone(exactsample_sampler* s,
                                              const exactsample_sequence* sequence,
                                              exactsample_sequence** out) {
  if (s == nullptr) return EXACTSAMPLE_INVALID_ARGUMENT;
  s->last_error.clear();
  if (sequence == nullptr) return NullArgument(s, "sequence");
  if (out == nullptr) return NullArgument(s, "out");
  return Guard(s, [&] { return Give(sequence->sequence, out); });
}

exactsample_status exactsample_sequence_reset(exactsample_sampler* s,
                                              exactsample_sequence* sequence) {
  if (s == nullptr) return EXACTSAMPLE_INVALID_ARGUMENT;
  s->last_error.clear();
  if (sequence == nullptr) return NullArgument(s, "sequence");
  sequence->sequence.reset();
  return EXACTSAMPLE_OK;
}

exactsample_status exactsample_sequence_accept(exactsample_sampler* s,
                                               exactsample_sequence* sequence, int32_t id) {
  if (s == nullptr) return EXACTSAMPLE_INVALID_ARGUMENT;
  s->last_error.clear();
  if (sequence == nullptr) return NullArgument(s, "sequence");
  return Guard(s, [&] {
    const auto r = sequence->sequence.accept(id);
    return r ? EXACTSAMPLE_OK : Fail(s, StatusOf(r.error().code), r.error().message);
  });
}

exactsample_status exactsample_sequence_accept_prompt(exactsample_sampler* s,
                                                      exactsample_sequence* sequence,
                                                      const int32_t* ids, size_t n) {
  if (s == nullptr) return EXACTSAMPLE_INVALID_ARGUMENT;
  s->last_error.clear();
  if (sequence == nullptr) return NullArgument(s, "sequence");
  if (std::string p = ArrayProblem(ids, n, "ids", "n"); !p.empty()) {
    return Fail(s, EXACTSAMPLE_INVALID_ARGUMENT, std::move(p));
  }
  return Guard(s, [&] {
    const auto r = sequence->sequence.accept_prompt({ids, n});
    return r ? EXACTSAMPLE_OK : Fail(s, StatusOf(r.error().code), r.error().message);
  });
}

exactsample_status exactsample_sequence_truncate(exactsample_sampler* s,
                                                 exactsample_sequence* sequence, size_t length) {
  if (s == nullptr) return EXACTSAMPLE_INVALID_ARGUMENT;
  s->last_error.clear();
  if (sequence == nullptr) return NullArgument(s, "sequence");
  return Guard(s, [&] {
    const auto r = sequence->sequence.truncate(length);
    return r ? EXACTSAMPLE_OK : Fail(s, StatusOf(r.error().code), r.error().message);
  });
}

exactsample_status exactsample_sequence_rng(const exactsample_sequence* sequence,
                                            exactsample_rng* out) {
  if (sequence == nullptr || out == nullptr) return EXACTSAMPLE_INVALID_ARGUMENT;
  FromPcg(sequence->sequence.rng(), out);
  return EXACTSAMPLE_OK;
}

exactsample_status exactsample_sequence_set_rng(exactsample_sampler* s,
                                                exactsample_sequence* sequence,
                                                const exactsample_rng* rng) {
  if (s == nullptr) return EXACTSAMPLE_INVALID_ARGUMENT;
  s->last_error.clear();
  if (sequence == nullptr) return NullArgument(s, "sequence");
  if (rng == nullptr) return NullArgument(s, "rng");
  sequence->sequence.rng() = ToPcg(*rng);
  return EXACTSAMPLE_OK;
}

exactsample_status exactsample_sequence_lengths(const exactsample_sequence* sequence,
                                                size_t* prompt_len, size_t* generated_len) {
  if (sequence == nullptr) return EXACTSAMPLE_INVALID_ARGUMENT;
  if (prompt_len != nullptr) *prompt_len = sequence->sequence.prompt().size();
  if (generated_len != nullptr) *generated_len = sequence->sequence.generated().size();
  return EXACTSAMPLE_OK;
}

exactsample_status exactsample_sequence_snapshot(exactsample_sampler* s,
                                                 const exactsample_sequence* sequence,
                                                 void* buffer, size_t capacity, size_t* size) {
  if (s == nullptr) return EXACTSAMPLE_INVALID_ARGUMENT;
  s->last_error.clear();
  if (sequence == nullptr) return NullArgument(s, "sequence");
  if (size == nullptr) return NullArgument(s, "size");
  return Guard(s, [&] {
    const std::vector<uint8_t> bytes = sequence->sequence.snapshot();
    if (buffer != nullptr) {
      if (capacity < bytes.size()) {
        return Fail(s, EXACTSAMPLE_INVALID_ARGUMENT,
                    "capacity = " + std::to_string(capacity) + " is smaller than the snapshot's " +
                        std::to_string(bytes.size()) + " bytes");
      }
      std::memcpy(buffer, bytes.data(), bytes.size());
    }
    *size = bytes.size();
    return EXACTSAMPLE_OK;
  });
}

exactsample_status exactsample_sequence_restore(exactsample_sampler* s, const void* snapshot,
                                                size_t size, exactsample_sequence** out) {
  if (s == nullptr) return EXACTSAMPLE_INVALID_ARGUMENT;
  s->last_error.clear();
  if (out == nullptr) return NullArgument(s, "out");
  if (std::string p = ArrayProblem(snapshot, size, "snapshot", "size"); !p.empty()) {
    return Fail(s, EXACTSAMPLE_INVALID_ARGUMENT, std::move(p));
  }
  return Guard(s, [&] {
    const auto* bytes = static_cast<const uint8_t*>(snapshot);
    auto r = exactsample::Sequence::restore({bytes, size});
    // The bytes are an argument, not a sampling parameter.
    if (!r && r.error().field == "snapshot") {
      return Fail(s, EXACTSAMPLE_INVALID_ARGUMENT, r.error().message);
    }
    return Created(s, std::move(r), out);
  });
}

}  // extern "C"
