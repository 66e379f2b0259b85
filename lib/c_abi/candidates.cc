#include "lib/c_abi/candidates.hpp"

#include <cmath>

namespace exactsample::c_abi {

std::string CandidateRow::Scatter(const int32_t* ids, const float* values, size_t n,
                                  size_t vocab, const std::string& prefix) {
  // resize keeps the invariant: kept entries are -inf, new ones too.
  row_.resize(vocab, -INFINITY);
  seen_.resize(vocab, 0);
  vocab_ = vocab;
  ids_ = ids;
  for (size_t j = 0; j < n; ++j) {
    const int32_t id = ids[j];
    const bool in_range = id >= 0 && static_cast<size_t>(id) < vocab;
    if (!in_range || seen_[id] != 0) {
      ClearFirst(j);
      return prefix + "candidate_ids[" + std::to_string(j) + "] = " + std::to_string(id) +
             (in_range ? ": given twice (candidate ids are distinct)"
                       : ": outside [0, " + std::to_string(vocab) + ")");
    }
    seen_[id] = 1;
    row_[id] = values[j];
  }
  count_ = n;
  return {};
}

void CandidateRow::Clear() { ClearFirst(count_); }

void CandidateRow::ClearFirst(size_t n) {
  for (size_t j = 0; j < n; ++j) {
    row_[ids_[j]] = -INFINITY;
    seen_[ids_[j]] = 0;
  }
  count_ = 0;
}

}  // namespace exactsample::c_abi
