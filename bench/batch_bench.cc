// Batch/fast/<config>/threads:<N>/<V>: sample_batch over 8 rows, each its
// own copy of the standard row with its own generator, across N
// threads (the `threads` argument of sample_batch, not Google Benchmark's
// threads; N = 4 oversubscribes a 2-core machine). Read the Time column
// (wall-clock) and the counters logits and tokens per wall-clock second,
// not the CPU column.
#include <benchmark/benchmark.h>

#include <chrono>
#include <string>
#include <vector>

#include "bench/vocabs.hpp"
#include "exactsample/batch.hpp"
#include "tools/lib/standard_inputs.hpp"

namespace exactsample {
namespace {

constexpr size_t kRows = 8;
constexpr int kThreadCounts[] = {1, 2, 4};

void BatchCall(benchmark::State& state, const StandardConfig& config, size_t vocab,
               int threads) {
  const std::vector<float> row = StandardRow(vocab);
  const std::vector<int32_t> history = StandardHistory(vocab, config.history);
  std::vector<std::vector<float>> logits(kRows, row);
  std::vector<Pcg32> rngs;
  for (size_t i = 0; i < kRows; ++i) rngs.push_back(stream(i, Purpose::sample));
  std::vector<BatchRow> rows;
  for (size_t i = 0; i < kRows; ++i) {
    rows.push_back({Request{logits[i], {}, history, config.params}, &rngs[i]});
  }
  BatchWorkspace ws;
  std::vector<Result<Token>> results;
  const auto start = std::chrono::steady_clock::now();
  for (auto _ : state) {
    sample_batch(rows, results, ws, {Engine::fast}, threads);
    benchmark::DoNotOptimize(results.data());
  }
  // Google Benchmark's rate counters divide by the main thread's CPU time,
  // which is not the batch's wall-clock time with helper threads, and its
  // UseRealTime() would append "/real_time" to the name.
  const std::chrono::duration<double> wall = std::chrono::steady_clock::now() - start;
  const double rows_per_s =
      static_cast<double>(state.iterations() * kRows) / wall.count();
  state.counters["logits"] = rows_per_s * static_cast<double>(vocab);
  state.counters["tokens"] = rows_per_s;
}

const int kRegistered = [] {
  for (const StandardConfig& config : StandardConfigs()) {
    for (int threads : kThreadCounts) {
      for (size_t vocab : kBenchVocabs) {
        benchmark::RegisterBenchmark(
            ("Batch/fast/" + config.name + "/threads:" + std::to_string(threads) + "/" +
             std::to_string(vocab))
                .c_str(),
            [&config, vocab, threads](benchmark::State& s) {
              BatchCall(s, config, vocab, threads);
            })
            ->Unit(benchmark::kMicrosecond);
      }
    }
  }
  return 0;
}();

}  // namespace
}  // namespace exactsample
