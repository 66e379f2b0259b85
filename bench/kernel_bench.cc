// Kernel/<kernel>/<target>/<V>: each kernel of the fast engine forced to
// every compiled Highway target this CPU supports, and its scalar twin
// (scalar_ref/) as target `scalar` (not Highway's SCALAR target, which is
// portable SIMD emulation), on the standard row:
//   floor     WidenMax + ExpSum: one max + exp + exact Z pass (FloorPass)
//   max       WidenMax of the f32 row
//   expsum    ExpSum over the widened row, divisor 1, no e stored
//   topk      TopK, k = 40, divisor 0.8
//   nucleus   NucleusCut, p = 0.9, divisor 0.8 (e and Z from ExpSum at 0.8)
//   filter    ZeroAfter over that e at the 40th id of (t desc, id asc)
//   compact   CompactAtLeast over that e: top-p's candidates, e >= (1 - p) Z / 2V
//   cdf       InverseCdf over that e, u = 0.5
//   exactsum  ExactSum over that e
// Counters: logits (V per call) per second, and tokens (one floor pass per
// token) per second for floor.
#include <benchmark/benchmark.h>

#include <map>
#include <string>
#include <vector>

#include "bench/vocabs.hpp"
#include "exactsample/targets.hpp"
#include "exactsample/testing.hpp"
#include "lib/engine/kept_set.hpp"
#include "lib/engine/steps.hpp"
#include "tools/lib/floor_pass.hpp"
#include "tools/lib/standard_inputs.hpp"
#include "scalar_ref/twins/cdf.hpp"
#include "scalar_ref/twins/compact.hpp"
#include "scalar_ref/twins/exact_sum.hpp"
#include "scalar_ref/twins/exp_sum.hpp"
#include "scalar_ref/twins/filter.hpp"
#include "scalar_ref/twins/max.hpp"
#include "scalar_ref/twins/nucleus.hpp"
#include "scalar_ref/twins/topk.hpp"
#include "simd/cdf.hpp"
#include "simd/compact.hpp"
#include "simd/exact_sum.hpp"
#include "simd/exp_bound.hpp"
#include "simd/exp_sum.hpp"
#include "simd/exp_choice.hpp"
#include "simd/filter.hpp"
#include "simd/max.hpp"
#include "simd/nucleus.hpp"
#include "simd/topk.hpp"

namespace exactsample {
namespace {

constexpr size_t kTopK = 40;
constexpr double kTemperature = 0.8;
constexpr double kTopP = 0.9;
constexpr double kDraw = 0.5;

// The kernels' inputs for one V, computed by the scalar twins (which the
// kernels equal bit for bit).
struct Inputs {
  std::vector<float> x;   // the standard row
  std::vector<double> l;  // x widened
  double max = 0.0;       // M
  std::vector<double> e;  // exp(l / 0.8 - M / 0.8)
  double z = 0.0;         // their sum
  int32_t cut_id = 0;     // the 40th id of (t desc, id asc), and its t
  double cut_t = 0.0;
};

const Inputs& InputsFor(size_t vocab) {
  static std::map<size_t, Inputs> cache;  // benchmarks run one at a time
  auto [it, fresh] = cache.try_emplace(vocab);
  Inputs& in = it->second;
  if (fresh) {
    in.x = StandardRow(vocab);
    in.l.resize(vocab);
    in.e.resize(vocab);
    in.max = twins::WidenMax(in.x.data(), vocab, in.l.data()).max;
    in.z = twins::ExpSum(in.l.data(), vocab, kTemperature, in.max / kTemperature,
                         in.e.data());
    std::vector<int32_t> top(kTopK);
    const size_t count = twins::TopK(in.l.data(), kTemperature, vocab, kTopK, top.data());
    in.cut_id = top[count - 1];
    in.cut_t = scalar_ref::Tempered(in.l[static_cast<size_t>(in.cut_id)], kTemperature);
  }
  return in;
}

// Outputs and scratch of the kernels, allocated outside the timed loop.
struct Scratch {
  explicit Scratch(const Inputs& in)
      : l(in.l.size()),
        e(in.e),
        ids(simd::NucleusScratchWords(in.l.size())),
        top(kTopK),
        top_scratch(simd::TopKScratchSize(in.l.size())) {}
  std::vector<double> l;
  std::vector<double> e;  // a copy of Inputs::e for the in-place filters
  std::vector<uint32_t> ids;
  std::vector<int32_t> top, top_scratch;
};

// One call of a kernel; the result keeps the call from being optimised away.
using Call = double (*)(const Inputs&, Scratch&);

struct Kernel {
  const char* name;
  Call simd;               // the dispatching entry point
  Call scalar;             // its scalar twin
  bool per_token = false;  // one call per token: count tokens too
};

// Top-p's candidates, as lib/engine/top_p.cc takes them.
double CandidateThreshold(const Inputs& in) {
  return TopPCandidateThreshold(in.z, in.e.size(), kTopP);
}
size_t CandidateCapacity(const Inputs& in) { return CompactCapacity(in.e.size()); }

const Kernel kKernels[] = {
    {"floor",
     [](const Inputs& in, Scratch& s) {
       return FloorPass(in.x, s.l.data(), FloorKernels::simd);
     },
     [](const Inputs& in, Scratch& s) {
       return FloorPass(in.x, s.l.data(), FloorKernels::scalar);
     },
     true},
    {"max",
     [](const Inputs& in, Scratch& s) {
       return simd::WidenMax(in.x.data(), in.x.size(), s.l.data()).max;
     },
     [](const Inputs& in, Scratch& s) {
       return twins::WidenMax(in.x.data(), in.x.size(), s.l.data()).max;
     }},
    {"expsum",
     [](const Inputs& in, Scratch&) {
       return simd::ExpSum(in.l.data(), in.l.size(), 1.0, in.max, nullptr,
                           simd::ProcessExp().variant);
     },
     [](const Inputs& in, Scratch&) {
       return twins::ExpSum(in.l.data(), in.l.size(), 1.0, in.max, nullptr);
     }},
    {"expbound",
     [](const Inputs& in, Scratch&) {
       return simd::ExpSumBounds({in.l.data()}, in.l.size(), kTemperature,
                                 in.max / kTemperature)
           .hi;
     },
     [](const Inputs& in, Scratch&) {
       return twins::ExpSumBounds(in.l.data(), in.l.size(), kTemperature,
                                  in.max / kTemperature)
           .hi;
     }},
    {"topk",
     [](const Inputs& in, Scratch& s) {
       return static_cast<double>(simd::TopK(in.l.data(), kTemperature, in.l.size(),
                                             kTopK, s.top.data(), s.top_scratch));
     },
     [](const Inputs& in, Scratch& s) {
       return static_cast<double>(
           twins::TopK(in.l.data(), kTemperature, in.l.size(), kTopK, s.top.data()));
     }},
    {"nucleus",
     [](const Inputs& in, Scratch& s) {
       return simd::NucleusCut(in.l.data(), kTemperature, in.e.data(), in.l.size(), in.z,
                               kTopP, s.ids)
           .t;
     },
     [](const Inputs& in, Scratch&) {
       return twins::NucleusCut(in.l.data(), kTemperature, in.e.data(), in.l.size(),
                                     in.z, kTopP)
           .t;
     }},
    {"filter",
     [](const Inputs& in, Scratch& s) {
       return static_cast<double>(simd::ZeroAfter(in.l.data(), kTemperature, s.e.data(),
                                                  s.e.size(), in.cut_t, in.cut_id));
     },
     [](const Inputs& in, Scratch& s) {
       return static_cast<double>(twins::ZeroAfter(in.l.data(), kTemperature, s.e.data(),
                                                   s.e.size(), in.cut_t, in.cut_id));
     }},
    {"compact",
     [](const Inputs& in, Scratch& s) {
       return static_cast<double>(simd::CompactAtLeast(
           in.e.data(), in.e.size(), CandidateThreshold(in), s.ids.data(),
           CandidateCapacity(in)));
     },
     [](const Inputs& in, Scratch& s) {
       return static_cast<double>(twins::CompactAtLeast(
           in.e.data(), in.e.size(), CandidateThreshold(in), s.ids.data(),
           CandidateCapacity(in)));
     }},
    {"cdf",
     [](const Inputs& in, Scratch&) {
       return static_cast<double>(
           simd::InverseCdf(in.e.data(), in.e.size(), in.z, kDraw));
     },
     [](const Inputs& in, Scratch&) {
       return static_cast<double>(
           twins::InverseCdf(in.e.data(), in.e.size(), in.z, kDraw));
     }},
    {"exactsum",
     [](const Inputs& in, Scratch&) { return simd::ExactSum(in.e.data(), in.e.size()); },
     [](const Inputs& in, Scratch&) {
       return twins::ExactSum(in.e.data(), in.e.size());
     }},
};

constexpr const char* kScalarTwin = "scalar";

// `target` is a Highway target name, or kScalarTwin for the scalar twin.
void KernelCall(benchmark::State& state, const Kernel& kernel, const std::string& target,
                size_t vocab) {
  const bool twin = target == kScalarTwin;
  if (!twin && !testing::force_target(target)) {
    state.SkipWithError(("cannot force target " + target).c_str());
    return;
  }
  const Inputs& in = InputsFor(vocab);
  Scratch scratch(in);
  const Call call = twin ? kernel.scalar : kernel.simd;
  for (auto _ : state) {
    benchmark::DoNotOptimize(call(in, scratch));
  }
  testing::force_target("");
  state.counters["logits"] = benchmark::Counter(
      static_cast<double>(vocab), benchmark::Counter::kIsIterationInvariantRate);
  if (kernel.per_token) {
    state.counters["tokens"] =
        benchmark::Counter(1, benchmark::Counter::kIsIterationInvariantRate);
  }
}

const int kRegistered = [] {
  std::vector<std::string> targets;
  for (const TargetInfo& t : compiled_targets()) {
    if (t.supported) targets.push_back(t.name);
  }
  targets.push_back(kScalarTwin);
  for (const Kernel& kernel : kKernels) {
    for (const std::string& target : targets) {
      for (size_t vocab : kBenchVocabs) {
        benchmark::RegisterBenchmark(("Kernel/" + std::string(kernel.name) + "/" +
                                      target + "/" + std::to_string(vocab))
                                         .c_str(),
                                     [&kernel, target, vocab](benchmark::State& s) {
                                       KernelCall(s, kernel, target, vocab);
                                     })
            ->Unit(benchmark::kMicrosecond);
      }
    }
  }
  return 0;
}();

}  // namespace
}  // namespace exactsample
