#include "scalar_ref/twins/max.hpp"

#include <cmath>

namespace exactsample::twins {

WidenResult WidenMax(Row x, size_t n, double* l_out, AllowedIds allowed,
                     const PenaltyCodes* penalties) {
  WidenResult r{-INFINITY, false};
  for (size_t i = 0; i < n; ++i) {
    const double l = static_cast<double>(x[i]);
    r.bad |= !(l < INFINITY);  // NaN or +inf
    l_out[i] = allowed[i] ? l : -INFINITY;
    if (l_out[i] > r.max) r.max = l_out[i];
  }
  r.max += 0.0;  // -0.0 + 0.0 is +0.0; every other value is unchanged
  if (penalties != nullptr) {
    const PenaltyResult penalized = Penalize(l_out, n, *penalties);
    r.max = penalized.max;
    r.bad |= penalized.bad;
  }
  return r;
}

WidenResult CheckedMax(const float* x, size_t n) {
  WidenResult r{-INFINITY, false};
  for (size_t i = 0; i < n; ++i) {
    const double l = static_cast<double>(x[i]);
    r.bad |= !(l < INFINITY);  // NaN or +inf
    if (l > r.max) r.max = l;
  }
  r.max += 0.0;
  return r;
}

WidenResult CopyCheckedMax(const float* x, size_t n, float* copy_out) {
  for (size_t i = 0; i < n; ++i) copy_out[i] = x[i];
  return CheckedMax(x, n);
}

double Max(const double* l, size_t n) {
  double m = -INFINITY;
  for (size_t i = 0; i < n; ++i) {
    if (l[i] > m) m = l[i];
  }
  return m + 0.0;  // -0.0 + 0.0 is +0.0; every other value is unchanged
}

size_t FindFirst(const double* l, size_t n, double value) {
  size_t i = 0;
  while (i < n && l[i] != value) ++i;
  return i;
}

}  // namespace exactsample::twins
