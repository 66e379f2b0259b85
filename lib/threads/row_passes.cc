#include "lib/threads/row_passes.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <exception>
#include <thread>

#include "simd/exact_sum.hpp"

namespace exactsample {
namespace {

// Below this a row is not worth a team of threads.
constexpr size_t kMinPerThread = 16384;

// The caller computing a helper's unfinished piece looks between blocks of
// this many ids whether the helper has finished it meanwhile.
constexpr size_t kRaceBlock = 512;

}  // namespace

int RowTeam(size_t n, int threads) {
  return static_cast<int>(std::clamp<size_t>(
      n / kMinPerThread, 1, static_cast<size_t>(std::clamp(threads, 1, kMaxRowThreads))));
}

void RowJob::Help() {
  present_.fetch_add(1, std::memory_order_seq_cst);
  const auto phase = [&] { return phase_.load(std::memory_order_acquire); };
  // Until the caller opens a pass or cancels, which it always does.
  constexpr auto kUntilDone = threads::SpinClock::duration::max();
  threads::SpinWhile([&] { return phase() == kWaiting; }, kUntilDone);
  if (phase() == kMax) {
    MaxFromBottom();
    threads::SpinWhile([&] { return phase() == kMax; }, kUntilDone);
  }
  if (phase() == kCancelled) return;
  SumFromBottom();
  StoreFromTop();
}

void RowJob::Announce(Executor* executor, int team) {
  phase_.store(kWaiting, std::memory_order_relaxed);
  present_.store(0, std::memory_order_relaxed);
  copying_.store(0, std::memory_order_relaxed);
  max_split_ = false;
  if (void* token = ticket_.Open(this)) {
    announced_ = true;
    threads::SubmitHelpers(executor, static_cast<size_t>(team - 1), token);
  }
}

void RowJob::Cancel() {
  if (!announced_) return;
  announced_ = false;
  phase_.store(kCancelled, std::memory_order_release);
  ticket_.Close();
  if (max_split_) WaitCopies();
}

void RowJob::SetRow(RowPieces pieces, const float* x, float* x_copy) {
  pieces_ = pieces;
  x_ = x;
  x_copy_ = x_copy;
}

// Helpers still copying a piece of the caller's row: the only wait, the
// length of one piece's copy (a helper that claims after the caller has
// claimed every piece finds nothing).
void RowJob::WaitCopies() const {
  for (int k = 0; copying_.load(std::memory_order_seq_cst) != 0; ++k) {
    if (k > 256) std::this_thread::yield();
  }
}

simd::WidenResult WidenMaxPass(simd::Row x, size_t n, double* l_out,
                               simd::AllowedIds allowed, RowJob* job, MaxPassBuffers buffers,
                               const simd::PenaltyCodes* penalties) {
  const bool widen = l_out != nullptr;
  const float* const row = widen ? nullptr : x.As<LogitType::f32>();
  if (job == nullptr || !job->announced_ ||
      (widen ? buffers.stage == nullptr : buffers.x_copy == nullptr)) {
    return widen ? simd::WidenMax(x, n, l_out, allowed, penalties) : simd::CheckedMax(row, n);
  }

  RowJob& j = *job;
  const RowPieces pieces = RowPieces::Of(n);
  j.max_pieces_ = pieces;
  j.widen_ = {x, l_out, buffers.stage, allowed, {}};
  if (penalties != nullptr) j.widen_.penalties = *penalties;
  if (!widen) j.SetRow(pieces, row, buffers.x_copy);
  for (size_t k = 0; k < pieces.count; ++k) {
    j.max_state_[k].store(RowJob::kFree, std::memory_order_relaxed);
  }
  j.max_next_.store(0, std::memory_order_relaxed);
  j.max_split_ = true;
  j.phase_.store(RowJob::kMax, std::memory_order_seq_cst);
  threads::RunPassHook();

  // Each piece's maximum is +0.0 for a zero one, so the largest of them is
  // the row's in any order.
  simd::WidenResult r{-INFINITY, false};
  const auto add = [&r](simd::WidenResult piece) {
    r.bad |= piece.bad;
    r.max = std::max(r.max, piece.max);
  };
  const auto compute = [&](size_t k) {
    add(widen ? j.WidenedPiece(k, l_out)
              : simd::CheckedMax(row + pieces.Begin(k), pieces.Length(k)));
  };
  // From the top while helpers take pieces from the bottom, then every
  // piece below: a helper's finished one gives its result, any other is
  // computed here (taken over from a helper that has not finished).
  size_t top = pieces.count;
  for (uint8_t s = RowJob::kFree; top > 0; s = RowJob::kFree) {
    if (!j.max_state_[top - 1].compare_exchange_strong(s, RowJob::kCaller,
                                                        std::memory_order_seq_cst)) {
      break;
    }
    compute(--top);
  }
  for (size_t k = 0; k < top; ++k) {
    std::atomic<uint8_t>& state = j.max_state_[k];
    uint8_t s = state.load(std::memory_order_acquire);
    while ((s == RowJob::kFree || s == RowJob::kHelper) &&
           !state.compare_exchange_weak(s, s == RowJob::kFree ? RowJob::kCaller : RowJob::kTaken,
                                        std::memory_order_seq_cst, std::memory_order_acquire)) {
    }
    if (s == RowJob::kMoving) {  // a widened piece on its way into l_out
      threads::SpinWhile(
          [&] { return state.load(std::memory_order_acquire) == RowJob::kMoving; },
          threads::SpinClock::duration::max());
      s = RowJob::kDone;
    }
    if (s == RowJob::kDone) {
      add(j.max_of_[k]);
    } else {
      compute(k);
    }
  }
  return r;
}

simd::WidenResult RowJob::WidenedPiece(size_t k, double* l) const {
  const size_t begin = max_pieces_.Begin(k);
  const std::optional<simd::PenaltyCodes> codes =
      widen_.penalties ? std::optional(widen_.penalties->From(begin)) : std::nullopt;
  return simd::WidenMax(widen_.x.From(begin), max_pieces_.Length(k), l + begin,
                        widen_.allowed.From(begin), codes ? &*codes : nullptr);
}

void RowJob::MaxFromBottom() {
  for (;;) {
    EnterCopy();
    const size_t k = max_next_.fetch_add(1, std::memory_order_seq_cst);
    uint8_t s = kFree;
    if (k >= max_pieces_.count ||
        !max_state_[k].compare_exchange_strong(s, kHelper, std::memory_order_seq_cst)) {
      LeaveCopy();
      return;
    }
    const size_t begin = max_pieces_.Begin(k);
    const size_t length = max_pieces_.Length(k);
    max_of_[k] = widen_.l != nullptr
                     ? WidenedPiece(k, widen_.stage)
                     : simd::CopyCheckedMax(x_ + begin, length, x_copy_ + begin);
    LeaveCopy();
    threads::RunHelperHook(k);
    if (widen_.l == nullptr) {
      Finish(max_state_[k]);
      continue;
    }
    // The piece is the caller's once taken: l is written only while held.
    s = kHelper;
    if (!max_state_[k].compare_exchange_strong(s, kMoving, std::memory_order_seq_cst)) {
      max_state_[k].store(kLateDone, std::memory_order_release);
      continue;
    }
    std::memcpy(widen_.l + begin, widen_.stage + begin, length * sizeof(double));
    max_state_[k].store(kDone, std::memory_order_release);
  }
}

bool RowJob::CopiedByMaxPass(size_t k) const {
  if (!max_split_) return false;
  // kHelper or kTaken: another helper copies it now (rare: the spin, with
  // its clock, only then).
  uint8_t s = max_state_[k].load(std::memory_order_acquire);
  const auto copying = [&] {
    s = max_state_[k].load(std::memory_order_acquire);
    return s == kHelper || s == kTaken;
  };
  if (s == kHelper || s == kTaken) {
    threads::SpinWhile(copying, threads::SpinClock::duration::max());
  }
  return s == kDone || s == kLateDone;
}

// Counted as copying before the claim: once the caller has seen every piece
// claimed and no copy running, no helper reads its row again. Counted
// whatever the pass reads, so that the count stays whole across passes.
void RowJob::EnterCopy() { copying_.fetch_add(1, std::memory_order_seq_cst); }

void RowJob::LeaveCopy() { copying_.fetch_sub(1, std::memory_order_release); }

bool RowJob::Claim(size_t k, simd::ExpSource& src) {
  uint8_t s = kFree;
  if (!state_[k].compare_exchange_strong(s, kHelper, std::memory_order_seq_cst)) {
    LeaveCopy();
    return false;
  }
  src = src_;
  if (x_ != nullptr) {
    if (!CopiedByMaxPass(k)) {
      std::memcpy(x_copy_ + pieces_.Begin(k), x_ + pieces_.Begin(k),
                  pieces_.Length(k) * sizeof(float));
    }
    src.x = x_copy_;  // its patches, if any, stay
  }
  LeaveCopy();
  threads::RunHelperHook(k);
  return true;
}

bool RowJob::Finish(std::atomic<uint8_t>& state) {
  uint8_t s = kHelper;
  if (state.compare_exchange_strong(s, kDone, std::memory_order_release,
                                    std::memory_order_relaxed)) {
    return true;
  }
  // Taken over meanwhile: nobody but this helper moves it on from there.
  state.store(kLateDone, std::memory_order_release);
  return false;
}

void RowJob::SumFromBottom() {
  double z = 0.0;
  for (size_t k = 0; k < pieces_.count; ++k) {
    EnterCopy();
    simd::ExpSource src;
    if (!Claim(k, src)) return;
    const size_t begin = pieces_.Begin(k);
    z = simd::ExpSum(src.At(begin), pieces_.Length(k), divisor_, shift_,
                     keep_e_ ? e_ + begin : nullptr, v_, z);
    prefix_[k + 1] = z;
    summed_.store(k + 1, std::memory_order_release);
    if (!Finish(state_[k])) return;
  }
}

void RowJob::StoreFromTop() {
  for (;;) {
    EnterCopy();
    const ptrdiff_t p = cursor_.fetch_sub(1, std::memory_order_seq_cst);
    if (p < 0) {
      LeaveCopy();
      return;
    }
    const auto k = static_cast<size_t>(p);
    simd::ExpSource src;
    // The caller or the summing helper has reached this piece: every piece
    // below is theirs.
    if (!Claim(k, src)) return;
    const size_t begin = pieces_.Begin(k);
    simd::ExpStore(src.At(begin), pieces_.Length(k), divisor_, shift_, e_ + begin, v_);
    Finish(state_[k]);
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
    threads.Meanwhile();
    for (size_t p = 0; p < pieces.count; ++p) {
      if (threads.supersede.Now()) throw threads::Superseded{};
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
  job.keep_e_ = threads.keep_e;
  job.v_ = v;
  // After a copying max pass split through the job (the same row), its
  // helpers may still read what it set.
  if (!job.max_split_ || job.widen_.l != nullptr) {
    job.SetRow(pieces, src.l == nullptr ? src.x : nullptr, threads.x_copy);
  }
  for (size_t p = 0; p < pieces.count; ++p) {
    job.state_[p].store(RowJob::kFree, std::memory_order_relaxed);
    job.patched_[p] = false;
  }
  job.cursor_.store(static_cast<ptrdiff_t>(pieces.count) - 1, std::memory_order_relaxed);
  job.alt_ = threads.alt;
  job.summed_.store(0, std::memory_order_relaxed);
  job.patches_ = 0;
  job.contiguous_ = false;
  if (job.announced_) {
    job.announced_ = false;
    job.phase_.store(RowJob::kPublished, std::memory_order_seq_cst);
  } else {
    job.present_.store(0, std::memory_order_relaxed);
    job.copying_.store(0, std::memory_order_relaxed);
    job.phase_.store(RowJob::kPublished, std::memory_order_relaxed);
    if (void* token = job.ticket_.Open(&job)) {
      threads::SubmitHelpers(threads.executor, static_cast<size_t>(team - 1), token);
    }
  }
  threads::RunPassHook();
  // The helpers hold the job until the ticket closes: what the caller's own
  // work throws (an allocation) waits for the end of the pass.
  std::exception_ptr meanwhile_threw;
  try {
    threads.Meanwhile();
  } catch (...) {
    meanwhile_threw = std::current_exception();
  }

  // With a helper there to start from the bottom, the caller computes
  // pieces from the top; as soon as none has (it may have been preempted
  // before it could), the caller starts from the bottom itself.
  const auto bottom_taken = [&] {
    return job.state_[0].load(std::memory_order_seq_cst) != RowJob::kFree;
  };
  if (job.present_.load(std::memory_order_seq_cst) > 0 || bottom_taken()) {
    for (;;) {
      const ptrdiff_t p = job.cursor_.fetch_sub(1, std::memory_order_seq_cst);
      if (p <= 0) break;  // piece 0 is summed below
      uint8_t s = RowJob::kFree;
      if (!job.state_[p].compare_exchange_strong(s, RowJob::kCaller,
                                                 std::memory_order_seq_cst)) {
        break;
      }
      const size_t begin = pieces.Begin(static_cast<size_t>(p));
      simd::ExpStore(src.At(begin), pieces.Length(static_cast<size_t>(p)), divisor, shift,
                     e_out + begin, v);
      if (!bottom_taken()) break;
    }
  }

  // Every piece in ascending order: one a helper summed from the bottom
  // gives its running sum, a free one is claimed and computed here, a
  // helper's unfinished one is computed here too, into the alternate area
  // a block at a time, until either copy is whole (the first one finished
  // serves: the same values), and the sum goes on over finished ones.
  double* const in_order = threads.keep_e ? e_out : nullptr;
  double* const alt = threads.keep_e ? threads.alt : nullptr;
  for (size_t p = 0; p < pieces.count; ++p) {
    prefix[p] = z;
    if (p < job.summed_.load(std::memory_order_acquire)) {
      z = job.prefix_[p + 1];
      continue;
    }
    const size_t begin = pieces.Begin(p);
    const size_t length = pieces.Length(p);
    std::atomic<uint8_t>& state = job.state_[p];
    uint8_t s = RowJob::kFree;
    if (state.compare_exchange_strong(s, RowJob::kCaller, std::memory_order_seq_cst)) {
      z = simd::ExpSum(src.At(begin), length, divisor, shift,
                       in_order != nullptr ? in_order + begin : nullptr, v, z);
      continue;
    }
    if (s == RowJob::kHelper) {
      threads::RunRaceHook(p, threads::Race::started);
      double mine = z;
      size_t done = 0;
      for (; done < length; done += kRaceBlock) {
        if (p < job.summed_.load(std::memory_order_acquire) ||
            state.load(std::memory_order_acquire) != RowJob::kHelper) {
          break;
        }
        mine = simd::ExpSum(src.At(begin + done), std::min(kRaceBlock, length - done), divisor,
                            shift, alt != nullptr ? alt + begin + done : nullptr, v, mine);
      }
      if (done >= length) {
        s = RowJob::kHelper;
        if (state.compare_exchange_strong(s, RowJob::kTaken, std::memory_order_seq_cst) &&
            alt != nullptr) {
          job.patched_[p] = true;
          ++job.patches_;
        }
        z = mine;
        continue;
      }
      threads::RunRaceHook(p, threads::Race::helper_served);
    }
    // Finished by the summing helper since the look above (it counts a
    // piece summed before it marks it done): its running sum, as its e
    // values may not be stored.
    if (p < job.summed_.load(std::memory_order_acquire)) {
      z = job.prefix_[p + 1];
      continue;
    }
    z = simd::AccumulateExact(z, e_out + begin, length);  // kDone or kCaller
  }
  job.ticket_.Close();
  job.WaitCopies();
  if (meanwhile_threw) std::rethrow_exception(meanwhile_threw);
  return result(job.patches_ > 0 ? &job : nullptr);
}

}  // namespace exactsample
