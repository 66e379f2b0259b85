// What sample_batch (of rows or of sequences) returns: a list of Token (and
// SampleError for bad rows), or with output="numpy" or "torch" one array
// per output, filled here from the C++ results without a Python object per
// token (python/batch_outputs.cc).
#pragma once

#include <pybind11/pybind11.h>

#include <cstddef>
#include <cstdint>
#include <string_view>
#include <vector>

#include "exactsample/exactsample.hpp"

namespace exactsample_python {

namespace py = pybind11;
namespace xs = exactsample;

enum class Output { tokens, numpy, torch };

// The output keyword: "tokens", "numpy" or "torch". Read before sampling,
// so that a bad value or a torch that cannot be imported takes no draw.
Output ReadOutput(std::string_view output);

// One batch call's outputs as `output` asks, made before sampling and
// filled after it: a batch at a large V streams megabytes through the
// caches, after which each Python object the call makes misses them.
class BatchOutput {
 public:
  // `rows` rows; top_n columns of top-N arrays (the most any row asked
  // for); the ranks when `rank`. Tokens are made by Fill.
  BatchOutput(Output output, size_t rows, size_t top_n, bool rank);
  // The outputs of `results` (one per row).
  py::object Fill(const std::vector<xs::Result<xs::Token>>& results);

 private:
  Output output_;
  size_t top_n_;
  py::object arrays_;  // the BatchArrays, for output="numpy" or "torch"
  py::dict errors_;    // its errors
  // Its arrays' memory (a torch tensor shares its numpy array's).
  int32_t* ids_ = nullptr;
  double* logprobs_ = nullptr;
  double* processed_ = nullptr;
  int64_t* ranks_ = nullptr;  // null without rank
  int32_t* top_ids_ = nullptr;
  double* top_logprobs_ = nullptr;
  int8_t* status_ = nullptr;
};

// Registers exactsample.BatchArrays (after Token).
void RegisterBatchArrays(py::module_& m);

}  // namespace exactsample_python
