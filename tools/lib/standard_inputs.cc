#include "tools/lib/standard_inputs.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>

#include "exactsample/pcg32.hpp"

namespace exactsample {

std::vector<float> StandardRow(size_t vocab, uint64_t seed) {
  Pcg32 rng = stream(seed, Purpose::init);
  std::vector<float> row(vocab);
  // Box-Muller; 1 - u keeps the log's argument in (0, 1].
  for (size_t i = 0; i < vocab; ++i) {
    const double u1 = 1.0 - rng.uniform_f64();
    const double u2 = rng.uniform_f64();
    const double normal =
        std::sqrt(-2.0 * std::log(u1)) * std::cos(2.0 * M_PI * u2);
    row[i] = static_cast<float>(1.5 * normal);
  }
  for (int peak = 0; peak < 20 && vocab > 0; ++peak) {
    const size_t id = rng.next_u32() % vocab;
    row[id] += static_cast<float>(8.0 + 6.0 * rng.uniform_f64());
  }
  return row;
}

const std::vector<StandardConfig>& StandardConfigs() {
  static const std::vector<StandardConfig> configs = [] {
    std::vector<StandardConfig> c(6);
    c[0].name = "plain";
    c[1].name = "topk40";
    c[1].params.top_k = 40;
    c[1].params.temperature = 0.8;
    c[2].name = "topp";
    c[2].params.top_p = 0.9;
    c[2].params.temperature = 0.8;
    c[3].name = "minp";
    c[3].params.min_p = 0.05;
    c[4].name = "full";
    c[4].params = {.temperature = 0.7,
                   .repetition_penalty = 1.1,
                   .presence_penalty = 0.2,
                   .frequency_penalty = 0.2,
                   .top_k = 40,
                   .top_p = 0.95,
                   .min_p = 0.05};
    c[4].history = 64;
    c[5].name = "greedy";
    c[5].params.temperature = 0.0;
    return c;
  }();
  return configs;
}

std::vector<int32_t> StandardHistory(size_t vocab, size_t length) {
  Pcg32 rng = stream(kStandardRowSeed, Purpose::shuffle);
  std::vector<int32_t> ids(length);
  for (auto& id : ids) id = static_cast<int32_t>(rng.next_u32() % vocab);
  return ids;
}

std::vector<int32_t> ZipfHistory(size_t vocab, size_t length) {
  Pcg32 rng = stream(kStandardRowSeed, Purpose::mutation);
  std::vector<int32_t> by_rank(vocab);
  std::iota(by_rank.begin(), by_rank.end(), 0);
  for (size_t i = vocab; i > 1; --i) {  // Fisher-Yates
    std::swap(by_rank[i - 1], by_rank[static_cast<size_t>(rng.uniform_f64() * i)]);
  }
  std::vector<double> cdf(vocab);
  double total = 0.0;
  for (size_t r = 0; r < vocab; ++r) cdf[r] = total += 1.0 / static_cast<double>(r + 1);
  std::vector<int32_t> ids(length);
  for (auto& id : ids) {
    const double u = rng.uniform_f64() * total;
    const size_t r = static_cast<size_t>(std::upper_bound(cdf.begin(), cdf.end(), u) - cdf.begin());
    id = by_rank[std::min(r, vocab - 1)];
  }
  return ids;
}

}  // namespace exactsample
