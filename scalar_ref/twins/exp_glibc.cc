#include "scalar_ref/twins/exp_glibc.hpp"

#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>

#include "scalar_ref/twins/exp_glibc_data.hpp"

namespace exactsample::twins {
namespace {

namespace ed = exactsample::exp_data;

// How the chosen glibc variant computes a * b + c: one fma, or a product and a sum.
enum class Fma { kUnfused, kFused };

// a * b + c as the chosen glibc variant computes it. glibc's fma is exact in
// software too, so std::fma is the FMA variant's single rounding everywhere.
template <Fma kFma>
double MulAdd(double a, double b, double c) {
  if constexpr (kFma == Fma::kFused) {
    return std::fma(a, b, c);
  } else {
    return a * b + c;  // built with -ffp-contract=off: two roundings
  }
}

double FromBits(uint64_t bits) { return std::bit_cast<double>(bits); }

// 512 <= |x| < 1024: the scale 2^(k/N) may leave the exponent range, so it
// is built with a shifted exponent and scaled back at the end.
template <Fma kFma>
double SpecialCase(double tmp, uint64_t sbits, uint64_t ki) {
  if ((ki & 0x80000000) == 0) {  // k > 0: the result is large or +inf
    const double scale = FromBits(sbits - (uint64_t{1009} << 52));
    return 0x1p1009 * MulAdd<kFma>(scale, tmp, scale);
  }
  // k < 0. glibc uses scale * tmp twice here, so even its FMA build rounds
  // the product once and adds separately.
  const double scale = FromBits(sbits + (uint64_t{1022} << 52));
  const double st = scale * tmp;
  double y = scale + st;
  if (y < 1.0) {
    // Subnormal result: round to the final precision before scaling down.
    // (glibc then maps -0 to +0, which only arises in directed rounding.)
    double lo = (scale - y) + st;
    const double hi = 1.0 + y;
    lo = ((1.0 - hi) + y) + lo;
    y = (hi + lo) - 1.0;
  }
  return 0x1p-1022 * y;
}

template <Fma kFma>
double Exp(double x) {
  const uint64_t bits = std::bit_cast<uint64_t>(x);
  const uint64_t abstop = (bits >> 52) & 0x7ff;
  bool special = false;
  if (abstop - ed::kTopTiny >= ed::kTopLarge - ed::kTopTiny) {  // unsigned
    if (abstop < ed::kTopTiny) return 1.0 + x;  // |x| < 2^-54, +-0
    if (abstop >= ed::kTopHuge) {               // |x| >= 1024, inf, NaN
      if (x == -std::numeric_limits<double>::infinity()) return 0.0;
      if (abstop == 0x7ff) return 1.0 + x;  // NaN, +inf
      return (bits >> 63) ? 0.0 : std::numeric_limits<double>::infinity();
    }
    special = true;  // 512 <= |x| < 1024
  }
  // x = k ln2/N + r with integer k and |r| <= ln2/2N.
  const double kd_shifted = MulAdd<kFma>(x, ed::kInvLn2N, ed::kShift);
  const uint64_t ki = std::bit_cast<uint64_t>(kd_shifted);
  const double kd = kd_shifted - ed::kShift;
  double r = MulAdd<kFma>(kd, ed::kNegLn2hiN, x);
  r = MulAdd<kFma>(kd, ed::kNegLn2loN, r);
  // 2^(k/N) ~= scale * (1 + tail).
  const uint64_t idx = 2 * (ki & ed::kIndexMask);
  const double tail = FromBits(ed::kTable[idx]);
  const uint64_t sbits = ed::kTable[idx + 1] + (ki << (52 - ed::kTableBits));
  // exp(x) ~= scale + scale * (tail + exp(r) - 1).
  const double r2 = r * r;
  const double p23 = MulAdd<kFma>(r, ed::kC3, ed::kC2);
  const double p45 = MulAdd<kFma>(r, ed::kC5, ed::kC4);
  const double t1 = MulAdd<kFma>(p23, r2, tail + r);
  const double tmp = MulAdd<kFma>(r2 * r2, p45, t1);
  if (special) return SpecialCase<kFma>(tmp, sbits, ki);
  const double scale = FromBits(sbits);
  return MulAdd<kFma>(scale, tmp, scale);
}

}  // namespace

double ExpFused(double x) { return Exp<Fma::kFused>(x); }
double ExpUnfused(double x) { return Exp<Fma::kUnfused>(x); }

}  // namespace exactsample::twins
