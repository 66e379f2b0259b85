// A Sequence's counts of its penalty window, kept as tokens arrive, so that
// steps 2 and 3 visit the distinct ids of the window and never the history.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <unordered_map>
#include <vector>

namespace exactsample::detail {

class HistoryCounts {
 public:
  // One distinct id of the window: how often it occurs in the repetition
  // penalty's window (prompt and generated) and in the generated ids of the
  // window. The generated window ends the repetition one, so generated > 0
  // implies repetition > 0; an id with both 0 has no entry.
  struct Entry {
    int32_t id;
    uint32_t repetition;
    uint32_t generated;
  };

  std::span<const Entry> entries() const { return entries_; }
  // Tokens in the generated window (0: presence and frequency change nothing).
  uint64_t generated_total() const { return generated_total_; }

  // An occurrence of id entering (+1) or leaving (-1) a window.
  void Repetition(int32_t id, int delta) { Change(id, delta, 0); }
  void Generated(int32_t id, int delta) { Change(id, 0, delta); }
  void Clear();
  // The entries alone (a batch helper's copy, which only the engine reads).
  void CopyEntries(const HistoryCounts& from);

 private:
  void Change(int32_t id, int repetition, int generated);

  std::vector<Entry> entries_;
  std::unordered_map<int32_t, uint32_t> index_;  // id -> its entry
  uint64_t generated_total_ = 0;
};

}  // namespace exactsample::detail
