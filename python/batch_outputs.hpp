// What sample_batch and sample_batch_sequences return: a list of Token (and
// SampleError for bad rows), or with output="numpy" or "torch" one array
// per output, filled here from the C++ results without a Python object per
// token (python/batch_outputs.cc).
#pragma once

#include <pybind11/pybind11.h>

#include <cstddef>
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

// The results as `output` asks: top_n columns of top-N arrays (the most
// any row asked for), the ranks when `rank`.
py::object BatchResults(const std::vector<xs::Result<xs::Token>>& results, Output output,
                        size_t top_n, bool rank);

// Registers exactsample.BatchArrays (after Token).
void RegisterBatchArrays(py::module_& m);

}  // namespace exactsample_python
