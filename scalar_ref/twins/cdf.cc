#include "scalar_ref/twins/cdf.hpp"

namespace exactsample::twins {

size_t InverseCdf(const double* e, size_t n, double z, double u) {
  double c = 0.0;
  for (size_t i = 0; i < n; ++i) {
    c += e[i] / z;
    if (u < c) return i;
  }
  for (size_t i = n; i-- > 0;) {
    if (e[i] / z > 0) return i;
  }
  return n;
}

}  // namespace exactsample::twins
