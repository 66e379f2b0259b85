#include "scalar_ref/twins/filter.hpp"

namespace exactsample::twins {

size_t ZeroAfter(const double* l, double divisor, double* e, size_t n,
                 double t_cut, int32_t id_cut) {
  size_t left = 0;
  for (size_t i = 0; i < n; ++i) {
    if (AfterCut(scalar_ref::Tempered(l[i], divisor), static_cast<int64_t>(i), t_cut,
                 id_cut)) {
      e[i] = 0.0;
    }
    left += e[i] > 0.0;
  }
  return left;
}

size_t MinPFilter(double* e, size_t n, double z, double threshold) {
  size_t left = 0;
  for (size_t i = 0; i < n; ++i) {
    if (e[i] / z < threshold) e[i] = 0.0;
    left += e[i] > 0.0;
  }
  return left;
}

}  // namespace exactsample::twins
