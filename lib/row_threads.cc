#include "lib/row_threads.hpp"

#include <omp.h>

#include <algorithm>
#include <cmath>
#include <vector>

#include "simd/cdf.hpp"
#include "simd/exact_sum.hpp"
#include "simd/exp_sum.hpp"

namespace exactsample {
namespace {

// Below this a row is not worth a team of threads.
constexpr size_t kMinPerThread = 16384;

int Team(size_t n, int threads) {
  return static_cast<int>(std::clamp<size_t>(n / kMinPerThread, 1,
                                             static_cast<size_t>(std::max(threads, 1))));
}

// [begin, end) of chunk `i` of `team` equal chunks of [from, n).
size_t Bound(size_t from, size_t n, int i, int team) {
  return from + (n - from) * static_cast<size_t>(i) / static_cast<size_t>(team);
}

}  // namespace

simd::WidenResult WidenMaxThreads(const float* x, size_t n, double* l_out,
                                  int threads) {
  const int team = Team(n, threads);
  if (team == 1) return simd::WidenMax(x, n, l_out);
  std::vector<simd::WidenResult> parts(static_cast<size_t>(team));
#pragma omp parallel num_threads(team)
  {
    const int t = omp_get_thread_num();
    const size_t begin = Bound(0, n, t, team), end = Bound(0, n, t + 1, team);
    parts[static_cast<size_t>(t)] = simd::WidenMax(x + begin, end - begin, l_out + begin);
  }
  simd::WidenResult r{-INFINITY, false};
  for (const auto& p : parts) {
    r.max = std::max(r.max, p.max);
    r.bad |= p.bad;
  }
  return r;
}

double ExpSumThreads(const double* l, size_t n, double divisor, double shift,
                     double* e_out, simd::ExpVariant v, int threads) {
  const int team = Team(n, threads);
  if (team == 1) return simd::ExpSum(l, n, divisor, shift, e_out, v);
  // Thread 0 computes and sums the first piece, the others compute e only;
  // then thread 0 sums their e. Measured per element: exp with the sum 1.0,
  // exp alone 0.75, the sum 0.25 (AVX2), which balances at this share.
  const double share = 0.75 / (0.75 + 1.0 * (team - 1));
  const size_t head = static_cast<size_t>(static_cast<double>(n) * share);
  double z = 0.0;
#pragma omp parallel num_threads(team)
  {
    const int t = omp_get_thread_num();
    if (t == 0) {
      z = simd::ExpSum(l, head, divisor, shift, e_out, v);
    } else {
      const size_t begin = Bound(head, n, t - 1, team - 1);
      const size_t end = Bound(head, n, t, team - 1);
      simd::ExpStore(l + begin, end - begin, divisor, shift, e_out + begin, v);
    }
  }
  return simd::AccumulateExact(z, e_out + head, n - head);
}

size_t InverseCdfThreads(double* e, size_t n, double z, double u, int threads) {
  if (Team(n, threads) == 1) return simd::InverseCdf(e, n, z, u);
  // One thread walks the first half while the other turns the second half
  // into quotients, which the walk then continues over with z = 1.
  const size_t half = n / 2;
  double c = 0.0;
  size_t hit = half;
#pragma omp parallel num_threads(2)
  {
    if (omp_get_thread_num() == 0) {
      hit = simd::CdfWalk(e, half, z, u, c);
    } else {
      simd::Quotients(e + half, n - half, z, e + half);
    }
  }
  if (hit < half) return hit;
  hit = simd::CdfWalk(e + half, n - half, 1.0, u, c);
  if (hit < n - half) return half + hit;
  // Rounding left c below u: the largest id with q > 0.
  for (size_t i = n; i-- > half;) {
    if (e[i] > 0) return i;
  }
  for (size_t i = half; i-- > 0;) {
    if (e[i] / z > 0) return i;
  }
  return n;
}

}  // namespace exactsample
