// The options of `exactsample bench`.
#include <CLI/CLI.hpp>

#include "tools/lib/standard_inputs.hpp"
#include "tools/cli/bench.hpp"
#include "tools/cli/option_checks.hpp"

namespace exactsample::cli {

CLI::App* AddBenchCommand(CLI::App& app, BenchOptions& o) {
  auto* bench = app.add_subcommand(
      "bench",
      "Time the whole sample call per engine and configuration against one "
      "max + exp + exact Z pass over the row (the floor); median and minimum "
      "microseconds per token, engines interleaved");

  auto* vocab =
      bench->add_option("--vocab", o.vocab, "size V of the standard row (default 128256)")
          ->check(CLI::Range(size_t{1}, size_t{1} << 30));
  auto* row_seed = bench->add_option(
      "--row-seed", o.row_seed,
      "seed of the standard row (default " + std::to_string(kStandardRowSeed) +
          "): the same kind of row, other values")
      ->check(Unsigned64());
  bench
      ->add_option("--logits", o.logits,
                   "one row of logits instead of the standard row: FILE.npy (shape "
                   "(V,) or (1, V), f32 or f64) or FILE.f32 (raw little-endian f32); "
                   "- reads a .npy from standard input")
      ->excludes(vocab)
      ->excludes(row_seed);

  std::vector<std::string> configs{"floor", "floor-scalar"};
  for (const StandardConfig& c : StandardConfigs()) configs.push_back(c.name);
  AddList(bench, "--config", o.configs,
          "comma-separated row kinds: plain, topk40, topp, minp, full, "
          "greedy, floor, floor-scalar (default: all); the floor comes "
          "with any configuration's fast rows",
          CLI::IsMember(configs));
  bench
      ->add_option("--engine", o.engine,
                   "reference, fast or both (default); floor rows run either way")
      ->check(CLI::IsMember({"reference", "fast", "both"}));
  bench->add_option("--target", o.target,
                    "run the fast engine and the floor on this SIMD target (see "
                    "`targets`; default: the best supported)");
  AddList(bench, "--threads", o.threads,
          "threads splitting one row in the fast engine (default "
          "1); a comma-separated list times each count, interleaved",
          CLI::Range(1, 1024));
  bench
      ->add_option("--iters", o.iters,
                   "timed calls per fast and floor row (default 1000); reference "
                   "rows get a tenth, at least 3")
      ->check(CLI::Range(1, 100000000));
  bench
      ->add_option("--batch", o.batch,
                   "time sample_batch over ROWS copies of the row, each with its own "
                   "generator (per token; --threads then spreads rows)")
      ->check(CLI::Range(size_t{1}, size_t{4096}));
  bench
      ->add_option("--contend", o.contend,
                   "start N busy-looping threads for the run, as other work on the "
                   "cores would (default 0)")
      ->check(CLI::Range(0, 256));
  bench->add_flag_callback(
      "--no-logprob", [&o] { o.logprob = false; },
      "the caller does not need the logprob (SampleOptions::logprob = false)");
  bench->add_option("--bias", o.bias,
                    "also time each configuration (fast engine, row \"<config>+\") "
                    "with a logit bias on N ids")
      ->check(CLI::Range(size_t{0}, size_t{1} << 24));
  bench->add_option("--mask", o.mask,
                    "... with a bitmask allowing this fraction of the ids")
      ->check(Fraction());
  bench->add_option("--top-logprobs", o.top_logprobs, "... with N top logprobs (0 to 20)")
      ->check(CLI::Range(0, 20));
  AddList(bench, "--dtype", o.dtypes,
          "row types to time the engines in, comma-separated: f32 (default), "
          "f16, bf16 (the row rounded to 16-bit words, read in place); a "
          "ratio to the first is printed",
          CLI::IsMember({"f32", "f16", "bf16"}));
  AddList(bench, "--history", o.history,
          "time the sequence path: each engine row samples (sample_only) "
          "through a Sequence already holding N ids (half prompt, half "
          "generated, Zipf-like repeats); a comma-separated list gives a row "
          "per N and the ratio to the first; configurations with penalties "
          "also get rows \"<config>-nopen\" with them off",
          CLI::Range(int64_t{0}, int64_t{1} << 24));
  bench
      ->add_option("--speculative", o.speculative,
                   "time one verification of G draft tokens (target rows: the row with "
                   "small noise; draft rows near them) against the G + 1 target and G "
                   "draft single-token calls on the same rows, interleaved; one "
                   "--config (default plain)")
      ->check(CLI::Range(size_t{1}, size_t{64}));
  bench->add_option("--chain", o.chains,
                    "the chain every configuration runs: spec (default), llama, or step "
                    "names, comma-separated (docs/llama-samplers.md; which chains the "
                    "fast engine runs: its Engines section), then +dry, +top_n_sigma, +typical or +xtc to "
                    "turn those on; given more than once, each chain its own rows "
                    "\"<config>@<chain>\", interleaved");
  bench->add_option("--dry-multiplier", o.dry_multiplier,
                    "DRY's multiplier with +dry, its other fields their defaults (default 0.8)")
      ->check(CLI::PositiveNumber);
  bench->add_option("--top-n-sigma", o.top_n_sigma,
                    "top-n-sigma's n with +top_n_sigma (default 1)")
      ->check(CLI::PositiveNumber);
  bench->add_option("--typical-p", o.typical_p, "typical's p with +typical (default 0.95)")
      ->check(CLI::Range(0.0, 1.0));
  bench->add_option("--xtc-probability", o.xtc_probability,
                    "XTC's probability with +xtc (default 0.5)")
      ->check(CLI::Range(0.0, 1.0));
  bench->add_option("--xtc-threshold", o.xtc_threshold,
                    "XTC's threshold with +xtc (default 0.1)")
      ->check(CLI::Range(0.0, 1.0));
  bench->add_flag("--json", o.json,
                  "one JSON object per row: engine, config, vocab, target, threads, "
                  "logprob, median_us, min_us, iters, batch, contend, dtype, history "
                  "(null: a stateless call), architecture, emulator (null on the "
                  "hardware)");
  return bench;
}

}  // namespace exactsample::cli
