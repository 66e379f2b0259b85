// `exactsample bench`: one cell per printed row, each timed one call at a
// time, the cells interleaved so that drift on a shared machine and the
// cache state a call starts from hit every row alike.
#include "tools/cli/bench.hpp"
#include "tools/cli/commands.hpp"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <iostream>
#include <list>
#include <memory>
#include <optional>
#include <thread>
#include <utility>

#include "exactsample/batch.hpp"
#include "exactsample/targets.hpp"
#include "exactsample/testing.hpp"
#include "scalar_ref/twins/half.hpp"
#include "tools/lib/floor_pass.hpp"
#include "tools/lib/half_rows.hpp"
#include "tools/lib/standard_inputs.hpp"
#include "tools/cli/bench_history.hpp"
#include "tools/cli/bench_cells.hpp"
#include "tools/cli/bench_report.hpp"
#include "tools/cli/bench_row.hpp"
#include "tools/cli/bench_speculative.hpp"

namespace exactsample::cli {
namespace {

std::string BestTarget() {
  for (const TargetInfo& t : compiled_targets()) {
    if (t.active) return t.name;
  }
  return "";
}

// Timed calls of a reference row for `iters` of the others: the reference
// is much slower, and a tenth of the calls keeps the default run short.
int ReferenceIters(int iters) { return std::max(3, iters / 10); }

// Threads that spin until destroyed: other work on the same cores.
class BusyThreads {
 public:
  explicit BusyThreads(int count) {
    for (int i = 0; i < count; ++i) {
      threads_.emplace_back([this] {
        uint64_t x = 1;
        while (!stop_.load(std::memory_order_relaxed)) {
          for (int k = 0; k < 1000; ++k) x = x * 6364136223846793005ULL + 1;
          sink_.store(x, std::memory_order_relaxed);
        }
      });
    }
  }
  ~BusyThreads() {
    stop_.store(true);
    for (std::thread& t : threads_) t.join();
  }

 private:
  std::atomic<bool> stop_{false};
  std::atomic<uint64_t> sink_{0};
  std::vector<std::thread> threads_;
};

// The bias, mask and top-N of --bias, --mask and --top-logprobs: biases of
// +-1 on ids spread evenly over the row, a bitmask allowing every id whose
// hash falls below the fraction (the largest logit's id always).
struct Extras {
  std::vector<int32_t> bias_ids;
  std::vector<double> bias_values;
  std::vector<uint32_t> bits;
  int64_t top_logprobs = 0;

  Request With(Request r) const {
    r.bias = {bias_ids, bias_values};
    r.mask.allowed_bits = bits;
    r.params.top_logprobs = top_logprobs;
    return r;
  }
};

Extras MakeExtras(const BenchOptions& o, std::span<const float> logits) {
  Extras e;
  const size_t n = logits.size();
  for (size_t j = 0; j < std::min(o.bias, n); ++j) {
    e.bias_ids.push_back(static_cast<int32_t>(j * n / std::min(o.bias, n)));
    e.bias_values.push_back(j % 2 ? 1.0 : -1.0);
  }
  if (o.mask > 0.0) {
    e.bits.assign((n + 31) / 32, 0);
    const auto top = static_cast<size_t>(std::max_element(logits.begin(), logits.end()) -
                                         logits.begin());
    for (size_t i = 0; i < n; ++i) {
      const double h = static_cast<double>(mix64(i) >> 11) * 0x1p-53;
      if (h < o.mask || i == top) e.bits[i / 32] |= uint32_t{1} << (i % 32);
    }
  }
  e.top_logprobs = o.top_logprobs;
  return e;
}

// --chain: a preset's name, or step names separated by commas (one word
// that names no step is taken as a preset's name).
Result<Chain> ChainOption(const std::string& text) {
  if (text.empty()) return Chain{};
  std::vector<std::string_view> names;
  for (size_t at = 0; at <= text.size();) {
    const size_t end = std::min(text.find(',', at), text.size());
    names.emplace_back(text.data() + at, end - at);
    at = end + 1;
  }
  if (names.size() == 1 && !chain_from_names(names)) return chain_from_preset(text);
  return chain_from_names(names);
}

// The parameters --history times a configuration with: its own, and its
// penalties off too when it has any ("<config>-nopen").
std::vector<std::pair<std::string, SamplingParams>> Variants(const StandardConfig& c) {
  std::vector<std::pair<std::string, SamplingParams>> out{{c.name, c.params}};
  const SamplingParams& p = c.params;
  if (p.repetition_penalty != 1.0 || p.presence_penalty != 0.0 || p.frequency_penalty != 0.0) {
    SamplingParams off = p;
    off.repetition_penalty = 1.0;
    off.presence_penalty = off.frequency_penalty = 0.0;
    out.emplace_back(c.name + "-nopen", off);
  }
  return out;
}

}  // namespace

int Bench(const BenchOptions& o) {
  if (o.speculative > 0) return BenchSpeculative(o);
  if (!o.history.empty() && o.batch > 0) {
    return UsageError("bench", "--history times single calls through a Sequence; drop --batch");
  }
  auto read = BenchRowOf(o.logits, o.vocab, o.row_seed);
  if (!read) return UsageError("bench", read.error().message);
  std::vector<float> logits = std::move(read.value());
  if (auto r = testing::force_target(o.target); !r) return UsageError("bench", r.error().message);
  const std::string target = o.target.empty() ? BestTarget() : o.target;
  const auto listed = [&](const std::string& config) {
    return o.configs.empty() ||
           std::find(o.configs.begin(), o.configs.end(), config) != o.configs.end();
  };
  // The floor is the yardstick of fast/floor: it comes with any fast row.
  const bool fast_rows =
      o.engine != "reference" &&
      std::any_of(StandardConfigs().begin(), StandardConfigs().end(),
                  [&](const StandardConfig& c) { return listed(c.name); });
  const auto wanted = [&](const std::string& config) {
    return listed(config) || (config == "floor" && fast_rows);
  };

  // With 16-bit types listed, every type times the same values: the row
  // rounded to the coarsest listed (bf16, else f16; bf16 values of a row's
  // range are f16 values too), widened back for the f32 rows and the floor.
  for (LogitType coarse : {LogitType::bf16, LogitType::f16}) {
    if (std::find(o.dtypes.begin(), o.dtypes.end(), tools::TypeName(coarse)) !=
        o.dtypes.end()) {
      for (float& x : logits) {
        const uint16_t w = coarse == LogitType::bf16 ? tools::F32ToBf16(x) : tools::F32ToF16(x);
        x = twins::Widen16(w, coarse);
      }
      break;
    }
  }
  // What the cells' calls use; kept here, alive and in place, until the end.
  std::vector<double> floor_l(logits.size());
  const Extras extras = MakeExtras(o, logits);
  std::list<std::vector<int32_t>> histories;
  // The row in each 16-bit type asked for, rounded from the f32 row.
  std::list<std::vector<uint16_t>> half_rows;
  std::vector<std::pair<LogitType, std::span<const uint16_t>>> types;
  for (const std::string& name : o.dtypes) {
    const LogitType type = *tools::ParseType(name);
    if (std::any_of(types.begin(), types.end(), [&](const auto& t) { return t.first == type; })) {
      continue;  // listed twice: timed once
    }
    std::span<const uint16_t> words;
    if (type != LogitType::f32) {
      words = half_rows.emplace_back(tools::NarrowRow(logits, type));
      Request rounded{{}, {}, {}, {}};
      rounded.logits16 = words;
      rounded.logits_type = type;
      if (auto v = validate(rounded); !v) {
        return UsageError(
            "bench", "--dtype " + name + ": the row rounded to " + name + ": " + v.error().message);
      }
    }
    types.emplace_back(type, words);
  }
  std::vector<Cell> cells;
  const auto floor_cell = [&](const char* config, FloorKernels kernels) {
    const bool simd = kernels == FloorKernels::simd;
    cells.push_back(
        {{config, simd ? "fast" : "scalar", simd ? target : "scalar", 1, o.iters},
         [&logits, &floor_l, kernels] { FloorPass(logits, floor_l.data(), kernels); },
         {}});
  };
  if (wanted("floor")) floor_cell("floor", FloorKernels::simd);
  if (wanted("floor-scalar")) floor_cell("floor-scalar", FloorKernels::scalar);

  // What the configurations are timed as: the stateless call with their
  // own history, or with --history through a Sequence holding each length.
  struct Timed {
    std::string name;
    SamplingParams params;
    int64_t length;  // -1: stateless
    std::span<const int32_t> history;
  };
  std::vector<Timed> timed;
  for (const StandardConfig& c : StandardConfigs()) {
    if (!wanted(c.name)) continue;
    if (o.history.empty()) {
      timed.push_back(
          {c.name, c.params, -1, histories.emplace_back(StandardHistory(logits.size(), c.history))});
      continue;
    }
    for (const auto& [name, params] : Variants(c)) {
      for (const int64_t length : o.history) timed.push_back({name, params, length, {}});
    }
  }
  // Each configuration in each chain, with the samplers it adds.
  const std::vector<std::string> chains =
      o.chains.empty() ? std::vector<std::string>{""} : o.chains;
  std::vector<Timed> chained;
  for (const std::string& text : chains) {
    const size_t plus = std::min(text.find('+'), text.size());
    const Result<Chain> chain = ChainOption(text.substr(0, plus));
    if (!chain) return UsageError("bench", "--chain: " + chain.error().message);
    SamplingParams added;
    for (size_t at = plus; at < text.size();) {
      const size_t end = std::min(text.find('+', at + 1), text.size());
      const std::string name = text.substr(at + 1, end - at - 1);
      if (name == "dry") {
        added.dry_multiplier = o.dry_multiplier;
      } else if (name == "top_n_sigma") {
        added.top_n_sigma = o.top_n_sigma;
      } else if (name == "typical") {
        added.typical_p = o.typical_p;
      } else if (name == "xtc") {
        added.xtc_probability = o.xtc_probability;
        added.xtc_threshold = o.xtc_threshold;
      } else {
        return UsageError("bench", "--chain " + text + ": '+" + name +
                                       "': not +dry, +top_n_sigma, +typical or +xtc");
      }
      at = end;
    }
    for (Timed t : timed) {
      t.params.chain = *chain;
      t.params.dry_multiplier = added.dry_multiplier;
      t.params.top_n_sigma = added.top_n_sigma;
      t.params.typical_p = added.typical_p;
      t.params.xtc_probability = added.xtc_probability;
      t.params.xtc_threshold = added.xtc_threshold;
      if (auto ok = validate(Request{logits, {}, t.history, t.params}); !ok) {
        return UsageError(
            "bench", "--chain " + text + " with --config " + t.name + ": " + ok.error().message);
      }
      if (chains.size() > 1) t.name += "@" + text;
      chained.push_back(std::move(t));
    }
  }
  timed = std::move(chained);
  std::optional<Error> refused;
  for (const Timed& t : timed) {
    Request plain_request{logits, {}, t.history, t.params};
    const auto engine_cell = [&](Engine engine, int threads, bool with_extras = false) {
      const bool fast = engine == Engine::fast;
      SampleOptions options{engine};
      options.logprob = o.logprob;
      const Request request = with_extras ? extras.With(plain_request) : plain_request;
      const BenchRow row{t.name + std::string(with_extras ? "+" : ""),
                         fast ? "fast" : "reference",
                         fast ? target : "scalar",
                         threads,
                         fast ? o.iters : ReferenceIters(o.iters),
                         0.0,
                         0.0,
                         tools::TypeName(request.logits_type),
                         t.length};
      if (t.length >= 0) {
        options.threads = threads;
        auto call = SequenceCall(request, static_cast<size_t>(t.length), options);
        if (!call) {
          refused = call.error();
          return;
        }
        cells.push_back({row, *call, {}});
        return;
      }
      if (o.batch == 0) {
        options.threads = threads;
        // Each row its own workspace, as a runtime keeps one per sequence:
        // a row split across threads finds its buffers where its threads
        // left them, not in the cache of the core that ran another row.
        cells.push_back({row,
                         [request, options, ws = std::make_shared<Workspace>(),
                          rng = stream(1, Purpose::sample)]() mutable {
                           sample(request, rng, *ws, options);
                         },
                         {}});
        return;
      }
      // Each row its own generator; `threads` spreads the rows.
      struct Batch {
        std::vector<Pcg32> rngs;
        std::vector<BatchRow> rows;
        std::vector<Result<Token>> results;
        BatchWorkspace workspace;
      };
      auto batch = std::make_shared<Batch>();
      for (size_t r = 0; r < o.batch; ++r) batch->rngs.push_back(stream(r, Purpose::sample));
      for (Pcg32& rng : batch->rngs) batch->rows.push_back({request, &rng});
      cells.push_back({row,
                       [batch, options, threads] {
                         sample_batch(batch->rows, batch->results, batch->workspace,
                                      options, threads);
                       },
                       {},
                       o.batch});
    };
    for (const auto& [type, words] : types) {
      plain_request.logits = type == LogitType::f32 ? std::span<const float>(logits)
                                                    : std::span<const float>();
      plain_request.logits16 = words;
      plain_request.logits_type = type;
      if (o.engine != "fast") engine_cell(Engine::reference, 1);
      if (o.engine != "reference") {
        for (int threads : o.threads) engine_cell(Engine::fast, threads);
        if (o.Extras()) engine_cell(Engine::fast, o.threads.front(), true);
      }
    }
  }
  if (refused) return UsageError("bench", "--history: " + refused->message);
  {
    const BusyThreads busy(o.contend);
    Measure(cells);
  }
  BenchRun run{o.logits.empty() ? "standard row" : o.logits,
               logits.size(),
               o.logprob,
               o.batch,
               o.contend,
               {}};
  for (const Cell& c : cells) run.rows.push_back(c.row);
  if (o.json) {
    PrintJson(run);
  } else {
    PrintTable(run);
  }
  return 0;
}

}  // namespace exactsample::cli
