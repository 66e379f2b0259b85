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

namespace {

template <typename T>
scalar_ref::SigmaSums SigmaSumsOf(const T* l, double divisor, size_t n) {
  return scalar_ref::SigmaSumsOf([&](const auto& f) {
    for (size_t i = 0; i < n; ++i) {
      const double t = scalar_ref::Tempered(static_cast<double>(l[i]), divisor);
      if (t != -INFINITY) f(t);
    }
  });
}

}  // namespace

scalar_ref::SigmaSums SigmaSumsOfRow(const double* l, double divisor, size_t n) {
  return SigmaSumsOf(l, divisor, n);
}

scalar_ref::SigmaSums SigmaSumsOfRow(const float* x, double divisor, size_t n) {
  return SigmaSumsOf(x, divisor, n);
}

}  // namespace exactsample::twins
