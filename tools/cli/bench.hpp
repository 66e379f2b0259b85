// `exactsample bench`: the time per token of the whole sample call (f32
// widening included) per engine and standard configuration, beside the
// floor: one max + exp + exact Z pass over the row by the fast kernels
// (`floor`) and by their scalar twins (`floor-scalar`).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace CLI {
class App;
}

namespace exactsample::cli {

struct BenchOptions {
  size_t vocab = 128256;        // the standard row's size
  std::string logits;           // .npy (one row) or raw little-endian .f32 file instead
  uint64_t row_seed = 0;        // the standard row's seed (0: kStandardRowSeed)
  std::vector<std::string> configs;  // row kinds; empty = the six configurations,
                                     // floor and floor-scalar
  std::string engine = "both";  // reference, fast or both
  std::string target;           // "" = the best supported
  std::vector<int> threads{1};  // SampleOptions::threads of the fast engine, a row each
  int iters = 1000;  // timed calls per fast and floor row; the reference gets a tenth
  size_t batch = 0;  // > 0: engine rows time sample_batch over this many copies of the row
  int contend = 0;   // busy-looping threads running beside the benchmark
  bool logprob = true;
  bool json = false;
  // The library's additions: each configuration gets a second row,
  // "<config>+" (fast engine only), with them, timed in the same run.
  size_t bias = 0;            // a bias on this many ids (spread over the row)
  double mask = 0.0;          // > 0: a bitmask allowing this fraction of ids
  int64_t top_logprobs = 0;   // N
  // Row types the engine rows are timed in, each its own rows: f32 (the row
  // as given), f16 or bf16 (the row rounded to 16-bit words, read in place).
  std::vector<std::string> dtypes{"f32"};
  // > empty: every engine row samples through a Sequence holding N history
  // ids, a row per N in this list (ratios to the first), and a configuration
  // with penalties a second set of rows with them off, "<config>-nopen".
  std::vector<int64_t> history;
  // The chains every configuration runs (docs/llama-samplers.md), each a
  // preset's name or comma-separated step names, then "+dry", "+top_n_sigma",
  // "+typical" or "+xtc" to turn those on at the values below; each its own rows
  // ("<config>@<chain>" when more than one), interleaved; empty: the spec's.
  std::vector<std::string> chains;
  double dry_multiplier = 0.8;
  double top_n_sigma = 1.0;
  double typical_p = 0.95;
  double xtc_probability = 0.5;
  double xtc_threshold = 0.1;

  // > 0: time one verification of this many drafts (docs/spec.md, "Speculative decoding")
  // against the single-token calls on the same rows (bench_speculative.hpp).
  size_t speculative = 0;

  bool Extras() const { return bias > 0 || mask > 0.0 || top_logprobs > 0; }
};

// Registers the subcommand; `options` is filled when it is parsed.
CLI::App* AddBenchCommand(CLI::App& app, BenchOptions& options);

// Exit status: 0 measured, 2 bad input or usage.
int Bench(const BenchOptions& options);

}  // namespace exactsample::cli
