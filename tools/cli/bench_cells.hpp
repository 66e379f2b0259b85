// The timed cells of `exactsample bench`: one call each, measured
// interleaved.
#pragma once

#include <cstddef>
#include <functional>
#include <vector>

#include "tools/cli/bench_report.hpp"

namespace exactsample::cli {

struct Cell {
  BenchRow row;                // labels; the times are filled in at the end
  std::function<void()> call;  // one call
  std::vector<double> micros;
  size_t tokens = 1;           // tokens per call
};

// Every cell gets row.iters timed calls spread evenly over the rounds (the
// largest iters), at most one per round, the order rotating each round, so
// that drift on a shared machine and the cache state a call starts from hit
// every cell alike; then the median and minimum per token.
void Measure(std::vector<Cell>& cells);

}  // namespace exactsample::cli
