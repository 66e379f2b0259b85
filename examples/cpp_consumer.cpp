// A C++ runtime's view of exactsample: a batch of requests decoded together,
// each with its own parameters and generator, one token per row per step.
#include <exactsample/batch.hpp>
#include <exactsample/exactsample.hpp>

#include <cmath>
#include <cstdio>
#include <vector>

int main() {
  constexpr size_t kVocab = 50000, kRows = 4, kSteps = 8;
  std::vector<float> logits(kRows * kVocab);
  std::vector<exactsample::Pcg32> rngs;
  std::vector<std::vector<int32_t>> generated(kRows);
  std::vector<exactsample::SamplingParams> params(kRows);
  for (size_t r = 0; r < kRows; ++r) {
    rngs.push_back(exactsample::stream(1000 + r, exactsample::Purpose::sample));
    params[r].temperature = 0.5 + 0.25 * static_cast<double>(r);
    params[r].top_k = r % 2 == 0 ? 40 : 0;
    params[r].top_p = 0.9;
  }
  params[3].temperature = 0.0;  // one greedy request

  exactsample::BatchWorkspace ws;
  std::vector<exactsample::Result<exactsample::Token>> results;
  for (size_t step = 0; step < kSteps; ++step) {
    std::vector<exactsample::BatchRow> rows;
    for (size_t r = 0; r < kRows; ++r) {
      float* row = &logits[r * kVocab];
      const int32_t last = generated[r].empty() ? 0 : generated[r].back();
      for (size_t i = 0; i < kVocab; ++i) {
        row[i] = static_cast<float>(3.0 * std::cos(0.0007 * static_cast<double>(i * (last + r + 1))));
      }
      rows.push_back({{{row, kVocab}, {}, generated[r], params[r]}, &rngs[r]});
    }
    exactsample::sample_batch(rows, results, ws, {exactsample::Engine::fast});
    for (size_t r = 0; r < kRows; ++r) {
      if (!results[r]) {
        std::fprintf(stderr, "row %zu: %s\n", r, results[r].error().message.c_str());
        return 1;
      }
      generated[r].push_back(results[r]->id);
    }
  }
  for (size_t r = 0; r < kRows; ++r) {
    std::printf("request %zu:", r);
    for (int32_t id : generated[r]) std::printf(" %d", id);
    std::printf("  (generator draws: %llu)\n",
                static_cast<unsigned long long>(rngs[r].draws_u32()));
  }
  return 0;
}
