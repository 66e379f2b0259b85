// Ordering of top-k candidate ids in (t desc, id asc) order, t = l / divisor:
// plain C++ shared by every target's TopK (compiled once, simd/topk_order.cc).
#pragma once

#include <cstddef>
#include <cstdint>

#include "scalar_ref/order.hpp"

namespace exactsample::simd::topk {

using scalar_ref::Tempered;

// scalar_ref::Before on ids.
class Order {
 public:
  Order(const double* l, double divisor) : l_(l), divisor_(divisor) {}
  bool operator()(int32_t a, int32_t b) const {
    return scalar_ref::Before(Tempered(l_[a], divisor_), a, Tempered(l_[b], divisor_), b);
  }

 private:
  const double* l_;
  double divisor_;
};

// Moves the first k (< count) ids of Order to ids[0..k), the k-th last.
void KeepFirst(const Order& order, int32_t* ids, size_t count, size_t k);

// Writes ids[0..count) in Order into out[0..count); ids is clobbered.
void SortInto(const double* l, double divisor, int32_t* ids, size_t count,
              int32_t* out);

}  // namespace exactsample::simd::topk
