// exactsample.testing's probes: the C++ calls that exactsample.sample,
// exactsample.Sequence.sample and exactsample.sample_batch wrap, timed
// inside the Python process, for bench/python_overhead.py. They live in the
// module itself so that both calls of a pair run on the same copy of the
// library: a second statically linked copy would bring its own thread pool,
// whose spinning worker takes a core from the other copy's batch. They use
// the module's workspaces too (ThreadWorkspace), as the calls they stand
// for do: with one of their own, each call of a pair found the row's
// memory the other had just evicted.
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include <chrono>
#include <cstdint>
#include <span>
#include <utility>
#include <vector>

#include "exactsample/batch.hpp"
#include "exactsample/exactsample.hpp"
#include "exactsample/sequence.hpp"
#include "module_inputs.hpp"

namespace exactsample_python {
namespace {

// One request generator, on the module's workspace.
class Probe {
 public:
  explicit Probe(uint64_t seed) : rng_(xs::stream(seed, xs::Purpose::sample)) {}

  // Nanoseconds of one sample() call (fast engine, default parameters,
  // logprob on) on the caller's contiguous row.
  int64_t SampleNs(const py::array_t<float, py::array::c_style>& row) {
    const xs::Request req{{row.data(), static_cast<size_t>(row.size())}, {}, {}, {}};
    const auto start = std::chrono::steady_clock::now();
    const auto token = xs::sample(req, rng_, ThreadWorkspace());
    const auto stop = std::chrono::steady_clock::now();
    if (!token) throw py::value_error(token.error().message);
    return std::chrono::duration_cast<std::chrono::nanoseconds>(stop - start).count();
  }

 private:
  xs::Pcg32 rng_;
};

// The C++ call that exactsample.Sequence.sample wraps: Sequence::sample
// (default parameters, the token appended) on a sequence of its own.
class SequenceProbe {
 public:
  SequenceProbe(size_t vocab, uint64_t seed)
      : seq_(Make(vocab, seed)) {}

  int64_t SampleNs(const py::array_t<float, py::array::c_style>& row) {
    const xs::Step step{{row.data(), static_cast<size_t>(row.size())}};
    const auto start = std::chrono::steady_clock::now();
    const auto token = seq_.sample(step, ThreadWorkspace());
    const auto stop = std::chrono::steady_clock::now();
    if (!token) throw py::value_error(token.error().message);
    return std::chrono::duration_cast<std::chrono::nanoseconds>(stop - start).count();
  }

 private:
  static xs::Sequence Make(size_t vocab, uint64_t seed) {
    auto s = xs::Sequence::create(vocab, {}, xs::stream(seed, xs::Purpose::sample));
    if (!s) throw py::value_error(s.error().message);
    return std::move(s.value());
  }

  xs::Sequence seq_;
};

// The C++ call that exactsample.sample_batch wraps: sample_batch (default
// parameters, logprob on) over a rows x V block, one generator per row,
// stream(seed + i) for row i.
class BatchProbe {
 public:
  BatchProbe(size_t rows, uint64_t seed) {
    for (size_t i = 0; i < rows; ++i) rngs_.push_back(xs::stream(seed + i, xs::Purpose::sample));
  }

  int64_t SampleNs(const py::array_t<float, py::array::c_style>& block, int threads) {
    if (block.ndim() != 2 || static_cast<size_t>(block.shape(0)) != rngs_.size()) {
      throw py::value_error("rows: a 2-D array of one row per generator");
    }
    const auto vocab = static_cast<size_t>(block.shape(1));
    rows_.clear();
    for (size_t i = 0; i < rngs_.size(); ++i) {
      rows_.push_back({{{block.data() + i * vocab, vocab}, {}, {}, {}}, &rngs_[i]});
    }
    const auto start = std::chrono::steady_clock::now();
    xs::sample_batch(rows_, results_, ThreadBatchWorkspace(), {}, threads);
    const auto stop = std::chrono::steady_clock::now();
    for (const auto& r : results_) {
      if (!r) throw py::value_error(r.error().message);
    }
    return std::chrono::duration_cast<std::chrono::nanoseconds>(stop - start).count();
  }

 private:
  std::vector<xs::Pcg32> rngs_;
  std::vector<xs::BatchRow> rows_;
  std::vector<xs::Result<xs::Token>> results_;
};

}  // namespace

void RegisterOverheadProbes(py::module_& testing) {
  py::class_<Probe>(testing, "Probe")
      .def(py::init<uint64_t>(), py::arg("seed"))
      .def("sample_ns", &Probe::SampleNs, py::arg("row"));
  py::class_<SequenceProbe>(testing, "SequenceProbe")
      .def(py::init<size_t, uint64_t>(), py::arg("vocab"), py::arg("seed"))
      .def("sample_ns", &SequenceProbe::SampleNs, py::arg("row"));
  py::class_<BatchProbe>(testing, "BatchProbe")
      .def(py::init<size_t, uint64_t>(), py::arg("rows"), py::arg("seed"))
      .def("sample_ns", &BatchProbe::SampleNs, py::arg("rows"), py::arg("threads"));
}

}  // namespace exactsample_python
