// Sample/<engine>/<config>/<V>: the whole sample call on the standard row,
// per engine and standard configuration.
#include <benchmark/benchmark.h>

#include <string>

#include "bench/vocabs.hpp"
#include "exactsample/exactsample.hpp"
#include "tools/lib/standard_inputs.hpp"

namespace exactsample {
namespace {

void SampleCall(benchmark::State& state, Engine engine,
                const StandardConfig& config, size_t vocab) {
  const std::vector<float> logits = StandardRow(vocab);
  const std::vector<int32_t> history = StandardHistory(vocab, config.history);
  const Request req{logits, {}, history, config.params};
  Workspace ws;
  Pcg32 rng = stream(1, Purpose::sample);
  for (auto _ : state) {
    const auto t = sample(req, rng, ws, {engine});
    benchmark::DoNotOptimize(t);
  }
  state.counters["logits"] = benchmark::Counter(
      static_cast<double>(vocab), benchmark::Counter::kIsIterationInvariantRate);
  state.counters["tokens"] =
      benchmark::Counter(1, benchmark::Counter::kIsIterationInvariantRate);
}

const int kRegistered = [] {
  for (Engine engine : {Engine::reference, Engine::fast}) {
    const std::string engine_name = engine == Engine::fast ? "fast" : "reference";
    for (const StandardConfig& config : StandardConfigs()) {
      for (size_t vocab : kBenchVocabs) {
        benchmark::RegisterBenchmark(
            ("Sample/" + engine_name + "/" + config.name + "/" +
             std::to_string(vocab)).c_str(),
            [=, &config](benchmark::State& s) { SampleCall(s, engine, config, vocab); })
            ->Unit(benchmark::kMicrosecond);
      }
    }
  }
  return 0;
}();

}  // namespace
}  // namespace exactsample

BENCHMARK_MAIN();
