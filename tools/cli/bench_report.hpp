// What `exactsample bench` measured, and how it prints: a table with ratios,
// or one JSON object per row.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace exactsample::cli {

struct BenchRow {
  std::string config;  // a standard configuration, "floor" or "floor-scalar"
  std::string engine;  // reference or fast; for floor rows fast or scalar
  std::string target;  // Highway target; "scalar" for reference and floor-scalar
  int threads = 1;
  int iters = 0;
  double median_us = 0.0;  // per call, i.e. per token
  double min_us = 0.0;
  std::string dtype = "f32";  // the row's type (floor rows: f32)
  int64_t history = -1;  // ids a Sequence row's sequence holds; -1: a stateless call
};

struct BenchRun {
  std::string source;  // "standard row" or the logits file
  size_t vocab = 0;
  bool logprob = true;
  size_t batch = 0;  // rows per sample_batch call (0: single calls)
  int contend = 0;   // busy-looping threads beside the run
  std::vector<BenchRow> rows;
};

// {"engine", "config", "vocab", "target", "threads", "logprob", "median_us",
// "min_us", "iters", "batch", "contend", "dtype", "history", "architecture",
// "emulator"} per row, one per line; "history" is null for a stateless call,
// "emulator" on the hardware itself.
void PrintJson(const BenchRun& run);

// The rows, then per configuration fast/floor, the floor passes the spec
// needs, and reference/fast (the fast engine at its first thread count),
// the fast engine's speed-up from its first thread count to each other one,
// its time per row type against the first type, each Sequence row against
// the one with the first history length, then floor-scalar/floor.
void PrintTable(const BenchRun& run);

}  // namespace exactsample::cli
