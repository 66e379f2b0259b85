#include "scalar_ref/twins/exp_bound.hpp"

#include <algorithm>
#include <bit>
#include <cstdint>
#include <cmath>

#include "scalar_ref/twins/exp_bound_data.hpp"

namespace exactsample::twins {

double ExpApprox(double x) {
  namespace c = exp_bound;
  x = std::max(x, c::kFloor);
  // k = x / ln 2 rounded to an integer, by adding 1.5 2^52 (whose low bits
  // then hold k); each multiply-add rounds twice here, once in the kernel
  // on targets with FMA: both are within ExpBoundError.
  const double biased = x * c::kInvLn2 + c::kRound;
  const double k = biased - c::kRound;
  const double r = x - k * c::kLn2;
  double p = c::kTaylor[c::kDegree];
  for (int j = c::kDegree - 1; j >= 0; --j) p = p * r + c::kTaylor[j];
  // 2^k p, k >= -1010 and p in [0.7, 1.5]: k added to p's exponent field.
  // The low 12 bits of biased's are k's (those of 1.5 2^52 are zero).
  const uint64_t exponent = std::bit_cast<uint64_t>(biased) << 52;
  return std::bit_cast<double>(std::bit_cast<uint64_t>(p) + exponent);
}

double ExpBoundError(double shift) {
  // ExpApprox: the Taylor remainder |r|^9 / 9! e^|r| < 2.9e-10 for
  // |r| <= 0.3466, and its roundings, below 2^-31. glibc's exp: under an
  // ulp, 2^-52. The argument: l * (1 / divisor) is within 3 2^-53 |t| of
  // t, and each subtraction of shift rounds by 2^-53 of |t - shift| <= 747,
  // moving e^x by a factor within 1.01 |dx|.
  return 0x1p-31 + 0x1p-52 + 1.01 * 0x1p-51 * (std::fabs(shift) + 1000.0);
}

ZBounds BoundsOf(double sum, size_t n, double shift) {
  // Each term within ExpBoundError of its e; the sum's additions and the
  // spec's ascending sum (each at most n deep) round by 2^-53 of the total
  // each; a term below e^-700 (where ExpApprox clamps its argument) is off by less than
  // 2^-1000.
  const double relative = ExpBoundError(shift) + static_cast<double>(2 * n + 64) * 0x1p-53;
  const double slack = 1.1 * sum * relative + static_cast<double>(n) * 0x1p-1000;
  return {std::nextafter(std::max(sum - slack, 0.0), 0.0),
          std::nextafter(sum + slack, INFINITY)};
}

ZBounds ExpSumBounds(const double* l, size_t n, double divisor, double shift) {
  const double inverse = 1.0 / divisor;
  double sum = 0.0;
  for (size_t i = 0; i < n; ++i) sum += ExpApprox(l[i] * inverse - shift);
  return BoundsOf(sum, n, shift);
}

}  // namespace exactsample::twins
