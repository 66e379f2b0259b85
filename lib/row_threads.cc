#include "lib/row_threads.hpp"

#include <omp.h>

#include <algorithm>
#include <atomic>
#include <thread>
#include <cmath>
#include <vector>

#include "simd/exact_sum.hpp"
#include "simd/exp_sum.hpp"

namespace exactsample {
namespace {

// Below this a row is not worth a team of threads.
constexpr size_t kMinPerThread = 16384;
// e values a helper thread publishes at a time: long enough for the exact
// sum's blocks, short enough that thread 0 rarely waits.
constexpr size_t kPiece = 4096;

int Team(size_t n, int threads) {
  return static_cast<int>(std::clamp<size_t>(n / kMinPerThread, 1,
                                             static_cast<size_t>(std::max(threads, 1))));
}

// [begin, end) of chunk `i` of `team` equal chunks of [from, n).
size_t Bound(size_t from, size_t n, int i, int team) {
  return from + (n - from) * static_cast<size_t>(i) / static_cast<size_t>(team);
}

// The head thread 0 sums itself: per element (AVX2) exp with the sum costs
// 0.94 ns, exp alone 0.77, the sum alone 0.17; this share balances thread
// 0's work (the head plus every sum) with each other thread's.
size_t Head(size_t n, int team) {
  const double others = 0.77 / (team - 1);
  const double share = std::max(0.0, (others - 0.17) / (0.94 - 0.17 + others));
  return static_cast<size_t>(static_cast<double>(n) * share);
}

}  // namespace

simd::WidenResult WidenMaxThreads(const float* x, size_t n, double* l_out,
                                  int threads) {
  const int team = Team(n, threads);
  if (team == 1) return simd::WidenMax(x, n, l_out);
  std::vector<simd::WidenResult> parts(static_cast<size_t>(team));
  // A loop over the chunks, so that a smaller team (inside another
  // parallel region, say) still covers them all.
#pragma omp parallel for num_threads(team)
  for (int t = 0; t < team; ++t) {
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
  // Thread 0 computes and sums the head; the others compute the e values of
  // the rest piece by piece, publishing their progress, and thread 0 adds
  // each piece as soon as it is done.
  const size_t head = Head(n, team);
  std::vector<std::atomic<size_t>> done(static_cast<size_t>(team));
  double z = 0.0;
  bool shared = true;
#pragma omp parallel num_threads(team)
  {
    const int t = omp_get_thread_num();
    // A smaller team than asked for (a nested region runs one thread):
    // thread 0 does it all.
    if (omp_get_num_threads() != team) {
      if (t == 0) shared = false;
    } else if (t == 0) {
      z = simd::ExpSum(l, head, divisor, shift, e_out, v);
      for (int other = 1; other < team; ++other) {
        size_t at = Bound(head, n, other - 1, team - 1);
        const size_t end = Bound(head, n, other, team - 1);
        while (at < end) {
          size_t ready;
          while ((ready = done[static_cast<size_t>(other)].load(std::memory_order_acquire)) <= at) {
            std::this_thread::yield();
          }
          z = simd::AccumulateExact(z, e_out + at, ready - at);
          at = ready;
        }
      }
    } else {
      const size_t begin = Bound(head, n, t - 1, team - 1);
      const size_t end = Bound(head, n, t, team - 1);
      for (size_t at = begin; at < end; at += kPiece) {
        const size_t m = std::min(kPiece, end - at);
        simd::ExpStore(l + at, m, divisor, shift, e_out + at, v);
        done[static_cast<size_t>(t)].store(at + m, std::memory_order_release);
      }
    }
  }
  return shared ? z : simd::ExpSum(l, n, divisor, shift, e_out, v);
}

}  // namespace exactsample
