// Per-target body of TopK (simd/topk.hpp).
//
// One pass keeps candidates: ids whose l exceeds the threshold l_k, the l of
// the k-th id of (t desc, id asc) order among the ids seen so far (-inf at
// first, so l == -inf never enters). An id with l <= l_k has t <= t_k, and an
// equal t loses to id_k as it comes later, so it can never be among the first
// k. The vector compare l > l_k drops nearly every id of a real row; when the
// buffer of candidates fills, it is cut back to its first k and l_k raised.
// Only the candidates are then ordered (simd/topk_order.hpp): the first k
// picked by std::nth_element, then sorted.

#if defined(EXACTSAMPLE_SIMD_TOPK_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef EXACTSAMPLE_SIMD_TOPK_INL_H_
#undef EXACTSAMPLE_SIMD_TOPK_INL_H_
#else
#define EXACTSAMPLE_SIMD_TOPK_INL_H_
#endif

#include <algorithm>
#include <cmath>

#include "hwy/highway.h"
#include "simd/reduce-inl.h"
#include "simd/topk_order.hpp"

HWY_BEFORE_NAMESPACE();
namespace exactsample::simd::HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

// The candidate buffer (capacity n: it holds at most the ids seen so far),
// over logits of type T (double, or float: an f32 row); ids set in `skip`
// never enter.
template <class T>
class Candidates {
 public:
  Candidates(const T* l, double divisor, size_t k, int32_t* ids, const uint64_t* skip)
      : l_(l),
        order_(l, divisor),
        k_(k),
        ids_(ids),
        skip_(skip),
        // Cutting costs O(limit); leaving room for >= 256 new candidates
        // between cuts keeps ascending rows (every id a candidate) linear.
        limit_(std::max(4 * k, k + 256)) {}

  T threshold() const { return threshold_; }

  // Makes room for `more` ids: cuts back to the first k (and raises the
  // threshold) when the buffer would pass its limit. limit_ >= k + more.
  void Reserve(size_t more) {
    if (count_ + more <= limit_) return;
    topk::KeepFirst(order_, ids_, count_, k_);
    count_ = k_;
    threshold_ = l_[ids_[k_ - 1]];
  }

  void Push(size_t id) {
    if (skip_ != nullptr && ((skip_[id / 64] >> (id % 64)) & 1) != 0) return;
    ids_[count_++] = static_cast<int32_t>(id);
  }

  // Appends ids base + j for the true lanes j of `mask`.
  template <class D>
  void PushLanes(D d, hn::Mask<D> mask, size_t base) {
    Reserve(hn::Lanes(d));
    for (uint64_t bits = LaneBits(d, mask); bits != 0; bits &= bits - 1) {
      Push(base + static_cast<size_t>(__builtin_ctzll(bits)));
    }
  }

  // The first min(k, count) candidates, in order, into out.
  size_t Finish(int32_t* out) {
    if (count_ > k_) {
      topk::KeepFirst(order_, ids_, count_, k_);
      count_ = k_;
    }
    topk::SortInto(order_, ids_, count_, out);
    return count_;
  }

 private:
  const T* l_;
  topk::Order<T> order_;
  size_t k_;
  int32_t* ids_;
  const uint64_t* skip_;
  size_t limit_;
  size_t count_ = 0;
  T threshold_ = -INFINITY;
};

// d's lanes are T's (an f32 row compares as f32: widening is exact and
// monotone).
template <class D, class T = hn::TFromD<D>>
size_t TopK(D d, const T* l, double divisor, size_t n, size_t k, int32_t* out,
            int32_t* ids, const uint64_t* skip) {
  if (k == 0) return 0;
  const size_t N = hn::Lanes(d);
  Candidates<T> cand(l, divisor, k, ids, skip);
  auto thr = hn::Set(d, cand.threshold());
  size_t i = 0;
  for (; i + 4 * N <= n; i += 4 * N) {
    const auto m0 = hn::Gt(hn::LoadU(d, l + i), thr);
    const auto m1 = hn::Gt(hn::LoadU(d, l + i + N), thr);
    const auto m2 = hn::Gt(hn::LoadU(d, l + i + 2 * N), thr);
    const auto m3 = hn::Gt(hn::LoadU(d, l + i + 3 * N), thr);
    if (hn::AllFalse(d, hn::Or(hn::Or(m0, m1), hn::Or(m2, m3)))) continue;
    // A cut inside this block only raises the threshold: the masks from the
    // old one still keep every id that can be among the first k.
    cand.PushLanes(d, m0, i);
    cand.PushLanes(d, m1, i + N);
    cand.PushLanes(d, m2, i + 2 * N);
    cand.PushLanes(d, m3, i + 3 * N);
    thr = hn::Set(d, cand.threshold());
  }
  cand.Reserve(4 * N);  // the rest is shorter than 4 vectors
  for (; i < n; ++i) {
    if (l[i] > cand.threshold()) cand.Push(i);
  }
  return cand.Finish(out);
}

}  // namespace exactsample::simd::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#endif  // EXACTSAMPLE_SIMD_TOPK_INL_H_
