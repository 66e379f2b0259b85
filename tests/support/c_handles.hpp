// The C ABI's handles for the tests: a sampler and a sequence destroyed at
// the end of their scope; stateless requests.
#pragma once

#include <gtest/gtest.h>

#include "exactsample.h"

namespace exactsample::test {

struct Sampler {
  explicit Sampler(exactsample_engine engine = EXACTSAMPLE_ENGINE_FAST) {
    EXPECT_EQ(exactsample_sampler_create(engine, &s), EXACTSAMPLE_OK);
  }
  ~Sampler() { exactsample_sampler_destroy(s); }
  Sampler(const Sampler&) = delete;
  Sampler& operator=(const Sampler&) = delete;
  exactsample_sampler* s = nullptr;
};

struct SequenceHandle {
  SequenceHandle() = default;
  ~SequenceHandle() { exactsample_sequence_destroy(p); }
  SequenceHandle(const SequenceHandle&) = delete;
  SequenceHandle& operator=(const SequenceHandle&) = delete;
  exactsample_sequence* p = nullptr;
};

// A stateless exactsample_request: `vocab` logits of `type` at `logits`,
// the history, parameters (NULL: the defaults), extras (NULL: none),
// generator and logprob output (NULL: not computed).
inline exactsample_request StatelessRequest(const void* logits, size_t vocab,
                                            const int32_t* prompt, size_t prompt_len,
                                            const int32_t* generated, size_t generated_len,
                                            const exactsample_params* params,
                                            const exactsample_extras* extras,
                                            exactsample_rng* rng, double* logprob,
                                            int type = EXACTSAMPLE_LOGITS_F32) {
  exactsample_request r{};
  r.struct_size = sizeof r;
  r.logits = logits;
  r.logits_type = type;
  r.vocab = vocab;
  r.prompt = prompt;
  r.prompt_len = prompt_len;
  r.generated = generated;
  r.generated_len = generated_len;
  r.params = params;
  r.extras = extras;
  r.rng = rng;
  r.logprob = logprob;
  return r;
}

// exactsample_sample_request on StatelessRequest(...): its status, and the
// id in *id when a token was sampled (else *id is left alone).
inline exactsample_status SampleStateless(exactsample_sampler* s, const void* logits,
                                          size_t vocab, const int32_t* prompt,
                                          size_t prompt_len, const int32_t* generated,
                                          size_t generated_len, const exactsample_params* params,
                                          const exactsample_extras* extras, exactsample_rng* rng,
                                          int32_t* id, double* logprob,
                                          int type = EXACTSAMPLE_LOGITS_F32) {
  const exactsample_request r = StatelessRequest(logits, vocab, prompt, prompt_len, generated,
                                                 generated_len, params, extras, rng, logprob,
                                                 type);
  exactsample_token t;
  const exactsample_status status = exactsample_sample_request(s, nullptr, &r, &t);
  if (status == EXACTSAMPLE_OK) *id = t.id;
  return status;
}

}  // namespace exactsample::test
