#include "exactsample/pcg32.hpp"

namespace exactsample {

Pcg32::Pcg32(uint64_t initstate, uint64_t seq) {
  inc_ = (seq << 1) | 1u;
  state_ = 0;
  next_u32();
  state_ += initstate;
  next_u32();
  draws_u32_ = 0;
}

Pcg32 Pcg32::seeded(uint64_t initstate, uint64_t seq) {
  return Pcg32(initstate, seq);
}

Pcg32 Pcg32::from_state(uint64_t state, uint64_t inc, uint64_t draws_u32) {
  Pcg32 g;
  g.state_ = state;
  g.inc_ = inc;
  g.draws_u32_ = draws_u32;
  return g;
}

uint32_t Pcg32::next_u32() {
  const uint64_t old = state_;
  state_ = old * kMultiplier + inc_;
  const auto xorshifted = static_cast<uint32_t>(((old >> 18) ^ old) >> 27);
  const auto rot = static_cast<uint32_t>(old >> 59);
  ++draws_u32_;
  return (xorshifted >> rot) | (xorshifted << ((32u - rot) & 31u));
}

double Pcg32::uniform_f64() {
  const uint64_t a = next_u32() >> 5;
  const uint64_t b = next_u32() >> 6;
  return static_cast<double>((a << 26) | b) * 0x1p-53;
}

// Brown, "Random Number Generation with Arbitrary Stride" (1994): the LCG
// x -> m*x + c applied n times is x -> M*x + C, built by squaring.
void Pcg32::advance(uint64_t n) {
  draws_u32_ += n;
  uint64_t cur_mult = kMultiplier;
  uint64_t cur_plus = inc_;
  uint64_t acc_mult = 1;
  uint64_t acc_plus = 0;
  for (; n > 0; n >>= 1) {
    if (n & 1) {
      acc_mult *= cur_mult;
      acc_plus = acc_plus * cur_mult + cur_plus;
    }
    cur_plus = (cur_mult + 1) * cur_plus;
    cur_mult *= cur_mult;
  }
  state_ = acc_mult * state_ + acc_plus;
}

uint64_t mix64(uint64_t z) {
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  return z ^ (z >> 31);
}

uint64_t child_seed(uint64_t seed, uint64_t purpose) {
  return mix64(seed + purpose * 0x9E3779B97F4A7C15ULL);
}

Pcg32 stream(uint64_t seed, uint64_t purpose) {
  return Pcg32::seeded(child_seed(seed, purpose), purpose);
}

}  // namespace exactsample
