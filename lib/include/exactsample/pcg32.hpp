// PCG32 (PCG-XSH-RR, 64-bit state, 32-bit output) and its sub-streams,
// exactly as the spec fixes them (docs/spec.md, "The generator: PCG32").
#pragma once

#include "exactsample/cxx20.hpp"
#if EXACTSAMPLE_CXX20

#include <cstdint>

#include "exactsample/export.h"

namespace exactsample {

// Purpose ids of stream(seed, purpose); `sample` is the request generator:
// stream(seed, Purpose::sample).
enum class Purpose : uint64_t {
  init = 1,
  dropout = 2,
  shuffle = 3,
  sample = 4,
  mutation = 5,
};

// A generator comes from stream(seed, purpose) (a request's generator is
// stream(seed, Purpose::sample)), from from_state (handed over by another
// worker) or, for the spec's raw pcg32 test vectors, from seeded.
class EXACTSAMPLE_API Pcg32 {
 public:
  static constexpr uint64_t kMultiplier = 6364136223846793005ULL;
  static constexpr uint64_t kDefaultSeq = 54;

  // pcg32(initstate, seq): the spec's raw seeding (two steps that are not
  // counted as draws). Not a request generator: stream() derives the
  // initstate and seq of those.
  static Pcg32 seeded(uint64_t initstate, uint64_t seq = kDefaultSeq);

  // Rebuilds a generator from plain fields, e.g. handed over by another
  // worker. `inc` must be odd.
  static Pcg32 from_state(uint64_t state, uint64_t inc, uint64_t draws_u32);

  uint32_t next_u32();
  // Two outputs a then b: ((a >> 5) * 2^26 + (b >> 6)) * 2^-53.
  double uniform_f64();
  // Jumps ahead by n outputs in O(log n); equal to n calls of next_u32.
  void advance(uint64_t n);

  uint64_t state() const { return state_; }
  uint64_t inc() const { return inc_; }
  // next_u32 outputs taken since seeding (advance counts too). A sampled
  // token takes two, a greedy token none.
  uint64_t draws_u32() const { return draws_u32_; }

  friend bool operator==(const Pcg32&, const Pcg32&) = default;

 private:
  Pcg32() = default;
  explicit Pcg32(uint64_t initstate, uint64_t seq);
  uint64_t state_ = 0;
  uint64_t inc_ = 1;
  uint64_t draws_u32_ = 0;
};

// SplitMix64's finaliser.
EXACTSAMPLE_API uint64_t mix64(uint64_t z);
// The p-th SplitMix64 output from seed.
EXACTSAMPLE_API uint64_t child_seed(uint64_t seed, uint64_t purpose);
// pcg32(child_seed(seed, purpose), purpose).
EXACTSAMPLE_API Pcg32 stream(uint64_t seed, uint64_t purpose);
inline Pcg32 stream(uint64_t seed, Purpose purpose) {
  return stream(seed, static_cast<uint64_t>(purpose));
}

}  // namespace exactsample

#endif  // EXACTSAMPLE_CXX20
