// What python/sequence_module.cc takes from the module's input readers in
// exactsample_module.cc: the same rows, ids, extras, options and errors as
// sample() and sample_batch(), so that a Sequence refuses what they refuse
// with the same messages.
#pragma once

#include <pybind11/pybind11.h>

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "exactsample/batch.hpp"
#include "exactsample/exactsample.hpp"
#include "exactsample/sequence.hpp"
#include "exactsample/speculative.hpp"

namespace exactsample_python {

namespace py = pybind11;
namespace xs = exactsample;

// One row (ndim 1) or a rows x V block (ndim 2) as the library reads it:
// steps[i] views row i, in the caller's memory or a packed copy that `keep`
// holds (release it with the GIL held: it may own a Python array).
struct StepRows {
  std::shared_ptr<const void> keep;
  size_t vocab = 0;
  std::vector<xs::Step> steps;
};
StepRows ReadStepRows(py::handle logits, int ndim, const char* field, py::handle dtype);

// The calling thread's workspaces, which every sampling call of the module
// (and exactsample.testing's probes) uses: one per thread, so that calls
// that alternate (sample, Sequence.sample, verify) find it warm and a
// thread holds one row's worth, not one per function. A call uses it only
// while the library runs, so a call made after (the test hook) may too.
xs::Workspace& ThreadWorkspace();
xs::BatchWorkspace& ThreadBatchWorkspace();

// Token ids (an int32 array or any iterable of ints), checked to be 32-bit.
std::vector<int32_t> ReadIdList(py::handle ids, const std::string& field, size_t vocab);

// exactsample.Constraints: a request's bias and masks as the caller gave
// them (None: none), read and checked against V by the call that uses them.
struct PyConstraints {
  py::object logit_bias = py::none();
  py::object allowed_token_ids = py::none();
  py::object banned_token_ids = py::none();
  py::object allowed_bitmask = py::none();
};
// The exactsample.Constraints a `constraints=` argument holds: None is none; anything
// else is a SampleError naming `field`.
PyConstraints ReadConstraints(py::handle constraints, const char* field = "constraints");

// The bias and masks of `c`, as sample() reads them, owned.
xs::Constraints ReadExtras(const PyConstraints& c, size_t vocab);

// engine ("fast" or "reference"), logprob and rank as sample() reads them.
xs::SampleOptions ReadOptions(std::string_view engine, bool logprob, bool rank);

// The top-N columns a row with these parameters fills in output="numpy".
size_t TopColumns(const xs::SamplingParams& params);

// Entry `row` of a call's list of generators `field`, or a SampleError
// naming it ("rngs[2]"); and the error for a generator another call is
// using (python/call_guard.hpp marks them).
xs::Pcg32& ListedGenerator(py::handle obj, const char* field, size_t row);
[[noreturn]] void GeneratorInUse(const std::string& field, const std::string& at = "");

// Raises `error` as an exactsample.SampleError.
[[noreturn]] void ThrowSampleError(const xs::Error& error);
// The SampleError object sample_batch puts in a failed row's place.
py::object SampleErrorValue(const xs::Error& error);

// verify() on a sequence (docs/spec.md, "Speculative decoding", history and target
// parameters its own): the rows and ids read with the GIL held, verified
// with it released; accepted tokens appended on success.
xs::Result<xs::Verified> VerifyOnSequence(xs::Sequence& sequence, py::handle target_rows,
                                          py::handle draft_rows, py::handle draft_ids,
                                          const xs::SamplingParams* draft_params,
                                          std::string_view engine);

// Registers exactsample.Sequence and sample_batch of sequences on the module
// (after SamplingParams, Pcg32 and Token).
void RegisterSequence(py::module_& m);
// Registers distribution, verify, verify_batch and Verified
// (python/speculative_module.cc), after Token.
void RegisterSpeculative(py::module_& m);
// Registers the C++ calls bench/python_overhead.py times beside the
// module's (python/overhead_probe.cc) on exactsample.testing.
void RegisterOverheadProbes(py::module_& testing);

}  // namespace exactsample_python
