// Helpers shared by the tests: fixture paths, bit comparisons, the input
// generator, and a check run on every compiled and supported target.
#pragma once

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <nlohmann/json.hpp>
#include <limits>
#include <string>
#include <vector>

#include "hwy/targets.h"

#include "exactsample/exactsample.hpp"
#include "exactsample/pcg32.hpp"

namespace exactsample::test {

inline nlohmann::json LoadJson(const std::string& file) {
  std::ifstream in(std::string(EXACTSAMPLE_TEST_DATA) + "/" + file);
  return nlohmann::json::parse(in);
}

inline uint64_t Bits(double v) { return std::bit_cast<uint64_t>(v); }

// A token's every output, as bits.
inline std::vector<uint64_t> Bits(const Token& t) {
  std::vector<uint64_t> out{static_cast<uint64_t>(t.id), Bits(t.logprob),
                            Bits(t.processed_logprob)};
  for (const TopLogprob& e : t.top_logprobs()) {
    out.push_back(static_cast<uint64_t>(e.id));
    out.push_back(Bits(e.logprob));
  }
  return out;
}

// What one call gave: the token (id and logprob bits) or the error's code,
// and where it left the generator.
struct Outcome {
  bool ok;
  int32_t id;
  uint64_t logprob_bits;
  ErrorCode code;  // invalid_parameter when ok
  uint64_t draws;
  uint64_t state;
  bool operator==(const Outcome&) const = default;
};

inline Outcome OutcomeOf(const Result<Token>& r, const Pcg32& rng) {
  return r ? Outcome{true, r->id, Bits(r->logprob), ErrorCode{}, rng.draws_u32(), rng.state()}
           : Outcome{false, -1, 0, r.error().code, rng.draws_u32(), rng.state()};
}

// SplitMix64 (the library's mix64 over a Weyl sequence): the tests' one
// input generator, also a standard random bit generator for <random>'s
// distributions.
struct SplitMix {
  using result_type = uint64_t;
  static constexpr uint64_t min() { return 0; }
  static constexpr uint64_t max() { return std::numeric_limits<uint64_t>::max(); }
  uint64_t operator()() { return Next(); }

  uint64_t state;
  uint64_t Next() { return mix64(state += 0x9E3779B97F4A7C15ULL); }
  double Uniform(double lo, double hi) {
    return lo + (hi - lo) * (static_cast<double>(Next() >> 11) * 0x1p-53);
  }
  double Normal(double sigma) {  // Box-Muller
    const double u = Uniform(0x1p-53, 1.0);
    const double v = Uniform(0.0, 1.0);
    return sigma * std::sqrt(-2.0 * std::log(u)) * std::cos(6.283185307179586 * v);
  }
};

// 1, or the divisor EXACTSAMPLE_TEST_SHARE sets: the emulated runs of
// .ci/cross (one per CPU model and vector length) make 1/divisor of the
// heaviest tests' random repetitions and leave out their longest rows.
inline size_t ShareDivisor() {
  const char* s = std::getenv("EXACTSAMPLE_TEST_SHARE");
  const long d = s != nullptr ? std::atol(s) : 1;
  return d > 1 ? static_cast<size_t>(d) : 1;
}
inline size_t Share(size_t n) { return std::max<size_t>(1, n / ShareDivisor()); }

// Calls f(target) with dynamic dispatch forced to each compiled target the
// CPU supports in turn (Highway's test hook), then restores the best one.
template <class F>
void ForEachTarget(const F& f) {
  for (int64_t target : hwy::SupportedAndGeneratedTargets()) {
    hwy::SetSupportedTargetsForTest(target);
    f(target);
  }
  hwy::SetSupportedTargetsForTest(0);
}

}  // namespace exactsample::test
