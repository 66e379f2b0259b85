// _exactsample_probe: the C++ call that exactsample.sample wraps, timed
// inside the Python process, for bench/python_overhead.py. Not installed.
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include <chrono>
#include <cstdint>

#include "exactsample/exactsample.hpp"

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

}  // namespace

PYBIND11_MODULE(_exactsample_probe, m) {
  py::class_<Probe>(m, "Probe")
      .def(py::init<uint64_t>(), py::arg("seed"))
      .def("sample_ns", &Probe::SampleNs, py::arg("row"));
}
