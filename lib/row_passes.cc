#include "lib/row_passes.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <thread>

#include "simd/exact_sum.hpp"

namespace exactsample {
namespace {

// Below this a row is not worth a team of threads.
constexpr size_t kMinPerThread = 16384;

}  // namespace

int RowTeam(size_t n, int threads) {
  return static_cast<int>(std::clamp<size_t>(
      n / kMinPerThread, 1, static_cast<size_t>(std::clamp(threads, 1, kMaxRowThreads))));
}

simd::WidenResult WidenMaxPass(simd::Row x, size_t n, double* l_out,
                               simd::AllowedIds allowed) {
  return l_out != nullptr ? simd::WidenMax(x, n, l_out, allowed)
                          : simd::CheckedMax(x.As<LogitType::f32>(), n);
}

void RowJob::Help() {
  for (;;) {
    // Counted as copying before the claim: once the caller has seen every
    // piece claimed and no copy running, no helper reads its row again.
    if (x_ != nullptr) copying_.fetch_add(1, std::memory_order_seq_cst);
    const auto leave_copy = [&] {
      if (x_ != nullptr) copying_.fetch_sub(1, std::memory_order_release);
    };
    const ptrdiff_t p = cursor_.fetch_sub(1, std::memory_order_seq_cst);
    if (p < 0) {
      leave_copy();
      return;
    }
    const auto k = static_cast<size_t>(p);
    std::atomic<uint8_t>& state = state_[k];
    uint8_t s = kFree;
    // The caller has reached this piece: every piece below is its own.
    if (!state.compare_exchange_strong(s, kHelper, std::memory_order_seq_cst)) {
      leave_copy();
      return;
    }
    const size_t begin = pieces_.Begin(k);
    const size_t length = pieces_.Length(k);
    simd::ExpSource src = src_;
    if (x_ != nullptr) {
      std::memcpy(x_copy_ + begin, x_ + begin, length * sizeof(float));
      leave_copy();
      src = {nullptr, x_copy_};
    }
    threads::RunHelperHook(k);
    simd::ExpStore(src.At(begin), length, divisor_, shift_, e_ + begin, v_);
    s = kHelper;
    if (!state.compare_exchange_strong(s, kDone, std::memory_order_release,
                                       std::memory_order_relaxed)) {
      // Taken over meanwhile: nobody but this helper moves it on from there.
      state.store(kLateDone, std::memory_order_release);
    }
  }
}

const double* RowJob::Piece(size_t k) const {
  return (contiguous_ || patched_[k] ? alt_ : e_) + pieces_.Begin(k);
}

double* RowJob::Contiguous() {
  if (contiguous_) return alt_;
  if (patches_ == 0) return e_;
  for (size_t k = 0; k < pieces_.count; ++k) {
    if (patched_[k] && state_[k].load(std::memory_order_acquire) == kLateDone) {
      patched_[k] = false;  // the helper's copy in e_ is complete (the same values)
      --patches_;
    }
  }
  if (patches_ == 0) return e_;
  for (size_t k = 0; k < pieces_.count; ++k) {
    if (!patched_[k]) {
      std::memcpy(alt_ + pieces_.Begin(k), e_ + pieces_.Begin(k),
                  pieces_.Length(k) * sizeof(double));
    }
  }
  contiguous_ = true;
  return alt_;
}

ExpSumResult ExpSumPass(simd::ExpSource src, size_t n, double divisor, double shift,
                        double* e_out, simd::ExpVariant v, const RowThreads& threads,
                        std::span<double> storage) {
  const RowPieces pieces = RowPieces::Of(n);
  double* const prefix = storage.data();
  double z = 0.0;
  const auto result = [&](RowJob* patch) {
    prefix[pieces.count] = z;
    return ExpSumResult{z, RowSums{pieces, storage.first(pieces.count + 1)}, patch};
  };
  const int team = RowTeam(n, threads.threads);
  if (team == 1 || threads.job == nullptr || e_out == nullptr ||
      (src.l == nullptr && threads.x_copy == nullptr)) {
    for (size_t p = 0; p < pieces.count; ++p) {
      prefix[p] = z;
      z = simd::ExpSum(src.At(pieces.Begin(p)), pieces.Length(p), divisor, shift,
                       e_out != nullptr ? e_out + pieces.Begin(p) : nullptr, v, z);
    }
    return result(nullptr);
  }

  RowJob& job = *threads.job;
  job.src_ = src;
  job.divisor_ = divisor;
  job.shift_ = shift;
  job.e_ = e_out;
  job.v_ = v;
  job.pieces_ = pieces;
  for (size_t p = 0; p < pieces.count; ++p) {
    job.state_[p].store(RowJob::kFree, std::memory_order_relaxed);
    job.patched_[p] = false;
  }
  job.cursor_.store(static_cast<ptrdiff_t>(pieces.count) - 1, std::memory_order_relaxed);
  job.alt_ = threads.alt;
  job.x_ = src.l == nullptr ? src.x : nullptr;
  job.x_copy_ = threads.x_copy;
  job.copying_.store(0, std::memory_order_relaxed);
  job.patches_ = 0;
  job.contiguous_ = false;
  if (void* token = job.ticket_.Open(&job)) {
    threads::SubmitHelpers(threads.executor, static_cast<size_t>(team - 1), token);
  }

  // Every piece in ascending order: a free one is claimed and computed here,
  // a helper's finished one is added, a helper's unfinished one is taken
  // over and computed into the alternate area.
  for (size_t p = 0; p < pieces.count; ++p) {
    prefix[p] = z;
    const size_t begin = pieces.Begin(p);
    const size_t length = pieces.Length(p);
    std::atomic<uint8_t>& state = job.state_[p];
    uint8_t s = RowJob::kFree;
    if (state.compare_exchange_strong(s, RowJob::kCaller, std::memory_order_seq_cst)) {
      z = simd::ExpSum(src.At(begin), length, divisor, shift, e_out + begin, v, z);
      continue;
    }
    if (s == RowJob::kHelper &&
        state.compare_exchange_strong(s, RowJob::kTaken, std::memory_order_seq_cst)) {
      z = simd::ExpSum(src.At(begin), length, divisor, shift, threads.alt + begin, v, z);
      job.patched_[p] = true;
      ++job.patches_;
      continue;
    }
    z = simd::AccumulateExact(z, e_out + begin, length);  // s == kDone
  }
  job.ticket_.Close();
  // Helpers still copying a piece of the caller's row: the only wait, the
  // length of one piece's copy (a helper that claims after this finds
  // every piece taken).
  for (int k = 0; job.copying_.load(std::memory_order_seq_cst) != 0; ++k) {
    if (k > 256) std::this_thread::yield();
  }
  return result(job.patches_ > 0 ? &job : nullptr);
}

}  // namespace exactsample
