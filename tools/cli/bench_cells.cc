#include "tools/cli/bench_cells.hpp"

#include <algorithm>
#include <chrono>
#include <cstdint>

namespace exactsample::cli {

void Measure(std::vector<Cell>& cells) {
  int rounds = 0;
  for (Cell& c : cells) {
    rounds = std::max(rounds, c.row.iters);
    c.call();  // untimed: workspaces grown, helper threads started
  }
  for (int r = 0; r < rounds; ++r) {
    for (size_t j = 0; j < cells.size(); ++j) {
      Cell& c = cells[(static_cast<size_t>(r) + j) % cells.size()];
      const int64_t due = (int64_t{r} + 1) * c.row.iters / rounds;
      if (static_cast<int64_t>(c.micros.size()) == due) continue;
      const auto start = std::chrono::steady_clock::now();
      c.call();
      const std::chrono::duration<double, std::micro> took =
          std::chrono::steady_clock::now() - start;
      c.micros.push_back(took.count() / static_cast<double>(c.tokens));
    }
  }
  for (Cell& c : cells) {
    std::sort(c.micros.begin(), c.micros.end());
    const size_t n = c.micros.size();
    c.row.median_us = (c.micros[(n - 1) / 2] + c.micros[n / 2]) / 2;
    c.row.min_us = c.micros.front();
  }
}

}  // namespace exactsample::cli
