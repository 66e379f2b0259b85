// The C ABI's handles for the tests: a sampler and a sequence destroyed at
// the end of their scope.
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

}  // namespace exactsample::test
