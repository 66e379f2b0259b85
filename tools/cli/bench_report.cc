#include "tools/cli/bench_report.hpp"

#include <algorithm>
#include <cstdio>
#include <iostream>
#include <nlohmann/json.hpp>
#include <optional>

#include "tools/lib/platform.hpp"
#include "tools/lib/standard_inputs.hpp"

namespace exactsample::cli {
namespace {

// The first row of `config` and `engine` (for the fast engine, its first
// thread count; its first row type), or the one with `threads` (`dtype`).
std::optional<double> Median(const BenchRun& run, const std::string& config,
                             const std::string& engine, int threads = 0,
                             const std::string& dtype = "") {
  for (const BenchRow& r : run.rows) {
    if (r.config == config && r.engine == engine &&
        (threads == 0 || r.threads == threads) && (dtype.empty() || r.dtype == dtype)) {
      return r.median_us;
    }
  }
  return std::nullopt;
}

// The full-vocabulary max + exp + exact Z passes the spec needs for `p`:
// one for the logprob (before temperature), and one for a tempered softmax
// over every id (no top-k, not greedy) unless the logprob's serves it (T = 1).
int FloorPasses(const SamplingParams& p, size_t vocab, bool logprob) {
  const bool top_k = p.top_k > 0 && static_cast<size_t>(p.top_k) < vocab;
  const bool softmax_over_all = p.temperature != 0.0 && !top_k;
  const bool shared = logprob && p.temperature == 1.0;
  return (logprob ? 1 : 0) + (softmax_over_all && !shared ? 1 : 0);
}

std::string Ratio(std::optional<double> a, std::optional<double> b) {
  if (!a || !b) return "-";
  char text[32];
  std::snprintf(text, sizeof text, "%.2f", *a / *b);
  return text;
}

// The distinct values of `field` over the fast engine's configuration rows,
// in row order.
template <class Field>
auto FastValues(const BenchRun& run, Field field) {
  std::vector<decltype(field(run.rows.front()))> values;
  for (const BenchRow& r : run.rows) {
    if (r.engine == "fast" && r.config != "floor" &&
        std::find(values.begin(), values.end(), field(r)) == values.end()) {
      values.push_back(field(r));
    }
  }
  return values;
}

// Per configuration with a row at keys[0], a column per other key:
// cell(median at keys[0], median at the key), headed header(key).
template <class Key, class Header, class MedianAt, class Cell>
void PerConfigColumns(const std::vector<Key>& keys, Header header, MedianAt median,
                      Cell cell) {
  std::printf("%-13s", "config");
  for (size_t j = 1; j < keys.size(); ++j) std::printf(" %11s", header(keys[j]).c_str());
  std::printf("\n");
  for (const StandardConfig& c : StandardConfigs()) {
    const std::optional<double> base = median(c.name, keys.front());
    if (!base) continue;
    std::printf("%-13s", c.name.c_str());
    for (size_t j = 1; j < keys.size(); ++j) {
      std::printf(" %11s", cell(base, median(c.name, keys[j])).c_str());
    }
    std::printf("\n");
  }
}

// The distinct history lengths of the Sequence rows, in row order.
std::vector<int64_t> HistoryLengths(const BenchRun& run) {
  std::vector<int64_t> lengths;
  for (const BenchRow& r : run.rows) {
    if (r.history >= 0 && std::find(lengths.begin(), lengths.end(), r.history) == lengths.end()) {
      lengths.push_back(r.history);
    }
  }
  return lengths;
}

// Per Sequence row at the first length, a column per other length: the
// median of the row alike in all but its length, over its own.
void PrintHistoryRatios(const BenchRun& run, const std::vector<int64_t>& lengths) {
  if (lengths.size() < 2) return;
  std::printf("\nsequence path, median with N history ids / median with N = %lld\n",
              static_cast<long long>(lengths.front()));
  std::printf("%-13s %-10s %-5s %7s", "config", "engine", "dtype", "threads");
  for (size_t j = 1; j < lengths.size(); ++j) {
    std::printf(" %11s", ("N=" + std::to_string(lengths[j])).c_str());
  }
  std::printf("\n");
  for (const BenchRow& base : run.rows) {
    if (base.history != lengths.front()) continue;
    std::printf("%-13s %-10s %-5s %7d", base.config.c_str(), base.engine.c_str(),
                base.dtype.c_str(), base.threads);
    for (size_t j = 1; j < lengths.size(); ++j) {
      std::optional<double> other;
      for (const BenchRow& r : run.rows) {
        if (r.history == lengths[j] && r.config == base.config && r.engine == base.engine &&
            r.dtype == base.dtype && r.threads == base.threads) {
          other = r.median_us;
        }
      }
      std::printf(" %11s", Ratio(other, base.median_us).c_str());
    }
    std::printf("\n");
  }
}

}  // namespace

void PrintJson(const BenchRun& run) {
  const std::string emulator = platform::Emulator();
  for (const BenchRow& r : run.rows) {
    const nlohmann::ordered_json line{
        {"engine", r.engine},       {"config", r.config},   {"vocab", run.vocab},
        {"target", r.target},       {"threads", r.threads}, {"logprob", run.logprob},
        {"median_us", r.median_us}, {"min_us", r.min_us},   {"iters", r.iters},
        {"batch", run.batch},       {"contend", run.contend},  {"dtype", r.dtype},
        {"history", r.history < 0 ? nlohmann::ordered_json() : nlohmann::ordered_json(r.history)},
        {"architecture", platform::Architecture()},
        {"emulator", emulator.empty() ? nlohmann::ordered_json() : nlohmann::ordered_json(emulator)}};
    std::cout << line.dump() << "\n";
  }
}

void PrintTable(const BenchRun& run) {
  std::printf("exactsample bench: %s, V = %zu, logprob %s", run.source.c_str(),
              run.vocab, run.logprob ? "on" : "off");
  if (run.batch > 0) std::printf(", batches of %zu rows", run.batch);
  if (run.contend > 0) std::printf(", %d busy threads beside", run.contend);
  std::printf("\nmicroseconds per token, calls interleaved across rows, on %s\n",
              platform::Describe().c_str());
  if (!platform::Emulator().empty()) {
    std::printf("note: these are the emulator's times, not the hardware's\n");
  }
  std::printf("\n");
  const std::vector<int64_t> lengths = HistoryLengths(run);
  std::printf("%-13s %-10s %-7s %-5s %7s %12s %12s %7s%s\n", "config", "engine", "target",
              "dtype", "threads", "median_us", "min_us", "iters",
              lengths.empty() ? "" : "  history");
  for (const BenchRow& r : run.rows) {
    std::printf("%-13s %-10s %-7s %-5s %7d %12.2f %12.2f %7d", r.config.c_str(),
                r.engine.c_str(), r.target.c_str(), r.dtype.c_str(), r.threads, r.median_us,
                r.min_us, r.iters);
    if (lengths.empty()) {
    } else if (r.history < 0) {
      std::printf("%9s", "-");
    } else {
      std::printf("%9lld", static_cast<long long>(r.history));
    }
    std::printf("\n");
  }

  const std::optional<double> floor = Median(run, "floor", "fast");
  std::printf(
      "\nratios of medians; passes: the max + exp + Z passes over all V ids "
      "the spec needs\n");
  std::printf("%-13s %7s %11s %15s\n", "config", "passes", "fast/floor",
              "reference/fast");
  for (const StandardConfig& c : StandardConfigs()) {
    const std::optional<double> fast = Median(run, c.name, "fast");
    const std::optional<double> reference = Median(run, c.name, "reference");
    if (!fast && !reference) continue;
    std::printf("%-13s %7d %11s %15s\n", c.name.c_str(),
                FloorPasses(c.params, run.vocab, run.logprob), Ratio(fast, floor).c_str(),
                Ratio(reference, fast).c_str());
  }
  // Speed-up from the fast engine's first thread count to each other one.
  const std::vector<int> threads = FastValues(run, [](const BenchRow& r) { return r.threads; });
  if (threads.size() > 1) {
    std::printf("\nfast engine, median at %d threads / median at N threads\n",
                threads.front());
    PerConfigColumns(threads, [](int t) { return "N=" + std::to_string(t); },
                     [&](const std::string& config, int t) {
                       return Median(run, config, "fast", t);
                     },
                     [](auto base, auto other) { return Ratio(base, other); });
  }
  // Each row type against the first.
  const std::vector<std::string> dtypes =
      FastValues(run, [](const BenchRow& r) { return r.dtype; });
  if (dtypes.size() > 1) {
    std::printf("\nfast engine, median in each row type / median in %s\n",
                dtypes.front().c_str());
    PerConfigColumns(dtypes, [&](const std::string& d) { return d + "/" + dtypes[0]; },
                     [&](const std::string& config, const std::string& d) {
                       return Median(run, config, "fast", 0, d);
                     },
                     [](auto base, auto other) { return Ratio(other, base); });
  }
  PrintHistoryRatios(run, lengths);
  const std::optional<double> scalar = Median(run, "floor-scalar", "scalar");
  if (floor && scalar) {
    std::printf(
        "floor-scalar/floor %s: the max + exp + Z kernel against its scalar twin\n",
        Ratio(scalar, floor).c_str());
  }
}

}  // namespace exactsample::cli
