#include "lib/history_counts.hpp"

namespace exactsample::detail {

void HistoryCounts::Change(int32_t id, int repetition, int generated) {
  const auto [it, added] = index_.try_emplace(id, static_cast<uint32_t>(entries_.size()));
  if (added) entries_.push_back({id, 0, 0});
  Entry& e = entries_[it->second];
  e.repetition += static_cast<uint32_t>(repetition);
  e.generated += static_cast<uint32_t>(generated);
  generated_total_ += static_cast<uint64_t>(static_cast<int64_t>(generated));
  if (e.repetition != 0 || e.generated != 0) return;
  // Gone from both windows: the last entry takes its place.
  const uint32_t slot = it->second;
  index_.erase(it);
  if (slot + 1 != entries_.size()) {
    entries_[slot] = entries_.back();
    index_[entries_[slot].id] = slot;
  }
  entries_.pop_back();
}

void HistoryCounts::Clear() {
  entries_.clear();
  index_.clear();
  generated_total_ = 0;
}

void HistoryCounts::CopyEntries(const HistoryCounts& from) {
  entries_.assign(from.entries_.begin(), from.entries_.end());
  index_.clear();
  generated_total_ = from.generated_total_;
}

}  // namespace exactsample::detail
