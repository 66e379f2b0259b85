#include "scalar_ref/twins/exact_sum.hpp"

namespace exactsample::twins {

double AccumulateExact(double s, const double* e, size_t n) {
  for (size_t i = 0; i < n; ++i) s += e[i];
  return s;
}

size_t AccumulateUntil(double& s, const double* e, size_t n, double target) {
  for (size_t i = 0; i < n; ++i) {
    s += e[i];
    if (s >= target) return i;
  }
  return n;
}

double ExactSum(const double* e, size_t n) {
  return AccumulateExact(0.0, e, n);
}

}  // namespace exactsample::twins
