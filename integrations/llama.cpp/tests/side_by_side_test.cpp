// Side by side with llama.cpp's own samplers (docs/llama-samplers.md, "Side
// by side with llama.cpp"), on the real libllama: for each sampler alone and
// for llama.cpp's common chain with each one on, on synthetic rows and on
// the random-weight model's rows,
// - the kept set equals llama.cpp's survivors wherever llama.cpp's float
//   arithmetic does not decide it (Undecided below), and
// - kDraws tokens from each side agree under a chi-square test of
//   homogeneity at a threshold fixed here (kAlpha).
// Prints one line per configuration; exits 1 on any failure.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <iterator>
#include <map>
#include <set>
#include <string>

#include "chi_square.hpp"
#include "side_by_side.hpp"
#include "side_by_side_rows.hpp"
#include "tiny_model.hpp"

namespace {

using side_by_side::Config;
using side_by_side::Nudge;
using side_by_side::Row;
using side_by_side::RowSet;

// The kept sets on rows of kKeptVocab ids (above 1024: llama.cpp's top-p
// takes its bucket path), the draws on rows of kDrawVocab ids, which keep
// the whole run within a minute.
constexpr uint32_t kKeptVocab = 2048;
constexpr uint32_t kDrawVocab = 300;
constexpr size_t kDraws = 100000;
// Fixed before any run: every configuration but those that must differ
// passes at p >= kAlpha. With about 30 configurations, the chance that a
// correct library fails anywhere is below 30 * kAlpha = 3e-5 (Bonferroni);
// those that must differ must fall below it.
constexpr double kAlpha = 1e-6;
// A margin wider than llama.cpp's float error on a cut: a running sum of up
// to V float terms in [0, 1] is off by at most about V * 2^-24, and the
// probabilities it adds carry the softmax's own V * 2^-24; 4 * V * 2^-24
// covers both. Logits are moved by 2^-20 of their size, 16 float ulps, more
// than the few roundings llama.cpp's penalties, DRY and temperature make.
constexpr double kProbabilityMargin = 4.0 * kKeptVocab / 16777216.0;
constexpr double kLogitMargin = 1.0 / 1048576.0;
// At most this share of the ids compared may be undecided (fixed before the
// run; a larger share would mean the margins, not the samplers, decide).
constexpr double kUndecidedLimit = 0.005;

// The history both sides see: repeats for the penalties, and a suffix
// (11 12 13) that occurred twice before, followed by 100, for DRY.
const std::vector<int32_t> kHistory = {3,  200, 17,  11, 12, 13, 100, 42,  7, 7,  200, 9, 11,
                                       12, 13,  100, 55, 8,  7,  250, 251, 7, 11, 12,  13};
std::vector<Config> Configs() {
  const char* draws = "the kept set is the draw's: XTC fires on its own generator's draw";
  const char* greedy = "one token: nothing to compare";
  return {
      // Each sampler alone.
      {.name = "top_k 40", .top_k = 40},
      {.name = "top_p 0.9", .top_p = 0.9f},
      {.name = "top_p 0.5 min_keep 30", .top_p = 0.5f, .min_keep = 30},
      {.name = "min_p 0.05", .min_p = 0.05f},
      {.name = "typical 0.9", .typical_p = 0.9f},
      {.name = "top_n_sigma 1", .top_n_sigma = 1.0f},
      {.name = "xtc 1 0.1", .xtc_probability = 1.0f, .xtc_threshold = 0.1f},
      {.name = "xtc 0.5 0.05",
       .xtc_probability = 0.5f,
       .xtc_threshold = 0.05f,
       .kept = false,
       .why_not = draws},
      {.name = "dry 0.8", .dry_multiplier = 0.8f},
      {.name = "penalties 1.3 0.2 0.4", .repeat = 1.3f, .frequency = 0.2f, .presence = 0.4f},
      {.name = "temp 0.7", .temp = 0.7f},
      {.name = "temp 0 (greedy)", .temp = 0.0f, .frequencies = false, .why_not = greedy},
      {.name = "dynatemp 1 0.5 1", .temp = 1.0f, .dynatemp_range = 0.5f},
      {.name = "mirostat 1 tau 5", .mirostat = 1, .tau = 5.0f},
      // Its draws fall on the flat row (V = 300, surprises near log2(300)),
      // which mu = 8.2 cuts inside.
      {.name = "mirostat 2 tau 4.1", .mirostat = 2, .tau = 4.1f},
      {.name = "adaptive-p 0.3 0.9", .adaptive_target = 0.3f},
      // llama.cpp's common chain, each one on.
      {.name = "common penalties",
       .common = true,
       .repeat = 1.3f,
       .frequency = 0.2f,
       .presence = 0.4f},
      {.name = "common dry", .common = true, .dry_multiplier = 0.8f},
      {.name = "common top_n_sigma 1.5", .common = true, .top_n_sigma = 1.5f},
      {.name = "common top_k 40", .common = true, .top_k = 40},
      {.name = "common typical 0.9", .common = true, .typical_p = 0.9f},
      {.name = "common top_p 0.9", .common = true, .top_p = 0.9f},
      {.name = "common min_p 0.05", .common = true, .min_p = 0.05f},
      {.name = "common xtc 1 0.1", .common = true, .xtc_probability = 1.0f},
      {.name = "common temp 0.8", .common = true, .temp = 0.8f},
      {.name = "common dynatemp 0.8 0.5 1", .common = true, .temp = 0.8f, .dynatemp_range = 0.5f},
      {.name = "common min_p 0.05 adaptive-p 0.2",
       .common = true,
       .min_p = 0.05f,
       .adaptive_target = 0.2f},
      // llama-server's defaults, and everything on at once but typical:
      // llama.cpp's typical after top-n-sigma is not its typical (docs).
      {.name = "common server defaults",
       .common = true,
       .top_k = 40,
       .top_p = 0.95f,
       .min_p = 0.05f,
       .temp = 0.8f},
      {.name = "common all on",
       .common = true,
       .repeat = 1.1f,
       .frequency = 0.1f,
       .presence = 0.1f,
       .dry_multiplier = 0.8f,
       .top_n_sigma = 2.0f,
       .top_k = 200,
       .top_p = 0.95f,
       .min_p = 0.02f,
       .xtc_probability = 1.0f,
       .xtc_threshold = 0.1f,
       .temp = 0.8f},
      // Both checks must reject these. A deliberate difference: exactsample at
      // top-k 41 and T 1.25.
      {.name = "REJECT: top_k 40, exactsample 41 at T 1.25",
       .top_k = 40,
       .must_differ = true,
       .exact_temperature = 1.25,
       .exact_top_k = 41},
      // llama.cpp's typical after top-n-sigma works from a NaN entropy (the
      // ids top-n-sigma removed stay in the array at -inf, p = 0), so it
      // keeps a prefix in logit order: a difference the page states.
      {.name = "REJECT: common top_n_sigma 2 typical 0.5",
       .common = true,
       .top_n_sigma = 2.0f,
       .typical_p = 0.5f,
       .must_differ = true},
  };
}

// A sign per id from its hash, so that near-equal logits move apart.
double Sign(uint32_t i) {
  uint64_t z = (i + 1) * 0x9e3779b97f4a7c15ULL;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  return ((z ^ (z >> 27)) & 1) ? 1.0 : -1.0;
}

std::vector<float> Jitter(const std::vector<float>& row, double by) {
  std::vector<float> out(row.size());
  for (size_t i = 0; i < row.size(); ++i) {
    out[i] = static_cast<float>(row[i] * (1.0 + by * Sign(static_cast<uint32_t>(i))));
  }
  return out;
}

void AddDifference(const std::vector<int32_t>& a, const std::vector<int32_t>& b,
                   std::set<int32_t>& into) {
  std::set_symmetric_difference(a.begin(), a.end(), b.begin(), b.end(),
                                std::inserter(into, into.end()));
}

// The ids whose membership llama.cpp's float arithmetic may decide: those
// that enter or leave exactsample's kept set when a cut moves by the margin
// (tighter or looser), when every tie order is reversed (the mirrored row),
// or when the logits move by kLogitMargin (either way, by id), and the ids
// tied with them.
std::set<int32_t> Undecided(const Config& c, const Row& row, const std::vector<int32_t>& base) {
  std::set<int32_t> undecided;
  for (const bool mirror : {false, true}) {
    for (const int direction : {-1, 0, 1}) {
      if (!mirror && direction == 0) continue;
      const Nudge nudge{direction, kProbabilityMargin, kProbabilityMargin};
      AddDifference(base, side_by_side::ExactKept(c, row.logits, kHistory, nudge, mirror),
                    undecided);
    }
  }
  for (const double by : {kLogitMargin, -kLogitMargin}) {
    AddDifference(base, side_by_side::ExactKept(c, Jitter(row.logits, by), kHistory, {}, false),
                  undecided);
  }
  // The two orders above are the extremes of a tie; llama.cpp's may keep
  // any of the tied ids, so every id whose logit equals an undecided one's
  // is undecided too.
  std::set<float> tied;
  for (const int32_t id : undecided) tied.insert(row.logits[static_cast<size_t>(id)]);
  for (size_t i = 0; i < row.logits.size(); ++i) {
    if (tied.count(row.logits[i]) != 0) undecided.insert(static_cast<int32_t>(i));
  }
  return undecided;
}

struct Tally {
  size_t ids = 0, undecided = 0, rows_undecided = 0, differ_undecided = 0, differ_decided = 0;
  std::string where;  // "row undecided/differing" for each row with undecided ids
};

constexpr size_t kShownPerRow = 4;

// The kept sets of one configuration on every row; prints what differs
// (kShownPerRow ids a row, then how many more).
Tally KeptSets(const Config& c, const std::vector<Row>& rows, const llama_vocab* vocab) {
  Tally t;
  for (const Row& row : rows) {
    const std::vector<int32_t> llama = side_by_side::LlamaKept(c, row.logits, kHistory, vocab);
    const std::vector<int32_t> exact = side_by_side::ExactKept(c, row.logits, kHistory, {}, false);
    const std::set<int32_t> undecided = Undecided(c, row, exact);
    std::set<int32_t> differ;
    AddDifference(llama, exact, differ);
    t.ids += row.logits.size();
    t.undecided += undecided.size();
    t.rows_undecided += undecided.empty() ? 0 : 1;
    size_t differ_undecided = 0, shown = 0;  // shown: the decided ones
    for (const int32_t id : differ) {
      if (undecided.count(id) != 0) {
        ++differ_undecided;
        continue;
      }
      if (++shown > kShownPerRow) continue;
      std::printf(
          "  DIFFERS: %s on %s: id %d (logit %.9g) %s by llama.cpp, %s by exactsample"
          " (kept: llama.cpp %zu, exactsample %zu)\n",
          c.name, row.name.c_str(), id, static_cast<double>(row.logits[id]),
          std::binary_search(llama.begin(), llama.end(), id) ? "kept" : "dropped",
          std::binary_search(exact.begin(), exact.end(), id) ? "kept" : "dropped", llama.size(),
          exact.size());
    }
    if (shown > kShownPerRow) {
      std::printf("  DIFFERS: %s on %s: %zu more ids\n", c.name, row.name.c_str(),
                  shown - kShownPerRow);
    }
    t.differ_decided += shown;
    t.differ_undecided += differ_undecided;
    if (!undecided.empty()) {
      t.where += " " + row.name + " " + std::to_string(undecided.size()) + "/" +
                 std::to_string(differ_undecided);
    }
  }
  return t;
}

// Checks UpperTail against tabled quantiles of the chi-square distribution.
bool UpperTailChecks() {
  struct Quantile {
    double df, x, p;
  };
  const Quantile table[] = {{1, 3.841458820694124, 0.05},
                            {10, 23.20925117758, 0.01},
                            {100, 135.8067052, 0.01},
                            {1000, 1106.968733, 0.01},
                            {2, 27.63102111592855, 1e-6}};
  bool ok = true;
  for (const Quantile& q : table) {
    const double p = chi_square::UpperTail(q.x, q.df);
    if (std::fabs(p - q.p) > 1e-4 * q.p) {  // the table's digits
      std::printf("chi-square upper tail wrong: df %g x %g gives %.9g, not %g\n", q.df, q.x, p,
                  q.p);
      ok = false;
    }
  }
  return ok;
}

double Seconds(std::chrono::steady_clock::time_point since) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - since).count();
}

// Counts per tie class of the row (the ids of one logit value), in the order
// of the values. Where a cut falls inside a tie, llama.cpp keeps tied ids in
// an order C++ does not fix and exactsample the lowest ones: the same mass
// on other ids. A distribution equal id by id is equal class by class, so
// the classes are the bins (on a row without ties, the ids).
std::vector<uint32_t> ByTieClass(const Row& row, const std::vector<uint32_t>& counts) {
  std::map<float, uint32_t> classes;
  for (size_t i = 0; i < counts.size(); ++i) classes[row.logits[i]] += counts[i];
  std::vector<uint32_t> out;
  for (const auto& [value, count] : classes) out.push_back(count);
  return out;
}

// The chi-square test of one configuration on one row; prints its columns.
bool Frequencies(const Config& c, size_t index, const RowSet& set) {
  const Row& row = set.rows[index % set.rows.size()];
  const auto llama = side_by_side::LlamaCounts(c, row.logits, kHistory, set.vocab,
                                               static_cast<uint32_t>(1000 + index), kDraws);
  const auto exact = side_by_side::ExactCounts(c, row.logits, kHistory, 2000 + index, kDraws);
  const chi_square::Result r =
      chi_square::Homogeneity(ByTieClass(row, llama), ByTieClass(row, exact));
  const bool must_differ = c.must_differ;
  const bool pass = must_differ ? r.p < kAlpha : r.p >= kAlpha;
  std::printf(" %-8s %10.1f %5zu %6zu %9.3g%s\n", row.name.c_str(), r.statistic, r.bins, r.pooled,
              r.p,
              pass          ? ""
              : must_differ ? "  NOT REJECTED"
                            : "  REJECTED");
  return pass;
}

}  // namespace

int main() {
  const auto start = std::chrono::steady_clock::now();
  const char* backends = std::getenv("EXACTSAMPLE_LLAMA_BACKENDS");
  if (backends == nullptr || *backends == '\0') {
    std::fprintf(stderr,
                 "side_by_side: EXACTSAMPLE_LLAMA_BACKENDS (the ggml backends) is not set\n");
    return 1;
  }
  llama_log_set([](ggml_log_level, const char*, void*) {}, nullptr);
  tiny_model::LoadBackends(backends);
  const RowSet kept_rows = side_by_side::MakeRows(kKeptVocab);
  const RowSet draw_rows = side_by_side::MakeRows(kDrawVocab);
  bool ok = UpperTailChecks();

  std::printf(
      "kept sets: V = %u, %zu rows; draws: V = %u, %zu a side; alpha %g; margins %.3g "
      "(probabilities), %.3g (logits, relative)\n",
      kKeptVocab, kept_rows.rows.size(), kDrawVocab, kDraws, kAlpha, kProbabilityMargin,
      kLogitMargin);
  std::printf("%-40s | %6s %11s %7s %7s | %-8s %10s %5s %6s %9s\n", "config", "ids", "undecided",
              "diff(u)", "diff(d)", "row", "chi2", "bins", "pooled", "p");
  Tally all;
  const std::vector<Config> configs = Configs();
  for (size_t i = 0; i < configs.size(); ++i) {
    const Config& c = configs[i];
    std::printf("%-40s |", c.name);
    std::string where;
    if (c.kept) {
      const Tally t = KeptSets(c, kept_rows.rows, kept_rows.vocab);
      std::printf(" %6zu %6zu (%zu) %7zu %7zu |", t.ids, t.undecided, t.rows_undecided,
                  t.differ_undecided, t.differ_decided);
      where = t.where;
      if (c.must_differ) {
        ok = t.differ_decided > 0 && ok;
      } else {
        all.ids += t.ids;
        all.undecided += t.undecided;
        all.rows_undecided += t.rows_undecided;
        all.differ_undecided += t.differ_undecided;
        all.differ_decided += t.differ_decided;
      }
    } else {
      std::printf(" %35s |", "(excluded)");
    }
    if (c.frequencies) {
      ok = Frequencies(c, i, draw_rows) && ok;
    } else {
      std::printf(" (excluded)\n");
    }
    if (!c.kept || !c.frequencies) std::printf("  excluded: %s\n", c.why_not);
    if (!where.empty()) std::printf("  undecided/differing ids by row:%s\n", where.c_str());
  }
  const double share = static_cast<double>(all.undecided) / static_cast<double>(all.ids);
  std::printf(
      "kept sets: %zu ids compared, %zu undecided (%.3g%%, limit %.3g%%) in %zu of the "
      "row checks; differing: %zu undecided, %zu decided\n",
      all.ids, all.undecided, 100.0 * share, 100.0 * kUndecidedLimit, all.rows_undecided,
      all.differ_undecided, all.differ_decided);
  ok = ok && all.differ_decided == 0 && share <= kUndecidedLimit;
  llama_model_free(kept_rows.model);
  llama_model_free(draw_rows.model);
  std::printf("%s in %.1f s\n", ok ? "PASS" : "FAIL", Seconds(start));
  return ok ? 0 : 1;
}
