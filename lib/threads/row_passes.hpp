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
// own copy is whole), so it never waits on a helper. Helpers read and write
// only a RowJob's buffers, which the workspace owns and does not reuse while
// a helper is inside.
#pragma once

#include <array>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>

#include "exactsample/executor.hpp"
#include "lib/threads/executor.hpp"
#include "lib/engine/row_sums.hpp"
#include "simd/exp_choice.hpp"
#include "simd/exp_sum.hpp"
#include "simd/max.hpp"

namespace exactsample {

// The most threads one row is split across (SampleOptions::threads beyond it
// use this many).
inline constexpr int kMaxRowThreads = 64;

class RowJob;

// Step 1 with its check, split piece by piece with the helpers an announced
// `job` called (RowJob::Announce) when it has one, else on the calling
// thread alone; the caller computes every piece no helper has finished, so
// it never waits for one, and a helper still inside the caller's row (or
// its mask or codes) is waited for by the exp pass or by Cancel.
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
                               simd::AllowedIds allowed = {}, RowJob* job = nullptr,
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
  double* alt = nullptr;
  float* x_copy = nullptr;
  threads::Supersede supersede{};  // a pass on one thread stops once it holds
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
// `patch` is the job when some piece's e values are in the alternate area.
struct ExpSumResult {
  double z;
  RowSums sums;
  RowJob* patch = nullptr;
};
ExpSumResult ExpSumPass(simd::ExpSource src, size_t n, double divisor, double shift,
                        double* e_out, simd::ExpVariant v, const RowThreads& threads,
                        std::span<double> storage);

// One threaded exp-sum pass: what helpers read (set before they can enter,
// or before they may leave the wait of an announced job), the pieces'
// states, the summing helper's running sums, and the caller's record of the
// pieces it took over.
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

  // After a pass: whether some piece's e values are in the alternate area.
  bool Patched() const { return patches_ > 0; }
  // The e values of piece k (e_out of the pass, or the alternate area).
  const double* Piece(size_t k) const;
  // The pass's e values as one array: e_out itself when no piece is left
  // patched (a piece whose helper has since finished is e_out's again),
  // else the alternate area, the other pieces copied into it.
  double* Contiguous();

 private:
  friend ExpSumResult ExpSumPass(simd::ExpSource, size_t, double, double, double*,
                                 simd::ExpVariant, const RowThreads&, std::span<double>);
  friend simd::WidenResult WidenMaxPass(simd::Row, size_t, double*, simd::AllowedIds,
                                        RowJob*, MaxPassBuffers, const simd::PenaltyCodes*);
  // kMax: the max pass is open (helpers that finish their part of it wait
  // on for the exp pass); kPublished: the exp pass is.
  enum Phase : uint8_t { kWaiting, kMax, kPublished, kCancelled };
  enum State : uint8_t {
    kFree,      // nobody has it
    kHelper,    // a helper computes it into e_out
    kDone,      // the helper's e values are in e_out
    kCaller,    // the caller computed it into e_out
    kTaken,     // the caller took it from a helper, into the alternate area
    kLateDone,  // taken, and the helper has since finished e_out's copy too
    kMoving,    // a widening helper moves its piece from the stage into l
  };

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
  // Claims piece k (already counted in copying_), copies its part of the
  // caller's row (unless the max pass did) and runs the hook; false, the
  // count left, when k is taken.
  bool Claim(size_t k, simd::ExpSource& src);
  // The helper that claimed a piece (its `state`, of either pass) is done
  // with it; false when the caller took it over meanwhile.
  static bool Finish(std::atomic<uint8_t>& state);
  // Whether piece k's part of the row is in x_copy_, waiting for a helper
  // of the max pass still copying it.
  bool CopiedByMaxPass(size_t k) const;
  void EnterCopy();
  void LeaveCopy();
  void WaitCopies() const;

  // Read by helpers.
  simd::ExpSource src_{};
  double divisor_ = 1.0;
  double shift_ = 0.0;
  double* e_ = nullptr;
  bool keep_e_ = true;
  simd::ExpVariant v_{};
  RowPieces pieces_{0, RowPieces::kMinLength, 0};
  // An atomic alone on its cache line: the caller and the helpers use these
  // from different cores, and atomics sharing a line make each use of one a
  // transfer of the line between the cores.
  template <typename T>
  struct alignas(64) Alone : std::atomic<T> {
    using std::atomic<T>::atomic;
  };
  std::array<Alone<uint8_t>, RowPieces::kMaxCount> state_{};
  Alone<ptrdiff_t> cursor_{-1};  // the next piece helpers try, going down
  const float* x_ = nullptr;           // the caller's f32 row, or null
  float* x_copy_ = nullptr;
  Alone<int> copying_{0};  // helpers inside a claim, a copy of x_ or a widening
  Alone<uint8_t> phase_{kPublished};
  Alone<int> present_{0};  // helpers that entered
  // Pieces [0, summed_) were summed by a helper from the bottom, prefix_[k]
  // being the running sum before piece k.
  Alone<size_t> summed_{0};
  std::array<double, RowPieces::kMaxCount + 1> prefix_{};
  // The max pass: its pieces; what a widening one reads and writes (l
  // null: the pass copies x_ into x_copy_); the next piece helpers try,
  // going up; each piece's state (a helper's piece is copied into x_copy_
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
  Alone<size_t> max_next_{0};
  std::array<Alone<uint8_t>, RowPieces::kMaxCount> max_state_{};
  std::array<simd::WidenResult, RowPieces::kMaxCount> max_of_{};
  bool max_split_ = false;
  threads::Ticket ticket_;
  bool announced_ = false;  // Announce opened the ticket; no pass since

  // The caller's alone.
  double* alt_ = nullptr;
  std::array<bool, RowPieces::kMaxCount> patched_{};
  size_t patches_ = 0;
  bool contiguous_ = false;  // every piece copied into alt_
};

}  // namespace exactsample
