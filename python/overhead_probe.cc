// _exactsample_probe: the C++ calls that exactsample.sample and
// exactsample.Sequence.sample wrap, timed inside the Python process, for
// bench/python_overhead.py. Not installed.
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include <chrono>
#include <cstdint>
#include <utility>

#include "exactsample/exactsample.hpp"
#include "exactsample/sequence.hpp"

namespace py = pybind11;
namespace xs = exactsample;

namespace {

// One request generator and workspace, as the module keeps per thread.
class Probe {
 public:
  explicit Probe(uint64_t seed) : rng_(xs::stream(seed, xs::Purpose::sample)) {}

  // Nanoseconds of one sample() call (fast engine, default parameters,
  // logprob on) on the caller's contiguous row.
  int64_t SampleNs(const py::array_t<float, py::array::c_style>& row) {
    const xs::Request req{{row.data(), static_cast<size_t>(row.size())}, {}, {}, {}};
    const auto start = std::chrono::steady_clock::now();
    const auto token = xs::sample(req, rng_, ws_);
    const auto stop = std::chrono::steady_clock::now();
    if (!token) throw py::value_error(token.error().message);
    return std::chrono::duration_cast<std::chrono::nanoseconds>(stop - start).count();
  }

 private:
  xs::Pcg32 rng_;
  xs::Workspace ws_;
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
    const auto token = seq_.sample(step, ws_);
    const auto stop = std::chrono::steady_clock::now();
    if (!token) throw py::value_error(token.error().message);
    return std::chrono::duration_cast<std::chrono::nanoseconds>(stop - start).count();
  }

 private:
  static xs::Sequence Make(size_t vocab, uint64_t seed) {
    auto s = xs::Sequence::Create(vocab, {}, xs::stream(seed, xs::Purpose::sample));
    if (!s) throw py::value_error(s.error().message);
    return std::move(s.value());
  }

  xs::Sequence seq_;
  xs::Workspace ws_;
};

}  // namespace

PYBIND11_MODULE(_exactsample_probe, m) {
  py::class_<Probe>(m, "Probe")
      .def(py::init<uint64_t>(), py::arg("seed"))
      .def("sample_ns", &Probe::SampleNs, py::arg("row"));
  py::class_<SequenceProbe>(m, "SequenceProbe")
      .def(py::init<size_t, uint64_t>(), py::arg("vocab"), py::arg("seed"))
      .def("sample_ns", &SequenceProbe::SampleNs, py::arg("row"));
}
