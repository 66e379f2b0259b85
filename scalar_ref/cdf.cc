#include "scalar_ref/cdf.hpp"

#include <cfloat>
#include <cmath>

namespace exactsample::scalar_ref {

size_t InverseCdf(const double* e, size_t n, double z, double u) {
  double c = 0.0;
  const size_t hit = WalkCdf(e, n, z, u, c);
  return hit < n ? hit : LastPositive(e, n, z);
}

size_t WalkCdf(const double* e, size_t n, double z, double u, double& c) {
  for (size_t i = 0; i < n; ++i) {
    c += e[i] / z;
    if (u < c) return i;
  }
  return n;
}

size_t LastPositive(const double* e, size_t n, double z) {
  for (size_t i = n; i-- > 0;) {
    if (e[i] / z > 0) return i;
  }
  return n;
}

simd::GridCount CountQuotients(const double* e, size_t n, double z, double guess) {
  if (!(guess >= simd::kGridMin && guess <= DBL_MAX)) return {};
  // The ulp of guess's binade; nearbyint rounds half to even by default.
  const double u = std::ldexp(1.0, std::ilogb(guess) - 52);
  simd::GridCount count{guess, 0.0, false};
  for (size_t i = 0; i < n; ++i) {
    const double x = e[i] / z / u;
    const double r = std::nearbyint(x);
    count.units += r;
    count.tie |= std::abs(x - r) == 0.5;
  }
  return count;
}

}  // namespace exactsample::scalar_ref
