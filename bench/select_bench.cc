// Speed of the max, top-k and filter kernels against their scalar twins on
// one thread, for a standard row: V = 128256, f32 N(0, 1.5^2) with 20 ids
// raised by 8..14; TopK with k = 40 and divisor 0.8; ZeroAfter at that
// top-k cut; MinPFilter with m = 0.05 over the whole row.
//
// Not part of the CMake build; from the repository root, after a build:
//   g++ -O3 -std=c++20 -ffp-contract=off -fno-builtin-exp -I. \
//     bench/select_bench.cc build/libexactsample.a -lhwy -fopenmp \
//     -o /tmp/select_bench && /tmp/select_bench
// Prints ns per element (of V), the minimum over 200 repetitions.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <functional>
#include <random>
#include <vector>

#include "hwy/targets.h"
#include "scalar_ref/filter.hpp"
#include "scalar_ref/max.hpp"
#include "scalar_ref/topk.hpp"
#include "simd/filter.hpp"
#include "simd/max.hpp"
#include "simd/topk.hpp"
#include "tests/logit_rows.hpp"

namespace {

using namespace exactsample;

constexpr size_t kV = 128256;
constexpr double kDivisor = 0.8;
constexpr size_t kK = 40;
constexpr double kMinP = 0.05;

struct Data {
  std::vector<float> x;
  std::vector<double> l, e;  // e = exp(t - M) over the whole row
  double z = 0.0;
  double t_cut = 0.0;
  int32_t id_cut = 0;
};

Data MakeData() {
  std::mt19937_64 rng(42);
  Data data;
  data.x = test::NormalRowF32(kV, rng);
  data.l.assign(data.x.begin(), data.x.end());
  const double m = scalar_ref::Max(data.l.data(), kV) / kDivisor;
  for (double v : data.l) data.e.push_back(std::exp(v / kDivisor - m));
  for (double v : data.e) data.z += v;
  std::vector<int32_t> top(kK);
  scalar_ref::TopK(data.l.data(), kDivisor, kV, kK, top.data());
  data.id_cut = top[kK - 1];
  data.t_cut = scalar_ref::Tempered(data.l[data.id_cut], kDivisor);
  return data;
}

// ns per element of `run`, after `prepare` (not timed) each repetition.
double NsPerElement(const std::function<void()>& prepare,
                    const std::function<void()>& run) {
  double best = 1e30;
  for (int rep = 0; rep < 200; ++rep) {
    prepare();
    const auto start = std::chrono::steady_clock::now();
    run();
    const auto stop = std::chrono::steady_clock::now();
    best = std::min(
        best, std::chrono::duration<double, std::nano>(stop - start).count());
  }
  return best / static_cast<double>(kV);
}

struct Kernel {
  const char* name;
  std::function<void()> prepare, simd, twin;
};

}  // namespace

int main() {
  Data data = MakeData();
  std::vector<double> l(kV), e(kV);
  std::vector<int32_t> out(kV), scratch(simd::TopKScratchSize(kV));
  volatile size_t sink = 0;
  const double threshold = kMinP * (1.0 / data.z);
  auto nothing = [] {};
  auto fresh_e = [&] { std::copy(data.e.begin(), data.e.end(), e.begin()); };
  const Kernel kernels[] = {
      {"WidenMax", nothing,
       [&] { sink = sink + simd::WidenMax(data.x.data(), kV, l.data()).bad; },
       [&] {
         sink = sink + scalar_ref::WidenMax(data.x.data(), kV, l.data()).bad;
       }},
      {"Argmax", nothing,
       [&] { sink = sink + simd::Argmax(data.l.data(), kV); },
       [&] { sink = sink + scalar_ref::Argmax(data.l.data(), kV); }},
      {"TopK k=40", nothing,
       [&] {
         sink = sink + simd::TopK(data.l.data(), kDivisor, kV, kK, out.data(),
                                  scratch);
       },
       [&] {
         sink = sink +
                scalar_ref::TopK(data.l.data(), kDivisor, kV, kK, out.data());
       }},
      {"TopK k=1000", nothing,
       [&] {
         sink = sink + simd::TopK(data.l.data(), kDivisor, kV, 1000, out.data(),
                                  scratch);
       },
       [&] {
         sink = sink +
                scalar_ref::TopK(data.l.data(), kDivisor, kV, 1000, out.data());
       }},
      {"TopK k=V-1", nothing,
       [&] {
         sink = sink + simd::TopK(data.l.data(), kDivisor, kV, kV - 1,
                                  out.data(), scratch);
       },
       [&] {
         sink = sink + scalar_ref::TopK(data.l.data(), kDivisor, kV, kV - 1,
                                        out.data());
       }},
      {"ZeroAfter", fresh_e,
       [&] {
         sink = sink + simd::ZeroAfter(data.l.data(), kDivisor, e.data(), kV,
                                       data.t_cut, data.id_cut);
       },
       [&] {
         sink = sink + scalar_ref::ZeroAfter(data.l.data(), kDivisor, e.data(),
                                             kV, data.t_cut, data.id_cut);
       }},
      {"MinPFilter", fresh_e,
       [&] { sink = sink + simd::MinPFilter(e.data(), kV, data.z, threshold); },
       [&] {
         sink = sink + scalar_ref::MinPFilter(e.data(), kV, data.z, threshold);
       }},
  };
  const int64_t targets[] = {HWY_AVX3, HWY_AVX2, HWY_SSE4};
  std::printf("ns per element, V = %zu\n%-12s %8s", kV, "kernel", "twin");
  for (int64_t t : targets) std::printf(" %8s", hwy::TargetName(t));
  std::printf("\n");
  for (const Kernel& k : kernels) {
    std::printf("%-12s %8.3f", k.name, NsPerElement(k.prepare, k.twin));
    for (int64_t t : targets) {
      hwy::SetSupportedTargetsForTest(t);
      std::printf(" %8.3f", NsPerElement(k.prepare, k.simd));
    }
    hwy::SetSupportedTargetsForTest(0);
    std::printf("\n");
  }
  return 0;
}
