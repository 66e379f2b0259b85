#include "tools/lib/floor_pass.hpp"

#include "scalar_ref/twins/exp_sum.hpp"
#include "scalar_ref/twins/max.hpp"
#include "simd/exp_sum.hpp"
#include "simd/exp_choice.hpp"
#include "simd/max.hpp"

namespace exactsample {

double FloorPass(std::span<const float> logits, double* l, FloorKernels kernels) {
  const size_t n = logits.size();
  if (kernels == FloorKernels::scalar) {
    const double max = twins::WidenMax(logits.data(), n, l).max;
    return twins::ExpSum(l, n, 1.0, max, nullptr);
  }
  const double max = simd::WidenMax(logits.data(), n, l).max;
  return simd::ExpSum(l, n, 1.0, max, nullptr, simd::ProcessExp().variant);
}

}  // namespace exactsample
