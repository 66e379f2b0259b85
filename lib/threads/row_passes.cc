#include "lib/threads/row_passes.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <exception>

#include "simd/exact_sum.hpp"

namespace exactsample {
namespace {

// Below this a row is not worth a team of threads.
constexpr size_t kMinPerThread = 16384;

// The caller computing a helper's unfinished piece looks between blocks of
// this many ids whether the helper has finished it meanwhile.
constexpr size_t kRaceBlock = 512;

using threads::PieceStates;

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
  readers_.Reset();
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
  if (max_split_) readers_.Wait();
}

void RowJob::SetRow(RowPieces pieces, const float* x, float* x_copy) {
  pieces_ = pieces;
  x_ = x;
  x_copy_ = x_copy;
}

simd::WidenResult WidenMaxPass(simd::Row x, size_t n, double* l_out,
                               simd::AllowedIds allowed, threads::WaitingHelpers helpers,
                               MaxPassBuffers buffers, const simd::PenaltyCodes* penalties) {
  RowJob* const job = RowJob::Of(helpers);
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
  for (size_t k = 0; k < pieces.count; ++k) j.max_claims_[k].Reset();
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
  while (top > 0 && j.max_claims_[top - 1].Move(PieceStates::kFree, PieceStates::kCaller))
    compute(--top);
  for (size_t k = 0; k < top; ++k) {
    threads::PieceClaim& claim = j.max_claims_[k];
    PieceStates::State s = claim.MoveFromAny([](PieceStates::State from) {
      if (from == PieceStates::kFree) return PieceStates::kCaller;
      if (from == PieceStates::kHelper) return PieceStates::kTaken;
      return from;
    });
    if (s == PieceStates::kMoving) {  // a widened piece on its way into l_out
      threads::SpinWhile([&] { return claim.Load() == PieceStates::kMoving; },
                         threads::SpinClock::duration::max());
      s = PieceStates::kDone;
    }
    if (s == PieceStates::kDone) {
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
    readers_.Enter();
    const size_t k = max_next_.fetch_add(1, std::memory_order_seq_cst);
    if (k >= max_pieces_.count || !max_claims_[k].Move(PieceStates::kFree, PieceStates::kHelper)) {
      readers_.Leave();
      return;
    }
    const size_t begin = max_pieces_.Begin(k);
    const size_t length = max_pieces_.Length(k);
    max_of_[k] = widen_.l != nullptr
                     ? WidenedPiece(k, widen_.stage)
                     : simd::CopyCheckedMax(x_ + begin, length, x_copy_ + begin);
    readers_.Leave();
    threads::RunHelperHook(k);
    if (widen_.l == nullptr) {
      Finish(max_claims_[k]);
      continue;
    }
    // The piece is the caller's once taken: l is written only while held.
    if (!max_claims_[k].Move(PieceStates::kHelper, PieceStates::kMoving)) {
      max_claims_[k].Set(PieceStates::kTaken, PieceStates::kLateDone);
      continue;
    }
    std::memcpy(widen_.l + begin, widen_.stage + begin, length * sizeof(double));
    max_claims_[k].Set(PieceStates::kMoving, PieceStates::kDone);
  }
}

bool RowJob::CopiedByMaxPass(size_t k) const {
  if (!max_split_) return false;
  // kHelper or kTaken: another helper copies it now (rare: the spin, with
  // its clock, only then).
  PieceStates::State s = max_claims_[k].Load();
  const auto copying = [&] {
    s = max_claims_[k].Load();
    return s == PieceStates::kHelper || s == PieceStates::kTaken;
  };
  if (s == PieceStates::kHelper || s == PieceStates::kTaken) {
    threads::SpinWhile(copying, threads::SpinClock::duration::max());
  }
  return s == PieceStates::kDone || s == PieceStates::kLateDone;
}

// The reader entered before the claim: once the caller has seen every piece
// claimed and no reader inside, no helper reads its row again.
bool RowJob::ClaimPiece(size_t k, simd::ExpSource& src) {
  if (!claims_[k].Move(PieceStates::kFree, PieceStates::kHelper)) {
    readers_.Leave();
    return false;
  }
  src = src_;
  if (x_ != nullptr) {
    if (!CopiedByMaxPass(k)) {
      std::memcpy(x_copy_ + pieces_.Begin(k), x_ + pieces_.Begin(k),
                  pieces_.Length(k) * sizeof(float));
    }
    src.x = x_copy_;  // its penalised ids, if any, stay
  }
  readers_.Leave();
  threads::RunHelperHook(k);
  return true;
}

bool RowJob::Finish(threads::PieceClaim& claim) {
  if (claim.Move(PieceStates::kHelper, PieceStates::kDone)) return true;
  // Taken over meanwhile: nobody but this helper moves it on from there.
  claim.Set(PieceStates::kTaken, PieceStates::kLateDone);
  return false;
}

void RowJob::SumFromBottom() {
  double z = 0.0;
  for (size_t k = 0; k < pieces_.count; ++k) {
    readers_.Enter();
    simd::ExpSource src;
    if (!ClaimPiece(k, src)) return;
    const size_t begin = pieces_.Begin(k);
    z = simd::ExpSum(src.At(begin), pieces_.Length(k), divisor_, shift_,
                     keep_e_ ? e_ + begin : nullptr, v_, z);
    prefix_[k + 1] = z;
    summed_.store(k + 1, std::memory_order_release);
    if (!Finish(claims_[k])) return;
  }
}

void RowJob::StoreFromTop() {
  for (;;) {
    readers_.Enter();
    const ptrdiff_t p = cursor_.fetch_sub(1, std::memory_order_seq_cst);
    if (p < 0) {
      readers_.Leave();
      return;
    }
    const auto k = static_cast<size_t>(p);
    simd::ExpSource src;
    // The caller or the summing helper has reached this piece: every piece
    // below is theirs.
    if (!ClaimPiece(k, src)) return;
    const size_t begin = pieces_.Begin(k);
    simd::ExpStore(src.At(begin), pieces_.Length(k), divisor_, shift_, e_ + begin, v_);
    Finish(claims_[k]);
  }
}

namespace threads {

void RecomputedPieces::Reset(RowPieces pieces, double* e, double* recomputed_e,
                             const OwnLinePieceClaim* claims) {
  pieces_ = pieces;
  e_ = e;
  recomputed_e_ = recomputed_e;
  claims_ = claims;
  std::fill_n(in_recomputed_.begin(), pieces.count, false);
  count_ = 0;
  gathered_ = false;
}

void RecomputedPieces::Add(size_t k) {
  in_recomputed_[k] = true;
  ++count_;
}

const double* RecomputedPieces::Piece(size_t k) const {
  return (gathered_ || in_recomputed_[k] ? recomputed_e_ : e_) + pieces_.Begin(k);
}

double* RecomputedPieces::Gather() {
  if (gathered_) return recomputed_e_;
  if (count_ == 0) return e_;
  for (size_t k = 0; k < pieces_.count; ++k) {
    if (in_recomputed_[k] && claims_[k].Load() == PieceStates::kLateDone) {
      in_recomputed_[k] = false;  // the helper's copy in e_ is complete (the same values)
      --count_;
    }
  }
  if (count_ == 0) return e_;
  for (size_t k = 0; k < pieces_.count; ++k) {
    if (!in_recomputed_[k]) {
      std::memcpy(recomputed_e_ + pieces_.Begin(k), e_ + pieces_.Begin(k),
                  pieces_.Length(k) * sizeof(double));
    }
  }
  gathered_ = true;
  return recomputed_e_;
}

}  // namespace threads

// What helpers read, every piece free, and the pass open to them: through
// the helpers an announced job called (waiting in Help), else new ones.
void RowJob::Publish(simd::ExpSource src, size_t n, double divisor, double shift,
                     double* e_out, simd::ExpVariant v, const RowThreads& threads) {
  const RowPieces pieces = RowPieces::Of(n);
  src_ = src;
  divisor_ = divisor;
  shift_ = shift;
  e_ = e_out;
  keep_e_ = threads.keep_e;
  v_ = v;
  // After a copying max pass split through the job (the same row), its
  // helpers may still read what it set.
  if (!max_split_ || widen_.l != nullptr) {
    SetRow(pieces, src.l == nullptr ? src.x : nullptr, threads.x_copy);
  }
  for (size_t p = 0; p < pieces.count; ++p) claims_[p].Reset();
  cursor_.store(static_cast<ptrdiff_t>(pieces.count) - 1, std::memory_order_relaxed);
  recomputed_e_ = threads.recomputed_e;
  summed_.store(0, std::memory_order_relaxed);
  recomputed_.Reset(pieces, e_out, threads.recomputed_e, claims_.data());
  if (announced_) {
    announced_ = false;
    phase_.store(kPublished, std::memory_order_seq_cst);
  } else {
    present_.store(0, std::memory_order_relaxed);
    readers_.Reset();
    phase_.store(kPublished, std::memory_order_relaxed);
    if (void* token = ticket_.Open(this)) {
      const int team = RowTeam(n, threads.threads);
      threads::SubmitHelpers(threads.executor, static_cast<size_t>(team - 1), token);
    }
  }
  threads::RunPassHook();
}

// With a helper there to start from the bottom, the caller computes pieces
// from the top: it then reads back nothing a helper wrote but one running
// sum. As soon as none has (it may have been preempted before it could),
// the caller stops and sums from the bottom itself.
void RowJob::CallerFromTop() {
  const auto bottom_taken = [&] { return claims_[0].Load() != PieceStates::kFree; };
  if (present_.load(std::memory_order_seq_cst) == 0 && !bottom_taken()) return;
  for (;;) {
    const ptrdiff_t p = cursor_.fetch_sub(1, std::memory_order_seq_cst);
    if (p <= 0) return;  // piece 0 is summed in order
    const auto k = static_cast<size_t>(p);
    if (!claims_[k].Move(PieceStates::kFree, PieceStates::kCaller)) return;
    const size_t begin = pieces_.Begin(k);
    simd::ExpStore(src_.At(begin), pieces_.Length(k), divisor_, shift_, e_ + begin, v_);
    if (!bottom_taken()) return;
  }
}

// Every piece in ascending order, so that Z and the running sums are one
// thread's: one a helper summed from the bottom gives its running sum, a
// free one is claimed and computed here, a helper's unfinished one is
// computed here too (Race), and the sum goes on over finished ones.
double RowJob::SumInOrder(double* prefix, bool keep_e) {
  double* const in_order = keep_e ? e_ : nullptr;
  double* const recomputed_e = keep_e ? recomputed_e_ : nullptr;
  const auto summed_by_helper = [&](size_t p) {
    return p < summed_.load(std::memory_order_acquire);
  };
  double z = 0.0;
  for (size_t p = 0; p < pieces_.count; ++p) {
    prefix[p] = z;
    if (summed_by_helper(p)) {
      z = prefix_[p + 1];
      continue;
    }
    const size_t begin = pieces_.Begin(p);
    const size_t length = pieces_.Length(p);
    PieceStates::State s = PieceStates::kFree;
    if (claims_[p].Move(PieceStates::kFree, PieceStates::kCaller, &s)) {
      z = simd::ExpSum(src_.At(begin), length, divisor_, shift_,
                       in_order != nullptr ? in_order + begin : nullptr, v_, z);
      continue;
    }
    if (s == PieceStates::kHelper) {
      if (const std::optional<double> mine = Race(p, z, recomputed_e)) {
        z = *mine;
        continue;
      }
    }
    // Finished by the summing helper since the look above (it counts a
    // piece summed before it marks it done): its running sum, as its e
    // values may not be stored.
    if (summed_by_helper(p)) {
      z = prefix_[p + 1];
      continue;
    }
    z = simd::AccumulateExact(z, e_ + begin, length);  // kDone or kCaller
  }
  return z;
}

void RowJob::NoteServed() {
  size_t helped = 0;
  for (size_t p = 0; p < pieces_.count; ++p) {
    if (claims_[p].Load() == PieceStates::kDone) ++helped;
  }
  served_ = 8 * helped >= pieces_.count;
}

// A block at a time, looking between blocks whether the helper finished
// first: the first whole copy serves (the same values), so the caller never
// waits on a helper the OS has not scheduled.
std::optional<double> RowJob::Race(size_t p, double z, double* recomputed_e) {
  threads::RunRaceHook(p, threads::Race::started);
  const size_t begin = pieces_.Begin(p);
  const size_t length = pieces_.Length(p);
  double mine = z;
  size_t done = 0;
  for (; done < length; done += kRaceBlock) {
    if (p < summed_.load(std::memory_order_acquire) || claims_[p].Load() != PieceStates::kHelper)
      break;
    double* const copy = recomputed_e != nullptr ? recomputed_e + begin + done : nullptr;
    mine = simd::ExpSum(src_.At(begin + done), std::min(kRaceBlock, length - done), divisor_,
                        shift_, copy, v_, mine);
  }
  if (done < length) {
    threads::RunRaceHook(p, threads::Race::helper_served);
    return std::nullopt;
  }
  // Finished here first: the caller's copy serves unless the helper's
  // arrived meanwhile too (the same values).
  if (claims_[p].Move(PieceStates::kHelper, PieceStates::kTaken) && recomputed_e != nullptr)
    recomputed_.Add(p);
  return mine;
}

namespace {

// The pass on the calling thread alone: the pieces in order with the
// running sum into prefix; between pieces it looks whether the call asked
// to stop (a batch row another thread finished), and nullopt when it did.
std::optional<double> SumAlone(simd::ExpSource src, RowPieces pieces, double divisor,
                               double shift, double* e_out, simd::ExpVariant v,
                               const threads::Supersede& supersede, double* prefix) {
  double z = 0.0;
  for (size_t p = 0; p < pieces.count; ++p) {
    if (supersede.Now()) {
      supersede.Stop();
      return std::nullopt;
    }
    prefix[p] = z;
    z = simd::ExpSum(src.At(pieces.Begin(p)), pieces.Length(p), divisor, shift,
                     e_out != nullptr ? e_out + pieces.Begin(p) : nullptr, v, z);
  }
  return z;
}

}  // namespace

ExpView ExpSumPass(simd::ExpSource src, size_t n, double divisor, double shift, double* e_out,
                   simd::ExpVariant v, const RowThreads& threads, std::span<double> storage) {
  const RowPieces pieces = RowPieces::Of(n);
  double* const prefix = storage.data();
  const auto view = [&](double z, ScatteredPieces* scattered) {
    prefix[pieces.count] = z;
    return ExpView{z, RowSums{pieces, storage.first(pieces.count + 1)}, scattered};
  };
  if (RowTeam(n, threads.threads) == 1 || threads.job == nullptr || e_out == nullptr ||
      (src.l == nullptr && threads.x_copy == nullptr)) {
    threads.Meanwhile();
    const std::optional<double> z =
        SumAlone(src, pieces, divisor, shift, e_out, v, threads.supersede, prefix);
    if (!z) {
      ExpView stopped = view(NAN, nullptr);
      stopped.stopped = true;
      return stopped;
    }
    return view(*z, nullptr);
  }

  // Split: the helpers are called (or, announced, let into the pass), the
  // caller does its own work meanwhile, then its pieces from the top, then
  // the sum in order; it returns once no helper reads the caller's row.
  RowJob& job = *threads.job;
  job.Publish(src, n, divisor, shift, e_out, v, threads);
  // The helpers hold the job until the ticket closes: what the caller's own
  // work throws (an allocation) waits for the end of the pass.
  std::exception_ptr meanwhile_threw;
  try {
    threads.Meanwhile();
  } catch (...) {
    meanwhile_threw = std::current_exception();
  }
  job.CallerFromTop();
  const double z = job.SumInOrder(prefix, threads.keep_e);
  job.ticket_.Close();
  job.readers_.Wait();
  job.NoteServed();
  if (meanwhile_threw) std::rethrow_exception(meanwhile_threw);
  return view(z, job.recomputed_.Any() ? &job.recomputed_ : nullptr);
}

}  // namespace exactsample
