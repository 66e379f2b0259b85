// A request's candidates (ids with their logits) as the V-row the spec
// samples: every id not given is -inf. The row is kept all -inf between
// calls, so a call writes and clears only its candidates, and after the
// first call for a V nothing is allocated.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace exactsample::c_abi {

class CandidateRow {
 public:
  // Writes values[j] at ids[j] for j < n in a row of `vocab` ids (at
  // most 2^31 - 1). An id outside [0, vocab) or given twice: the message
  // (naming <prefix>candidate_ids[j] and the id), and the row is all -inf
  // again.
  std::string Scatter(const int32_t* ids, const float* values, size_t n, size_t vocab,
                      const std::string& prefix);
  // Back to all -inf (the ids of the last Scatter must still be readable).
  void Clear();
  std::span<const float> row() const { return {row_.data(), vocab_}; }

 private:
  void ClearFirst(size_t n);

  std::vector<float> row_;
  std::vector<uint8_t> seen_;  // 1 where this call wrote an id
  size_t vocab_ = 0;
  const int32_t* ids_ = nullptr;
  size_t count_ = 0;
};

}  // namespace exactsample::c_abi
