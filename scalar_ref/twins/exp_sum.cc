#include "scalar_ref/twins/exp_sum.hpp"

#include <cmath>

#include "scalar_ref/order.hpp"

namespace exactsample::twins {

double ExpSum(const double* l, size_t n, double divisor, double shift,
              double* e_out, double s) {
  double z = s;
  for (size_t i = 0; i < n; ++i) {
    const double e = std::exp(scalar_ref::Tempered(l[i], divisor) - shift);
    if (e_out != nullptr) e_out[i] = e;
    z += e;
  }
  return z;
}

}  // namespace exactsample::twins
