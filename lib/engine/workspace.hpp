// The scratch memory behind exactsample::Workspace (declared only as
// detail::WorkspaceImpl in the public header): the fast engine's
// per-vocabulary arrays, grown to the largest V seen and then reused, so a
// steady stream of calls does not allocate.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <utility>
#include <vector>

#include "exactsample/batch.hpp"
#include "exactsample/exactsample.hpp"
#include "lib/threads/executor.hpp"
#include "lib/threads/row_helpers.hpp"
#include "lib/threads/row_passes.hpp"
#include "lib/engine/row_sums.hpp"
#include "simd/max.hpp"
#include "simd/nucleus.hpp"

namespace exactsample {

// The most window ids (repeats counted) the f32-row path gives their
// penalised logits beside the row, each then looked up by binary search and
// ordered again by top-k; past them the row is widened.
constexpr size_t kMaxPenalisedIds = 1024;

}  // namespace exactsample

namespace exactsample::detail {

// The buffers helpers of a pass split across threads (lib/threads/row_passes.hpp)
// read or write, and the helpers themselves. Helpers read l (or copy
// the f32 row's pieces into x_copy) and write e (or e_logprob); a set with a
// helper still inside (one that was preempted and finishes after its call
// returned) is set aside whole and another used (WorkspaceImpl::Reserve).
// A buffer declared here moves with its set; nothing else names it.
struct RowBuffers {
  std::vector<double> l;            // penalised logits, f64 (8 bytes per id)
  std::vector<double> e;            // exp values of the kept set (8 bytes per id)
  std::vector<double> e_logprob;    // the logprob pass's e when steps 6 to 9 need others
  std::vector<double> l_finite;     // a masked row's finite logits and their ids
  std::vector<int32_t> ids_finite;  // (Logits::finite_l), read by the passes
  std::vector<float> x_copy;        // helpers' copies of the f32 row's pieces
  std::vector<float> x_copy_kept;   // the same for step 9's pass (a late
                                    // logprob helper may still read x_copy)
  std::vector<double> l_stage;      // helpers' widened pieces before they move into l
  std::vector<int32_t> penalised_ids;  // the f32 row's window ids, ascending (logits in l)
  threads::RowHelpers helpers;  // those of the logprob's pass and of step 9's
};

// The row buffers (RowBuffers, set aside together) and the scratch only the
// calling thread touches. A buffer that only some calls use is sized by
// GrownToVocab where it is used; the others by Reserve or by their users.
struct WorkspaceImpl : RowBuffers {
  std::vector<uint32_t> ids;     // kernel scratch: candidates, buckets, the
                                 // nucleus histogram (4, plus 32 KiB)
  std::vector<uint64_t> penalty_counts;  // per id, zero between calls (8, with penalties)
  std::vector<uint32_t> mask_bits;  // the mask's allowed ids, one bit each
  std::vector<int32_t> top;      // a compact K: ids ascending (top-k, or
  std::vector<double> top_l;     // top-p's candidates), their penalised
  std::vector<double> top_e;     // logits and e values
  std::vector<std::pair<double, int32_t>> top_t;  // top-k's candidates on the f32 row, with t
  std::vector<uint64_t> penalised_bits;  // the penalised ids, which top-k skips on the f32 row
  std::vector<double> sums;      // the exp-sum pass's running sums (RowSums)
  std::vector<double> taken_over;  // the caller's copies of pieces it took over from helpers
  std::vector<KeptProb> chosen_from;  // the distribution a chooser is shown
  // The chain's tail (lib/engine/tail.cc): K compacted, its l (or t) values
  // as ids 0..n-1, the row's id of each, and K as those ids.
  std::vector<double> tail_l;
  std::vector<int32_t> tail_ids;
  std::vector<int32_t> tail_kept;
  // verify()'s lists where a draft is rejected: the target's and the
  // draft's distributions and their residual.
  std::vector<KeptProb> rejected_p, rejected_q, residual;

  std::vector<RowBuffers> set_aside;  // row buffers a late helper is still inside
  threads::SharedExecutor executor;  // null: the library pool
  // Step 1's check and maximum of an f32 row, found while it was copied (a
  // batch helper's copy of the caller's row): the next call's
  // PenalizedLogits takes it, for that row, instead of reading it again.
  struct CheckedRow {
    const float* x = nullptr;
    size_t n = 0;
    simd::WidenResult result{};
  } checked_row;
  // Set by sample_batch while it samples a row a helper may finish first.
  threads::Supersede supersede;

  WorkspaceImpl() = default;
  WorkspaceImpl(const WorkspaceImpl&) = delete;
  WorkspaceImpl& operator=(const WorkspaceImpl&) = delete;
  ~WorkspaceImpl() {
    helpers.WaitIdle();
    for (const RowBuffers& b : set_aside) b.helpers.WaitIdle();
  }

  // The same scratch as the int32 ids TopK keeps (signed and unsigned
  // views of one object may alias).
  std::span<int32_t> TopKScratch(size_t vocab) {
    return {reinterpret_cast<int32_t*>(ids.data()), vocab};
  }

  void Reserve(size_t vocab) {
    if (helpers.Busy()) SetAside();
    // Each on its own: a set of row buffers swapped in may be smaller or
    // larger than the scratch that stays.
    if (l.size() < vocab) l.resize(vocab);
    if (e.size() < vocab) e.resize(vocab);
    if (ids.size() < simd::NucleusScratchWords(vocab)) {
      ids.resize(simd::NucleusScratchWords(vocab));
    }
    if (sums.size() < RowPieces::kMaxCount + 1) sums.resize(RowPieces::kMaxCount + 1);
  }

  // A buffer only some calls use, grown to the vocabulary Reserve saw.
  template <typename T>
  T* GrownToVocab(std::vector<T>& buffer) {
    if (buffer.size() < l.size()) buffer.resize(l.size());
    return buffer.data();
  }

  // What `pass` split across `threads` needs (threads::RowHelpers::ForPass);
  // its alternate area is grown (for the vocabulary Reserve saw) on the
  // first call that splits.
  RowThreads ForPass(int threads, size_t n, threads::RowHelpers::Pass pass) {
    return helpers.ForPass(pass, threads, n, executor.get(), supersede,
                           [this] { return GrownToVocab(taken_over); });
  }
  // Announces the logprob's pass for a row of `vocab` ids split across
  // `threads`: its helpers wait for it, sent away if the handle goes first.
  threads::Announcement AnnounceLogprobPass(int threads, size_t vocab) {
    return helpers.AnnounceLogprobPass(executor.get(), threads, vocab);
  }
  // A bit per id, zero between calls (top-k sets the penalised ids' bits,
  // then clears them).
  uint64_t* PenalisedBits() {
    if (penalised_bits.size() < (l.size() + 63) / 64) penalised_bits.resize((l.size() + 63) / 64);
    return penalised_bits.data();
  }
  int32_t* PenalisedIds() {
    if (penalised_ids.size() < kMaxPenalisedIds) penalised_ids.resize(kMaxPenalisedIds);
    return penalised_ids.data();
  }

 private:
  // Swaps the current row buffers for a set nobody is inside (a new one
  // when every set aside is still busy).
  // The new set is made before anything moves: if that allocation fails,
  // the busy buffers stay where they are, and so do the helpers inside them.
  void SetAside() {
    size_t k = 0;
    while (k < set_aside.size() && set_aside[k].helpers.Busy()) ++k;
    if (k == set_aside.size()) set_aside.emplace_back();
    std::swap(static_cast<RowBuffers&>(*this), set_aside[k]);
  }
};

// The library's way into a Workspace (its friend).
struct WorkspaceAccess {
  static WorkspaceImpl& Of(Workspace& workspace) { return *workspace.impl_; }
  static BatchWorkspaceImpl& Of(BatchWorkspace& workspace) { return *workspace.impl_; }
  static std::unique_ptr<WorkspaceImpl> Make() {
    return std::make_unique<WorkspaceImpl>();
  }
};

}  // namespace exactsample::detail
