// The rows the side-by-side test samples: synthetic ones (Gaussian, peaked,
// flat, with ties) and two of the random-weight model's.
#ifndef EXACTSAMPLE_LLAMA_TESTS_SIDE_BY_SIDE_ROWS_HPP_
#define EXACTSAMPLE_LLAMA_TESTS_SIDE_BY_SIDE_ROWS_HPP_

#include <cstdint>
#include <string>
#include <vector>

#include "llama.h"

namespace side_by_side {

struct Row {
  std::string name;
  std::vector<float> logits;
};

// The rows of one size and the model that made two of them (its vocab is
// DRY's and mirostat's); the model is the caller's to free.
struct RowSet {
  llama_model* model;
  const llama_vocab* vocab;
  std::vector<Row> rows;
};

// Rows of n_vocab ids: at least 260, the model's least, which also holds
// the ids the peaked row raises (7, 13, 100, 200). The CPU backends must be
// loaded.
RowSet MakeRows(uint32_t n_vocab);

}  // namespace side_by_side

#endif  // EXACTSAMPLE_LLAMA_TESTS_SIDE_BY_SIDE_ROWS_HPP_
