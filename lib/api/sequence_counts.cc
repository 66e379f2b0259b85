#include "lib/api/sequence_counts.hpp"

#include <limits>

namespace exactsample::detail {

void HistoryCounts::Change(int32_t id, int repetition, int generated) {
  generated_total_ += static_cast<uint64_t>(static_cast<int64_t>(generated));
  if (dense_) return ChangeDense(id, repetition, generated);
  const auto [it, added] = index_.try_emplace(id, static_cast<uint32_t>(entries_.size()));
  if (added) {
    entries_.push_back({id, 0, 0});
    ++distinct_;
  }
  Entry& e = entries_[it->second];
  e.repetition += static_cast<uint32_t>(repetition);
  e.generated += static_cast<uint32_t>(generated);
  if (e.repetition == 0 && e.generated == 0) {  // gone: the last entry takes its place
    const uint32_t slot = it->second;
    index_.erase(it);
    if (slot + 1 != entries_.size()) {
      entries_[slot] = entries_.back();
      index_[entries_[slot].id] = slot;
    }
    entries_.pop_back();
    --distinct_;
  }
  if (vocab_ / kDenseShare > 0 && distinct_ > vocab_ / kDenseShare) MakeDense();
}

namespace {

constexpr uint32_t kMaxCode = std::numeric_limits<int32_t>::max();

// The code of an id in the window with this generated count (-1: none).
int32_t CodeOf(uint32_t generated) {
  return generated > kMaxCode ? -1 : static_cast<int32_t>(generated);
}

}  // namespace

void HistoryCounts::ChangeDense(int32_t id, int repetition, int generated) {
  const auto i = static_cast<size_t>(id);
  const bool was = repetition_[i] != 0 || generated_[i] != 0;
  const bool was_oversized = generated_[i] > kMaxCode;
  repetition_[i] += static_cast<uint32_t>(repetition);
  generated_[i] += static_cast<uint32_t>(generated);
  const bool is = repetition_[i] != 0 || generated_[i] != 0;
  const bool is_oversized = generated_[i] > kMaxCode;
  code_[i] = is ? CodeOf(generated_[i]) : -1;
  if (is_oversized != was_oversized) oversized_ = is_oversized ? oversized_ + 1 : oversized_ - 1;
  if (was != is) {
    present_[i / 64] ^= uint64_t{1} << (i % 64);
    distinct_ = is ? distinct_ + 1 : distinct_ - 1;
  }
}

void HistoryCounts::MakeDense() {
  repetition_.assign(vocab_, 0);
  generated_.assign(vocab_, 0);
  code_.assign(vocab_, -1);
  present_.assign((vocab_ + 63) / 64, 0);
  for (const Entry& e : entries_) {
    const auto i = static_cast<size_t>(e.id);
    repetition_[i] = e.repetition;
    generated_[i] = e.generated;
    code_[i] = CodeOf(e.generated);
    oversized_ += e.generated > kMaxCode;
    present_[i / 64] |= uint64_t{1} << (i % 64);
  }
  entries_ = {};
  index_ = {};
  dense_ = true;
}

void HistoryCounts::Clear() {
  entries_.clear();
  index_.clear();
  repetition_ = {};
  generated_ = {};
  code_ = {};
  present_ = {};
  dense_ = false;
  distinct_ = 0;
  oversized_ = 0;
  generated_total_ = 0;
}

void HistoryCounts::CopyEntries(const HistoryCounts& from) {
  entries_.clear();
  index_.clear();
  if (from.dense_) {  // its arrays: copied faster than listed, and read by the kernels
    repetition_ = from.repetition_;
    generated_ = from.generated_;
    code_ = from.code_;
    present_ = from.present_;
  } else {
    from.ForEach([&](int32_t id, uint32_t repetition, uint32_t generated) {
      entries_.push_back({id, repetition, generated});
    });
  }
  vocab_ = from.vocab_;
  dense_ = from.dense_;
  distinct_ = from.distinct_;
  oversized_ = from.oversized_;
  generated_total_ = from.generated_total_;
}

}  // namespace exactsample::detail
