#include "batch_outputs.hpp"

#include <pybind11/numpy.h>

#include <cmath>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "exactsample.h"
#include "module_inputs.hpp"

namespace exactsample_python {
namespace {

using namespace pybind11::literals;

// One batch's outputs, row i of each array for rows[i] (numpy arrays, or
// torch tensors sharing their memory).
struct BatchArrays {
  py::object ids, logprobs, processed_logprobs, ranks, top_ids, top_logprobs, status;
  py::dict errors;  // row -> SampleError, for the rows that failed
};

// The C ABI's status of an error (exactsample.h), 0 for a token.
int8_t Status(const xs::Result<xs::Token>& r) {
  if (r) return EXACTSAMPLE_OK;
  switch (r.error().code) {
    case xs::ErrorCode::invalid_parameter: return EXACTSAMPLE_INVALID_PARAMETER;
    case xs::ErrorCode::invalid_logits: return EXACTSAMPLE_INVALID_LOGITS;
    case xs::ErrorCode::invalid_ids: return EXACTSAMPLE_INVALID_IDS;
    case xs::ErrorCode::degenerate: return EXACTSAMPLE_DEGENERATE;
    case xs::ErrorCode::out_of_memory: break;
  }
  return EXACTSAMPLE_OUT_OF_MEMORY;
}

py::list TokenList(const std::vector<xs::Result<xs::Token>>& results) {
  py::list out(results.size());
  for (size_t i = 0; i < results.size(); ++i) {
    out[i] = results[i] ? py::cast(*results[i]) : SampleErrorValue(results[i].error());
  }
  return out;
}

void ToTorch(BatchArrays& a) {
  const py::object from_numpy = py::module_::import("torch").attr("from_numpy");
  for (py::object* field : {&a.ids, &a.logprobs, &a.processed_logprobs, &a.ranks, &a.top_ids,
                            &a.top_logprobs, &a.status}) {
    if (!field->is_none()) *field = from_numpy(*field);
  }
}

}  // namespace

Output ReadOutput(std::string_view output) {
  if (output == "tokens") return Output::tokens;
  if (output == "numpy") return Output::numpy;
  if (output == "torch") {
    try {
      py::module_::import("torch");
    } catch (py::error_already_set& e) {
      if (!e.matches(PyExc_ImportError)) throw;
      throw py::import_error("output='torch': torch cannot be imported (" +
                             std::string(py::str(e.value())) +
                             "); install it, or pass output='numpy'");
    }
    return Output::torch;
  }
  ThrowSampleError({xs::ErrorCode::invalid_parameter, "output",
                    "output = " + std::string(output) +
                        ": use \"tokens\" (a list of Token), \"numpy\" or \"torch\" (arrays)"});
}

BatchOutput::BatchOutput(Output output, size_t rows, size_t top_n, bool rank)
    : output_(output), top_n_(top_n) {
  if (output == Output::tokens) return;
  const auto n = static_cast<py::ssize_t>(rows);
  const std::vector<py::ssize_t> shape{n, static_cast<py::ssize_t>(top_n)};
  py::array_t<int32_t> ids(n), top_ids(shape);
  py::array_t<double> logprobs(n), processed(n), top_logprobs(shape);
  py::array_t<int8_t> status(n);
  ids_ = ids.mutable_data();
  logprobs_ = logprobs.mutable_data();
  processed_ = processed.mutable_data();
  top_ids_ = top_ids.mutable_data();
  top_logprobs_ = top_logprobs.mutable_data();
  status_ = status.mutable_data();
  BatchArrays a;
  if (rank) {
    py::array_t<int64_t> ranks(n);
    ranks_ = ranks.mutable_data();
    a.ranks = std::move(ranks);
  } else {
    a.ranks = py::none();
  }
  a.ids = std::move(ids);
  a.logprobs = std::move(logprobs);
  a.processed_logprobs = std::move(processed);
  a.top_ids = std::move(top_ids);
  a.top_logprobs = std::move(top_logprobs);
  a.status = std::move(status);
  errors_ = a.errors;
  if (output == Output::torch) ToTorch(a);
  arrays_ = py::cast(std::move(a));
}

py::object BatchOutput::Fill(const std::vector<xs::Result<xs::Token>>& results) {
  if (output_ == Output::tokens) return TokenList(results);
  const xs::Token none{-1, NAN, NAN};  // what a bad row's entries hold
  for (size_t i = 0; i < results.size(); ++i) {
    const xs::Result<xs::Token>& r = results[i];
    status_[i] = Status(r);
    const xs::Token& t = r ? *r : none;
    if (!r) errors_[py::int_(i)] = SampleErrorValue(r.error());
    ids_[i] = t.id;
    logprobs_[i] = t.logprob;
    processed_[i] = t.processed_logprob;
    if (ranks_ != nullptr) ranks_[i] = t.rank;
    for (size_t j = 0; j < top_n_; ++j) {
      const bool listed = j < t.top_count;
      top_ids_[i * top_n_ + j] = listed ? t.top[j].id : -1;
      top_logprobs_[i * top_n_ + j] = listed ? t.top[j].logprob : -INFINITY;
    }
  }
  return arrays_;
}

void RegisterBatchArrays(py::module_& m) {
  py::class_<BatchArrays>(
      m, "BatchArrays",
      "sample_batch(..., output='numpy' or 'torch'): row i of each array is row i's\n"
      "token, as the Token of output='tokens' holds it, bit for bit. A bad row has\n"
      "id -1, NaN logprobs, rank 0, its status code and its error in errors.")
      .def_readonly("ids", &BatchArrays::ids, "int32 (rows,): the ids; -1 for a bad row.")
      .def_readonly("logprobs", &BatchArrays::logprobs,
                    "float64 (rows,): Token.logprob (NaN with logprob=False or a bad row).")
      .def_readonly("processed_logprobs", &BatchArrays::processed_logprobs,
                    "float64 (rows,): Token.processed_logprob (NaN for a bad row).")
      .def_readonly("ranks", &BatchArrays::ranks,
                    "int64 (rows,): Token.rank with rank=True (0 for a bad row); else None.")
      .def_readonly("top_ids", &BatchArrays::top_ids,
                    "int32 (rows, N), N the largest top_logprobs of the rows: each row's\n"
                    "Token.top_logprobs ids, then -1.")
      .def_readonly("top_logprobs", &BatchArrays::top_logprobs,
                    "float64 (rows, N): their logprobs, then -inf.")
      .def_readonly("status", &BatchArrays::status,
                    "int8 (rows,): 0 for a token, else the C ABI's code of the row's error\n"
                    "(2 invalid_parameter, 3 invalid_logits, 4 invalid_ids, 5 degenerate,\n"
                    "6 out_of_memory).")
      .def_readonly("errors", &BatchArrays::errors,
                    "{row: SampleError} for the rows that failed (empty when none did).")
      .def("__repr__", [](const BatchArrays& a) {
        return "BatchArrays(rows=" + std::to_string(py::len(a.ids)) +
               ", errors=" + std::to_string(py::len(a.errors)) + ")";
      });
}

}  // namespace exactsample_python
