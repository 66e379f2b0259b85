#include "lib/row_passes.hpp"

#include <omp.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <cmath>
#include <optional>
#include <thread>

#include "simd/exact_sum.hpp"

namespace exactsample {
namespace {

// Below this a row is not worth a team of threads.
constexpr size_t kMinPerThread = 16384;

// The one tunable of the split: what adding a piece's e values to the exact
// sum costs against computing them, a ratio measured on AVX2 and AVX3.
constexpr double kSumCostPerExp = 0.22;

int Team(size_t n, int threads) {
  return static_cast<int>(std::clamp<size_t>(
      n / kMinPerThread, 1, static_cast<size_t>(std::clamp(threads, 1, kMaxRowThreads))));
}

// [begin, end) of chunk `i` of `team` equal chunks of [from, n).
size_t Bound(size_t from, size_t n, int i, int team) {
  return from + (n - from) * static_cast<size_t>(i) / static_cast<size_t>(team);
}

// The pieces thread 0 computes itself. Per piece, with sum cost r against
// an exp cost of 1: thread 0 takes h (1 + r) for its h pieces plus (P - h) r
// for summing the others'; each of the team - 1 helpers (P - h) / (team - 1).
// Equal when h / P = (o - r) / (1 + o), o = 1 / (team - 1).
size_t Head(size_t pieces, int team) {
  const double others = 1.0 / (team - 1);
  const double share = std::max(0.0, (others - kSumCostPerExp) / (1.0 + others));
  return static_cast<size_t>(static_cast<double>(pieces) * share + 0.5);
}

// The pieces [next, end) of a range that no thread has claimed yet; each
// Take() claims the first of them, so no two threads take the same piece.
class PieceRange {
 public:
  void Reset(size_t begin, size_t end) {
    next_.store(begin, std::memory_order_relaxed);
    end_ = end;
  }
  std::optional<size_t> Take() {
    const size_t p = next_.fetch_add(1, std::memory_order_relaxed);
    return p < end_ ? std::optional<size_t>(p) : std::nullopt;
  }

 private:
  std::atomic<size_t> next_{0};
  size_t end_ = 0;
};

// Runs lead() on thread 0 and help(t) on threads 1 to team - 1 of one
// OpenMP team. Returns false, having run neither, when the runtime gives a
// smaller team (a nested region runs one thread).
template <class Lead, class Help>
bool RunTeam(int team, const Lead& lead, const Help& help) {
  bool shared = true;
#pragma omp parallel num_threads(team)
  {
    const int t = omp_get_thread_num();
    if (omp_get_num_threads() != team) {
      if (t == 0) shared = false;
    } else if (t == 0) {
      lead();
    } else {
      help(t);
    }
  }
  return shared;
}

}  // namespace

simd::WidenResult WidenMaxPass(const float* x, size_t n, double* l_out, int threads) {
  const int team = Team(n, threads);
  const auto widen = [&](size_t begin, size_t end) {
    return l_out != nullptr ? simd::WidenMax(x + begin, end - begin, l_out + begin)
                            : simd::CheckedMax(x + begin, end - begin);
  };
  if (team == 1) return widen(0, n);
  std::array<simd::WidenResult, kMaxRowThreads> parts;
  // A loop over the chunks, so that a smaller team (inside another
  // parallel region, say) still covers them all.
#pragma omp parallel for num_threads(team)
  for (int t = 0; t < team; ++t) {
    const size_t begin = Bound(0, n, t, team), end = Bound(0, n, t + 1, team);
    parts[static_cast<size_t>(t)] = widen(begin, end);
  }
  simd::WidenResult r{-INFINITY, false};
  for (int t = 0; t < team; ++t) {
    r.max = std::max(r.max, parts[static_cast<size_t>(t)].max);
    r.bad |= parts[static_cast<size_t>(t)].bad;
  }
  return r;
}

ExpSumResult ExpSumPass(simd::ExpSource src, size_t n, double divisor, double shift,
                        double* e_out, simd::ExpVariant v, int threads,
                        std::span<double> storage) {
  const RowPieces pieces = RowPieces::Of(n);
  double* const prefix = storage.data();
  double z = 0.0;
  // Pieces [from, to) computed and summed onto z by the calling thread.
  const auto sum_pieces = [&](size_t from, size_t to) {
    for (size_t p = from; p < to; ++p) {
      prefix[p] = z;
      z = simd::ExpSum(src.At(pieces.Begin(p)), pieces.Length(p), divisor, shift,
                       e_out != nullptr ? e_out + pieces.Begin(p) : nullptr, v, z);
    }
  };
  const auto result = [&] {
    prefix[pieces.count] = z;
    return ExpSumResult{z, RowSums{pieces, storage.first(pieces.count + 1)}};
  };
  const int team = Team(n, threads);
  if (team == 1) {
    sum_pieces(0, pieces.count);
    return result();
  }
  // Thread 0 computes and sums the head; the others compute the e values of
  // the rest piece by piece, each in the order of its range, and thread 0
  // adds each piece as soon as it is done. While it waits for one, thread 0
  // takes the next unclaimed piece of that range itself: a helper that runs
  // late or a head that ends early costs no idle time, and the call ends
  // about one piece after the helper's last.
  const size_t head = Head(pieces.count, team);
  std::array<PieceRange, kMaxRowThreads> ranges;
  for (int t = 1; t < team; ++t) {
    ranges[static_cast<size_t>(t)].Reset(Bound(head, pieces.count, t - 1, team - 1),
                                         Bound(head, pieces.count, t, team - 1));
  }
  std::array<std::atomic<bool>, RowPieces::kMaxCount> ready{};
  const auto compute = [&](size_t p) {
    simd::ExpStore(src.At(pieces.Begin(p)), pieces.Length(p), divisor, shift,
                   e_out + pieces.Begin(p), v);
    ready[p].store(true, std::memory_order_release);
  };
  const auto lead = [&] {
    sum_pieces(0, head);
    for (int other = 1; other < team; ++other) {
      PieceRange& range = ranges[static_cast<size_t>(other)];
      const size_t end = Bound(head, pieces.count, other, team - 1);
      for (size_t p = Bound(head, pieces.count, other - 1, team - 1); p < end; ++p) {
        while (!ready[p].load(std::memory_order_acquire)) {
          if (const auto q = range.Take()) {
            compute(*q);
          } else {
            std::this_thread::yield();
          }
        }
        prefix[p] = z;
        z = simd::AccumulateExact(z, e_out + pieces.Begin(p), pieces.Length(p));
      }
    }
  };
  const auto help = [&](int t) {
    PieceRange& range = ranges[static_cast<size_t>(t)];
    while (const auto p = range.Take()) compute(*p);
  };
  // A smaller team than asked for: thread 0 does it all.
  if (!RunTeam(team, lead, help)) {
    z = 0.0;
    sum_pieces(0, pieces.count);
  }
  return result();
}

}  // namespace exactsample
