#include "scalar_ref/twins/penalty.hpp"

#include <algorithm>

namespace exactsample::twins {

PenaltyResult Penalize(double* l, size_t n, const PenaltyCodes& codes) {
  PenaltyResult r{-INFINITY, false};
  for (size_t i = 0; i < n; ++i) {
    if (codes.code[i] >= 0) l[i] = Penalized(l[i], static_cast<uint64_t>(codes.code[i]), codes.p);
    r.bad |= !(l[i] < INFINITY);
    r.max = std::max(r.max, l[i]);
  }
  r.max += 0.0;
  return r;
}

}  // namespace exactsample::twins
