// Speed of the exact-sum family against the scalar twins, one thread, on
// rows like the engine's (V = 128256, logits f32(N(0, 1.5^2)), 20 ids raised
// by 8..14): ns per element for ExactSum, InverseCdf (mean over draws) and
// NucleusCut (p = 0.9), per Highway target. Not a test: run by hand, e.g.
//   g++ -O2 -std=c++20 -ffp-contract=off -fno-builtin-exp -I. -Ilib/include \
//     bench/walk_bench.cc build/libexactsample.a -lhwy -fopenmp -o walk_bench
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <random>
#include <vector>

#include "hwy/targets.h"
#include "scalar_ref/cdf.hpp"
#include "scalar_ref/exact_sum.hpp"
#include "scalar_ref/nucleus.hpp"
#include "simd/cdf.hpp"
#include "simd/exact_sum.hpp"
#include "simd/nucleus.hpp"

namespace {

struct Row {
  std::vector<double> l, e;
  double divisor, z;
};

Row MakeRow(size_t n, double temperature, unsigned seed) {
  std::mt19937_64 rng(seed);
  std::normal_distribution<double> normal(0.0, 1.5);
  std::uniform_real_distribution<double> raise(8.0, 14.0);
  Row row{std::vector<double>(n), std::vector<double>(n), temperature, 0.0};
  for (double& v : row.l) v = static_cast<float>(normal(rng));
  for (int k = 0; k < 20; ++k) {
    double& v = row.l[rng() % n];
    v = static_cast<float>(v + raise(rng));
  }
  double m = -INFINITY;
  for (double v : row.l) m = std::max(m, v / temperature);
  for (size_t i = 0; i < n; ++i) {
    row.e[i] = std::exp(row.l[i] / temperature - m);
    row.z += row.e[i];
  }
  return row;
}

// Minimum over repetitions of the mean time of one call, in ns per element.
template <class F>
double NsPerElement(size_t n, int calls, const F& f) {
  double best = INFINITY;
  for (int rep = 0; rep < 15; ++rep) {
    const auto start = std::chrono::steady_clock::now();
    for (int c = 0; c < calls; ++c) f(c);
    const std::chrono::duration<double, std::nano> took =
        std::chrono::steady_clock::now() - start;
    best = std::min(best, took.count() / calls / static_cast<double>(n));
  }
  return best;
}

volatile size_t sink;

void Measure(const Row& row, const char* target) {
  using namespace exactsample;
  const size_t n = row.l.size();
  std::vector<uint32_t> scratch(n);
  std::vector<double> draws(64);
  std::mt19937_64 rng(7);
  for (double& u : draws) u = std::uniform_real_distribution<double>(0, 1)(rng);
  const double sum_s = NsPerElement(n, 20, [&](int) {
    sink = static_cast<size_t>(scalar_ref::ExactSum(row.e.data(), n));
  });
  const double sum_v = NsPerElement(n, 20, [&](int) {
    sink = static_cast<size_t>(simd::ExactSum(row.e.data(), n));
  });
  const double cdf_s = NsPerElement(n, 64, [&](int c) {
    sink = scalar_ref::InverseCdf(row.e.data(), n, row.z, draws[c]);
  });
  const double cdf_v = NsPerElement(n, 64, [&](int c) {
    sink = simd::InverseCdf(row.e.data(), n, row.z, draws[c]);
  });
  const double cut_s = NsPerElement(n, 1, [&](int) {
    sink = scalar_ref::NucleusCut(row.l.data(), row.divisor, row.e.data(), n,
                                  row.z, 0.9)
               .kept;
  });
  const double cut_v = NsPerElement(n, 10, [&](int) {
    sink = simd::NucleusCut(row.l.data(), row.divisor, row.e.data(), n, row.z,
                            0.9, scratch)
               .kept;
  });
  const auto cut = simd::NucleusCut(row.l.data(), row.divisor, row.e.data(), n,
                                    row.z, 0.9, scratch);
  std::printf(
      "%-6s T=%-4g kept %6zu | ExactSum %.3f (scalar %.3f) | InverseCdf %.3f "
      "(scalar %.3f) | NucleusCut %.3f (scalar %.3f) ns/element\n",
      target, row.divisor, cut.kept, sum_v, sum_s, cdf_v, cdf_s, cut_v, cut_s);
}

}  // namespace

int main() {
  const size_t n = 128256;
  for (double temperature : {0.8, 1.0, 20.0}) {
    const Row row = MakeRow(n, temperature, 1);
    for (int64_t target : hwy::SupportedAndGeneratedTargets()) {
      if (target != HWY_AVX2 && target != HWY_AVX3) continue;
      hwy::SetSupportedTargetsForTest(target);
      Measure(row, hwy::TargetName(target));
    }
    hwy::SetSupportedTargetsForTest(0);
  }
}
