// Dispatch for the nucleus cut: one copy of simd/nucleus-inl.h per target.
#include "simd/nucleus.hpp"

#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "simd/nucleus.cc"
#include "hwy/foreach_target.h"  // IWYU pragma: keep

#include "hwy/highway.h"
#include "simd/nucleus-inl.h"

HWY_BEFORE_NAMESPACE();
namespace exactsample::simd::HWY_NAMESPACE {

Cut NucleusCutImpl(const double* l, double divisor, const double* e, size_t n, double z,
                   double p, uint32_t* scratch) {
  return NucleusCut(hn::ScalableTag<double>(), l, divisor, e, n, z, p, scratch);
}

}  // namespace exactsample::simd::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace exactsample::simd {

HWY_EXPORT(NucleusCutImpl);

Cut NucleusCut(const double* l, double divisor, const double* e, size_t n,
               double z, double p, std::span<uint32_t> scratch) {
  HWY_ASSERT(scratch.size() >= NucleusScratchWords(n));
  return HWY_DYNAMIC_DISPATCH(NucleusCutImpl)(l, divisor, e, n, z, p, scratch.data());
}

}  // namespace exactsample::simd
#endif  // HWY_ONCE
