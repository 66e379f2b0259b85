// Scalar twin of the penalty kernel (simd/penalty.hpp): steps 2 and 3 on
// one logit, and over the ids a bitmask marks.
#pragma once

#include <bit>
#include <cmath>
#include <cstddef>
#include <cstdint>

namespace exactsample::twins {

struct Penalties {
  double repetition = 1.0;
  double frequency = 0.0;
  double presence = 0.0;
};

// a or b by bits: a ?: whose arm may trap (a division) keeps its branch,
// and a logit's sign and an id's count are unpredictable.
inline double Select(bool take_a, double a, double b) {
  const uint64_t mask = uint64_t{0} - static_cast<uint64_t>(take_a);
  return std::bit_cast<double>((std::bit_cast<uint64_t>(a) & mask) |
                               (std::bit_cast<uint64_t>(b) & ~mask));
}

// Step 2 on the logit v of an id of the window, then step 3 with the id's
// `generated` occurrences (0: none, or presence and frequency off). A
// repetition penalty of 1 leaves v as it is (v / 1 and v * 1 are v).
inline double Penalized(double v, uint64_t generated, const Penalties& p) {
  const double repeated = Select(v > 0, v / p.repetition, v * p.repetition);
  return Select(generated > 0,
                repeated - p.frequency * static_cast<double>(generated) - p.presence, repeated);
}

// The window of a Sequence as one code per id: -1 for an id outside it,
// else the id's generated count in it (at most INT32_MAX), for a pass over
// the whole row.
// The parameters' additive penalties are +0 when they are off (so that
// subtracting them changes nothing, -0.0 included).
struct PenaltyCodes {
  const int32_t* code = nullptr;
  Penalties p;

  PenaltyCodes From(size_t i) const { return {code + i, p}; }
};

struct PenaltyResult {
  double max;  // the largest l after penalties (+0.0 for a zero maximum)
  bool bad;    // some l is NaN or +inf after them
};

// l[i] = Penalized(l[i], code[i]) for each i < n in the window; the
// largest l after (-inf when n = 0) and the check.
PenaltyResult Penalize(double* l, size_t n, const PenaltyCodes& codes);

}  // namespace exactsample::twins
