#include "tools/cli/bench_speculative.hpp"
#include "tools/cli/commands.hpp"

#include <algorithm>
#include <cstdio>
#include <iostream>
#include <memory>
#include <optional>
#include <nlohmann/json.hpp>

#include "exactsample/speculative.hpp"
#include "exactsample/targets.hpp"
#include "exactsample/testing.hpp"
#include "tools/cli/bench_cells.hpp"
#include "tools/cli/bench_row.hpp"
#include "tools/lib/platform.hpp"
#include "tools/lib/standard_inputs.hpp"

namespace exactsample::cli {
namespace {

int SpeculativeUsageError(const std::string& message) {
  return UsageError("bench", "--speculative: " + message);
}

// x with noise uniform in [-spread, spread] on every finite logit, from a
// fixed generator.
std::vector<float> Near(const std::vector<float>& x, double spread, Pcg32& g) {
  std::vector<float> y = x;
  for (float& v : y) {
    if (std::isfinite(v)) v += static_cast<float>(spread * (2.0 * g.uniform_f64() - 1.0));
  }
  return y;
}

// Everything the two cells read, alive until the end.
struct Rows {
  std::vector<std::vector<float>> target, draft;
  std::vector<std::span<const float>> target_spans, draft_spans;
  std::vector<int32_t> ids;
  std::vector<std::vector<int32_t>> histories;  // h_j: the first j drafts
};

}  // namespace

int BenchSpeculative(const BenchOptions& o) {
  if (o.batch > 0 || !o.history.empty() || o.Extras() || o.dtypes != std::vector<std::string>{"f32"}) {
    return SpeculativeUsageError(
        "times single f32 calls: drop --batch, --history, --bias, --mask, "
        "--top-logprobs and --dtype");
  }
  if (o.configs.size() > 1 || o.threads.size() > 1) {
    return SpeculativeUsageError("times one configuration at one thread count");
  }
  const std::string config = o.configs.empty() ? "plain" : o.configs[0];
  const auto c = std::find_if(StandardConfigs().begin(), StandardConfigs().end(),
                              [&](const StandardConfig& s) { return s.name == config; });
  if (c == StandardConfigs().end())
    return SpeculativeUsageError("--config " + config + " is not an engine row");
  auto read = BenchRowOf(o.logits, o.vocab, o.row_seed);
  if (!read) return SpeculativeUsageError(read.error().message);
  std::vector<float> logits = std::move(read.value());
  if (auto r = testing::force_target(o.target); !r) return SpeculativeUsageError(r.error().message);
  std::string target = "scalar";
  const Engine engine = o.engine == "reference" ? Engine::reference : Engine::fast;
  for (const TargetInfo& t : compiled_targets()) {
    if (t.active && engine == Engine::fast) target = t.name;
  }
  const SampleOptions options{.engine = engine, .logprob = o.logprob, .threads = o.threads[0]};

  const size_t gamma = o.speculative;
  auto rows = std::make_shared<Rows>();
  Pcg32 noise = stream(kStandardRowSeed, Purpose::shuffle);
  Workspace ws;
  for (size_t j = 0; j <= gamma; ++j) rows->target.push_back(Near(logits, 0.01, noise));
  for (size_t j = 0; j < gamma; ++j) {
    rows->draft.push_back(Near(rows->target[j], 0.05, noise));
    rows->histories.push_back(rows->ids);
    const auto q = distribution({rows->draft[j], {}, rows->ids, c->params}, ws, options);
    if (!q) return SpeculativeUsageError(q.error().message);
    rows->ids.push_back(std::max_element(q->begin(), q->end(), [](const KeptProb& a,
                                                                   const KeptProb& b) {
                          return a.q < b.q;
                        })->id);
  }
  rows->histories.push_back(rows->ids);
  rows->target_spans.assign(rows->target.begin(), rows->target.end());
  rows->draft_spans.assign(rows->draft.begin(), rows->draft.end());
  const Drafts drafts{rows->target_spans, rows->draft_spans, rows->ids, std::nullopt};
  const Request request{{}, {}, {}, c->params};

  // The first seed that accepts every draft (else seed 0), and the first
  // that rejects the first draft (the residual's cost), if any.
  uint64_t seed = 0;
  std::optional<uint64_t> rejecting;
  Verified probe;
  for (uint64_t s = 0; s < 1000 && (probe.accepted != gamma || !rejecting); ++s) {
    Pcg32 g = stream(s, Purpose::sample);
    auto v = verify(request, drafts, g, ws, options);
    if (!v) return SpeculativeUsageError(v.error().message);
    if (v->accepted == 0 && v->draws == 2 && !rejecting) rejecting = s;
    if (probe.accepted == gamma) continue;
    if (s == 0 || v->accepted == gamma) {
      seed = s;
      probe = std::move(v.value());
    }
  }

  const int iters = engine == Engine::fast ? o.iters : std::max(3, o.iters / 10);
  std::vector<Cell> cells;
  const BenchRow row{config, o.engine == "reference" ? "reference" : "fast", target,
                     o.threads[0], iters};
  cells.push_back({row,
                   [rows, drafts, request, options, seed, w = std::make_shared<Workspace>()] {
                     Pcg32 g = stream(seed, Purpose::sample);
                     verify(request, drafts, g, *w, options);
                   },
                   {}});
  cells.push_back({row,
                   [rows, request, options, gamma, w = std::make_shared<Workspace>()] {
                     Pcg32 g = stream(1, Purpose::sample);
                     for (size_t j = 0; j <= gamma; ++j) {
                       sample({rows->target[j], {}, rows->histories[j], request.params}, g, *w,
                              options);
                     }
                     for (size_t j = 0; j < gamma; ++j) {
                       sample({rows->draft[j], {}, rows->histories[j], request.params}, g, *w,
                              options);
                     }
                   },
                   {}});
  if (rejecting) {
    cells.push_back({row,
                     [rows, drafts, request, options, s = *rejecting,
                      w = std::make_shared<Workspace>()] {
                       Pcg32 g = stream(s, Purpose::sample);
                       verify(request, drafts, g, *w, options);
                     },
                     {}});
  }
  Measure(cells);
  const double ratio = cells[0].row.median_us / cells[1].row.median_us;
  const double ratio_min = cells[0].row.min_us / cells[1].row.min_us;
  const double rejected_ratio =
      rejecting ? cells[2].row.median_us / cells[1].row.median_us : 0.0;
  if (o.json) {
    nlohmann::ordered_json j{{"mode", "speculative"},
                             {"gamma", gamma},
                             {"config", config},
                             {"vocab", logits.size()},
                             {"engine", row.engine},
                             {"target", target},
                             {"threads", o.threads[0]},
                             {"iters", iters},
                             {"accepted", probe.accepted},
                             {"draws", probe.draws},
                             {"verify_median_us", cells[0].row.median_us},
                             {"verify_min_us", cells[0].row.min_us},
                             {"singles_median_us", cells[1].row.median_us},
                             {"singles_min_us", cells[1].row.min_us},
                             {"ratio_median", ratio},
                             {"ratio_min", ratio_min},
                             {"architecture", platform::Describe()}};
    if (rejecting) {  // the first draft rejected: 2 draws, one token
      j["rejected_seed"] = *rejecting;
      j["rejected_median_us"] = cells[2].row.median_us;
      j["rejected_ratio_median"] = rejected_ratio;
    }
    std::cout << j.dump() << "\n";
    return 0;
  }
  char buf[512];
  std::snprintf(buf, sizeof buf,
                "speculative verification: G = %zu, V = %zu, config %s, %s engine on %s, "
                "%d thread(s), %d calls each\n"
                "  the verification accepts %zu of %zu drafts (seed %llu), %llu draws\n"
                "  verify                 median %10.1f us   min %10.1f us\n"
                "  %2zu + %2zu single calls  median %10.1f us   min %10.1f us\n"
                "  verify / singles       median %10.3f      min %10.3f\n",
                gamma, logits.size(), config.c_str(), row.engine.c_str(), target.c_str(),
                o.threads[0], iters, probe.accepted, gamma,
                static_cast<unsigned long long>(seed),
                static_cast<unsigned long long>(probe.draws), cells[0].row.median_us,
                cells[0].row.min_us, gamma + 1, gamma, cells[1].row.median_us,
                cells[1].row.min_us, ratio, ratio_min);
  std::cout << buf;
  if (rejecting) {
    std::snprintf(buf, sizeof buf,
                  "  first draft rejected   median %10.1f us   (seed %llu: the residual, "
                  "2 draws)\n"
                  "  rejected / singles     median %10.3f\n",
                  cells[2].row.median_us, static_cast<unsigned long long>(*rejecting),
                  rejected_ratio);
    std::cout << buf;
  }
  return 0;
}

}  // namespace exactsample::cli
