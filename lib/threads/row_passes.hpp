// The fast engine's two passes over all V ids, both of which can split a
// row across threads (SampleOptions::threads) without changing a bit.
//
// The max pass of an f32 row runs with the helpers called ahead for the
// exp pass: they take pieces from the bottom, copying each while finding
// its maximum (the copy the exp pass then reads), while the caller takes
// the top and then computes every piece no helper has finished.
//
// In the exp-sum pass one thread sums: it computes the pieces from the
// bottom of the row in ascending order with the running sum. The others
// compute only the e values of pieces they claim from the top down. The
// caller takes the top when a helper is there to take the bottom (the
// caller then reads back nothing a helper wrote but one running sum: e
// values that another core wrote and this one reads make both slower), and
// the bottom otherwise. After its own pieces the caller sums the rest in
// order from the summing helper's last running sum, computing itself every
// piece a helper has not finished (into an alternate area when a helper
// holds it: the same values, a block at a time, until the helper's or its
// own copy is whole), so it never waits on a helper. The pieces it so
// recomputed are read through the pass's ExpView (RecomputedPieces).
// Helpers read and write only a RowJob's buffers, which the workspace owns
// and does not reuse while a helper is inside.
#pragma once

#include <array>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <utility>

#include "exactsample/executor.hpp"
#include "lib/engine/row_sums.hpp"
#include "lib/threads/claims.hpp"
#include "lib/threads/executor.hpp"
#include "simd/exp_choice.hpp"
#include "simd/exp_sum.hpp"
#include "simd/max.hpp"

namespace exactsample {

// The most threads one row is split across (SampleOptions::threads beyond it
// use this many).
inline constexpr int kMaxRowThreads = 64;

class RowJob;

namespace threads {

// The helpers an announced pass called, waiting in its job for it: the max
// pass before it shares them (WidenMaxPass). Empty: the caller alone.
class WaitingHelpers {
 public:
  WaitingHelpers() = default;
  explicit WaitingHelpers(RowJob* job) : job_(job) {}
  explicit operator bool() const { return job_ != nullptr; }

 private:
  friend class exactsample::RowJob;
  RowJob* job_ = nullptr;
};

}  // namespace threads

// Step 1 with its check, split piece by piece with the `helpers` an
// announced job called (RowJob::Announce) when there are any, else on the
// calling thread alone; the caller computes every piece no helper has
// finished, so it never waits for one, and a helper still inside the
// caller's row (or its mask or codes) is waited for by the exp pass or by
// Cancel.
// - l_out not null: simd::WidenMax (with the mask `allowed` and the penalty
//   codes `penalties`, if any; x f32, f16 or bf16) into l_out. A helper
//   widens its piece into `stage` (n doubles) and moves it into l_out only
//   if the caller has not taken the piece over meanwhile (the caller waits
//   for such a move alone, a copy of one piece). Both are the job owner's.
// - l_out null: simd::CheckedMax (an f32 row is read, nothing stored, no
//   mask); helpers take the maximum of the pieces they claim while copying
//   them into x_copy (n floats, the job owner's), and the exp pass that
//   follows reads those copies instead of copying again.
struct MaxPassBuffers {
  float* x_copy = nullptr;
  double* stage = nullptr;
};
simd::WidenResult WidenMaxPass(simd::Row x, size_t n, double* l_out,
                               simd::AllowedIds allowed = {},
                               threads::WaitingHelpers helpers = {},
                               MaxPassBuffers buffers = {},
                               const simd::PenaltyCodes* penalties = nullptr);

// The number of threads a row of n ids is split across for `threads` asked:
// at least 16384 ids each, at most 64.
int RowTeam(size_t n, int threads);

// How a pass is split. threads > 1 needs a job (not Busy) and an alternate
// area of n doubles; f64 sources and e_out must be memory the job's owner
// keeps until the job is no longer Busy (never the caller's inputs). An
// f32 source is the caller's row: a helper copies each piece it claims into
// x_copy (n floats, the job owner's) and computes from the copy, and the
// pass returns only once no helper is inside such a copy.
struct RowThreads {
  int threads = 1;
  Executor* executor = nullptr;  // null: the library pool
  RowJob* job = nullptr;
  double* recomputed_e = nullptr;
  float* x_copy = nullptr;
  threads::Supersede supersede{};  // a pass on one thread stops once it holds
  // Whether helpers take part (the pass's buffers are then the job owner's).
  bool Helped() const { return job != nullptr; }
  // Whether the caller reads e_out after the pass. When not (the logprob's
  // Z alone), e_out is only where the pieces computed out of order wait to
  // be summed: the pieces summed in order, by the caller or the helper from
  // the bottom, store nothing, as on one thread.
  bool keep_e = true;
  // Called once on the caller's thread during the pass, after the helpers
  // are given their pieces and before the caller computes its own (work
  // that then overlaps theirs; on one thread, before the pass).
  void (*meanwhile)(void*) = nullptr;
  void* meanwhile_arg = nullptr;
  void Meanwhile() const {
    if (meanwhile != nullptr) meanwhile(meanwhile_arg);
  }
};

// Z = simd::ExpSum(src, n, divisor, shift, e_out, v) with e stored into e_out
// (null: not stored, one thread only), computed piece by piece (RowPieces).
// `storage` (RowPieces::kMaxCount + 1 entries) receives the running sums.
// The view's `scattered` is set when some piece's e values are in the
// alternate area instead of e_out; its `stopped`, when the pass stopped as
// threads.supersede asked.
ExpView ExpSumPass(simd::ExpSource src, size_t n, double divisor, double shift, double* e_out,
                   simd::ExpVariant v, const RowThreads& threads, std::span<double> storage);

namespace threads {

// A piece of a row pass, as helpers and the caller claim it. The helper
// that holds a piece (kHelper) is the only one to move it on from kTaken
// or kMoving; kDone, kCaller and kLateDone are final for the pass.
struct PieceStates {
  enum State : uint8_t {
    kFree,      // nobody has it
    kHelper,    // a helper computes it into e_out (the max pass: its result)
    kDone,      // the helper's values are in e_out (or its result stored)
    kCaller,    // the caller computed it
    kTaken,     // the caller took it from a helper (into the alternate area)
    kLateDone,  // taken, and the helper has since finished its copy too
    kMoving,    // a widening helper moves its piece from the stage into l
  };
  static constexpr bool Allowed(State from, State to) {
    switch (from) {
      case kFree: return to == kHelper || to == kCaller;
      case kHelper: return to == kDone || to == kTaken || to == kMoving;
      case kTaken: return to == kLateDone;
      case kMoving: return to == kDone;
      default: return false;
    }
  }
};
using PieceClaim = Claim<PieceStates>;
using OwnLinePieceClaim = OwnLineClaim<PieceStates>;

// The caller's record of the pieces of one exp pass it recomputed into the
// alternate area because their helper had not finished them: where each
// piece's e values are, for the steps that read them (ScatteredPieces).
class RecomputedPieces final : public ScatteredPieces {
 public:
  void Reset(RowPieces pieces, double* e, double* recomputed_e, const OwnLinePieceClaim* claims);
  void Add(size_t k);
  bool Any() const { return count_ > 0; }

  const double* Piece(size_t k) const override;
  // e itself once every recomputed piece's helper has finished its own
  // copy there too (the same values), else the alternate area.
  double* Gather() override;

 private:
  RowPieces pieces_{0, RowPieces::kMinLength, 0};
  double* e_ = nullptr;
  double* recomputed_e_ = nullptr;
  const OwnLinePieceClaim* claims_ = nullptr;
  std::array<bool, RowPieces::kMaxCount> in_recomputed_{};
  size_t count_ = 0;
  bool gathered_ = false;  // every piece copied into recomputed_e_
};

}  // namespace threads

// One threaded exp-sum pass: what helpers read (set before they can enter,
// or before they may leave the wait of an announced job), the pieces'
// claims, the summing helper's running sums, and the caller's record of the
// pieces it recomputed.
class RowJob final : public threads::Job {
 public:
  void Help() override;

  // Calls helpers ahead of the job's next ExpSumPass (a call's first pass:
  // waking them takes longer than the call's work before it); they wait in
  // the job for the pass or for Cancel. Nothing when no slot is free.
  void Announce(Executor* executor, int team);
  // An announced job whose pass did not come: the helpers waiting leave
  // (once none is inside a copy of the caller's row).
  void Cancel();
  // Whether Announce called helpers for a pass still to come.
  bool Announced() const { return announced_; }

  // Whether a helper of an earlier pass may still be inside: its source and
  // e buffers must not be reused then.
  bool Busy() const { return ticket_.Busy(); }
  void WaitIdle() const { ticket_.WaitIdle(); }

  // The last pass's recomputed pieces (its view's `scattered` when any).
  threads::RecomputedPieces* Recomputed() { return &recomputed_; }

  // Whether helpers computed at least one piece in eight of the last split
  // exp pass, told once: nullopt when no split pass has ended since.
  std::optional<bool> TakeServed() { return std::exchange(served_, std::nullopt); }

 private:
  friend ExpView ExpSumPass(simd::ExpSource, size_t, double, double, double*, simd::ExpVariant,
                            const RowThreads&, std::span<double>);
  friend simd::WidenResult WidenMaxPass(simd::Row, size_t, double*, simd::AllowedIds,
                                        threads::WaitingHelpers, MaxPassBuffers,
                                        const simd::PenaltyCodes*);
  // The job `helpers` wait in (WidenMaxPass's way to it).
  static RowJob* Of(threads::WaitingHelpers helpers) { return helpers.job_; }
  // kMax: the max pass is open (helpers that finish their part of it wait
  // on for the exp pass); kPublished: the exp pass is.
  enum Phase : uint8_t { kWaiting, kMax, kPublished, kCancelled };

  // The exp pass on the caller's side, in order: what helpers read and the
  // open pass; the caller's pieces from the top; every piece summed in
  // ascending order; the close.
  void Publish(simd::ExpSource src, size_t n, double divisor, double shift, double* e_out,
               simd::ExpVariant v, const RowThreads& threads);
  void CallerFromTop();
  // Sets served_ from the pieces' claims, once no helper is inside one.
  void NoteServed();
  double SumInOrder(double* prefix, bool keep_e);
  // Piece p, held by a helper, computed here too (into the alternate area
  // when e is kept) from the running sum z: the new running sum, or
  // nullopt when the helper's copy was finished first.
  std::optional<double> Race(size_t p, double z, double* recomputed_e);

  // Sets what the exp pass reads (a copying max pass's too).
  void SetRow(RowPieces pieces, const float* x, float* x_copy);
  // A helper's part of the max pass: pieces from the bottom while they are
  // free, each copied into x_copy while its maximum is taken.
  void MaxFromBottom();
  // A helper's part of the exp pass: the pieces from the bottom with the
  // running sum while they are free, then pieces from the top.
  void SumFromBottom();
  void StoreFromTop();
  // Piece k of the max pass widened into l + its first id.
  simd::WidenResult WidenedPiece(size_t k, double* l) const;
  // Claims piece k (its reader already entered), copies its part of the
  // caller's row (unless the max pass did) and runs the hook; false, the
  // reader left, when k is taken.
  bool ClaimPiece(size_t k, simd::ExpSource& src);
  // The helper that claimed a piece (of either pass) is done with it; false
  // when the caller took it over meanwhile.
  static bool Finish(threads::PieceClaim& claim);
  // Whether piece k's part of the row is in x_copy_, waiting for a helper
  // of the max pass still copying it.
  bool CopiedByMaxPass(size_t k) const;

  // Read by helpers.
  simd::ExpSource src_{};
  double divisor_ = 1.0;
  double shift_ = 0.0;
  double* e_ = nullptr;
  bool keep_e_ = true;
  simd::ExpVariant v_{};
  RowPieces pieces_{0, RowPieces::kMinLength, 0};
  template <typename T>
  using OwnCacheLine = threads::OwnCacheLine<T>;
  std::array<threads::OwnLinePieceClaim, RowPieces::kMaxCount> claims_{};
  OwnCacheLine<ptrdiff_t> cursor_{-1};  // the next piece helpers try, going down
  const float* x_ = nullptr;     // the caller's f32 row, or null
  float* x_copy_ = nullptr;
  // Helpers inside a claim, a copy of x_ or a widening: counted whatever
  // the pass reads, so that the count stays whole across passes.
  threads::Readers readers_;
  OwnCacheLine<uint8_t> phase_{kPublished};
  OwnCacheLine<int> present_{0};  // helpers that entered
  // Pieces [0, summed_) were summed by a helper from the bottom, prefix_[k]
  // being the running sum before piece k.
  OwnCacheLine<size_t> summed_{0};
  std::array<double, RowPieces::kMaxCount + 1> prefix_{};
  // The max pass: its pieces; what a widening one reads and writes (l
  // null: the pass copies x_ into x_copy_); the next piece helpers try,
  // going up; each piece's claim (a helper's piece is copied into x_copy_
  // once kDone or kLateDone) and a helper's result for it. max_split_: this
  // call's max pass ran through the job (and, copying, the exp pass reuses
  // its copies). Set before helpers enter either pass, and not again while
  // one may be inside the max pass.
  struct Widening {
    simd::Row x;
    double* l = nullptr;
    double* stage = nullptr;
    simd::AllowedIds allowed;
    std::optional<simd::PenaltyCodes> penalties;
  };
  RowPieces max_pieces_{0, RowPieces::kMinLength, 0};
  Widening widen_{};
  OwnCacheLine<size_t> max_next_{0};
  std::array<threads::OwnLinePieceClaim, RowPieces::kMaxCount> max_claims_{};
  std::array<simd::WidenResult, RowPieces::kMaxCount> max_of_{};
  bool max_split_ = false;
  threads::Ticket ticket_;
  bool announced_ = false;  // Announce opened the ticket; no pass since

  // The caller's alone.
  double* recomputed_e_ = nullptr;
  threads::RecomputedPieces recomputed_;
  std::optional<bool> served_;
};

}  // namespace exactsample
