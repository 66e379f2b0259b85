#include "lib/floor_pass.hpp"

#include "scalar_ref/exp_sum.hpp"
#include "scalar_ref/max.hpp"
#include "simd/exp_sum.hpp"
#include "simd/exp_variant.hpp"
#include "simd/max.hpp"

namespace exactsample {

double FloorPass(std::span<const float> logits, double* l, FloorKernels kernels) {
  const size_t n = logits.size();
  if (kernels == FloorKernels::scalar) {
    const double max = scalar_ref::WidenMax(logits.data(), n, l).max;
    return scalar_ref::ExpSum(l, n, 1.0, max, nullptr);
  }
  const double max = simd::WidenMax(logits.data(), n, l).max;
  return simd::ExpSum(l, n, 1.0, max, nullptr, simd::ProcessExp().variant);
}

}  // namespace exactsample
