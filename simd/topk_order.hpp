// Ordering of top-k candidate ids in (t desc, id asc) order, t = l / divisor:
// plain C++ shared by every target's TopK (compiled once, simd/topk_order.cc).
#pragma once

#include <cstddef>
#include <cstdint>

#include "scalar_ref/order.hpp"

namespace exactsample::simd::topk {

using scalar_ref::Tempered;

// Whether t = l / divisor orders an f32 row's ids as l does. Two f32 values
// apart are at least 2^-24 apart relatively, a gap the rounding of
// l / divisor to f64 (2^-53) cannot close while the quotients stay normal
// and finite, as they do for |l| < 2^128 and these divisors.
inline bool F32OrderIsLs(double divisor) { return divisor >= 0x1p-64 && divisor <= 0x1p64; }

// scalar_ref::Before on ids, for logits l of type T: double, or float (an
// f32 row, widened exactly on the way).
template <class T>
class Order {
 public:
  Order(const T* l, double divisor) : l_(l), divisor_(OrderDivisor(divisor)) {}
  double At(int32_t id) const { return Tempered(static_cast<double>(l_[id]), divisor_); }
  bool operator()(int32_t a, int32_t b) const {
    return scalar_ref::Before(At(a), a, At(b), b);
  }

 private:
  // Where t orders an f32 row as l does, the divisions are left out.
  static double OrderDivisor(double divisor) {
    return sizeof(T) == sizeof(float) && F32OrderIsLs(divisor) ? 1.0 : divisor;
  }

  const T* l_;
  double divisor_;
};

// Moves the first k (< count) ids of Order to ids[0..k), the k-th last.
template <class T>
void KeepFirst(const Order<T>& order, int32_t* ids, size_t count, size_t k);

// Writes ids[0..count) in Order into out[0..count); ids is clobbered.
template <class T>
void SortInto(const Order<T>& order, int32_t* ids, size_t count, int32_t* out);

}  // namespace exactsample::simd::topk
