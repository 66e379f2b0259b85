// A Sequence's counts of its penalty window, kept as tokens arrive, so that
// steps 2 and 3 visit the distinct ids of the window and never the history.
#pragma once

#include <bit>
#include <cstddef>
#include <cstdint>
#include <unordered_map>
#include <vector>

namespace exactsample::detail {

class HistoryCounts {
 public:
  // For rows of `vocab` ids.
  explicit HistoryCounts(size_t vocab = 0) : vocab_(vocab) {}

  // Calls f(id, repetition, generated) once for each distinct id of the
  // window: how often it occurs in the repetition penalty's window (prompt
  // and generated) and in the generated ids of the window. The generated
  // window ends the repetition one, so generated > 0 implies repetition > 0.
  // Many ids (dense form) come in ascending order, so that the row they
  // index is read front to back; a few come in any order.
  template <class F>
  void ForEach(F&& f) const {
    if (!dense_) {
      for (const Entry& e : entries_) f(e.id, e.repetition, e.generated);
      return;
    }
    for (size_t w = 0; w < present_.size(); ++w) {
      for (uint64_t bits = present_[w]; bits != 0; bits &= bits - 1) {
        const auto id = static_cast<int32_t>(w * 64 + static_cast<size_t>(std::countr_zero(bits)));
        f(id, repetition_[id], generated_[id]);
      }
    }
  }
  // The dense form's twins::PenaltyCodes codes, one per id (-1: not in the
  // window, else its generated count), for a pass over the row; null when
  // few ids, or when a count is past a code's INT32_MAX.
  const int32_t* codes() const { return dense_ && oversized_ == 0 ? code_.data() : nullptr; }
  bool empty() const { return distinct_ == 0; }
  size_t distinct() const { return distinct_; }
  // Tokens in the generated window (0: presence and frequency change nothing).
  uint64_t generated_total() const { return generated_total_; }

  // An occurrence of id entering (+1) or leaving (-1) a window.
  void Repetition(int32_t id, int delta) { Change(id, delta, 0); }
  void Generated(int32_t id, int delta) { Change(id, 0, delta); }
  void Clear();
  // A batch helper's copy, which only the engine reads: the distinct ids
  // and counts as a list (no index) when `from` has few, else its dense
  // arrays.
  void CopyEntries(const HistoryCounts& from);

 private:
  struct Entry {
    int32_t id;
    uint32_t repetition;
    uint32_t generated;
  };
  void Change(int32_t id, int repetition, int generated);
  void ChangeDense(int32_t id, int repetition, int generated);
  void MakeDense();

  size_t vocab_;
  // Few ids: a list and an index into it. Past kDenseShare of V: per-id
  // counts, their code, and a bitmask of the ids present (12 bytes and a
  // bit per id). The counts change one at a time, so an id's generated
  // count may briefly exceed its repetition count.
  static constexpr size_t kDenseShare = 64;
  bool dense_ = false;
  std::vector<Entry> entries_;
  std::unordered_map<int32_t, uint32_t> index_;  // id -> its entry
  std::vector<uint32_t> repetition_, generated_;
  std::vector<int32_t> code_;
  std::vector<uint64_t> present_;
  size_t distinct_ = 0;
  size_t oversized_ = 0;  // ids whose generated count is past INT32_MAX
  uint64_t generated_total_ = 0;
};

}  // namespace exactsample::detail
