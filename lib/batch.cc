#include "exactsample/batch.hpp"

#include <omp.h>

namespace exactsample {

Workspace& BatchWorkspace::ForThread(size_t thread) {
  if (per_thread_.size() <= thread) per_thread_.resize(thread + 1);
  return per_thread_[thread];
}

void sample_batch(std::span<const BatchRow> rows,
                  std::vector<Result<Token>>& results, BatchWorkspace& workspace,
                  const SampleOptions& options, int threads) {
  const int team = threads > 0 ? threads : omp_get_max_threads();
  // Grow the per-thread workspaces before the parallel region, which must
  // not resize the vector other threads index into.
  workspace.ForThread(static_cast<size_t>(team) - 1);
  results.assign(rows.size(), Token{});
  const auto n = static_cast<std::ptrdiff_t>(rows.size());
#pragma omp parallel for num_threads(team) schedule(dynamic, 1)
  for (std::ptrdiff_t i = 0; i < n; ++i) {
    Workspace& ws = workspace.per_thread_[static_cast<size_t>(omp_get_thread_num())];
    if (rows[i].rng == nullptr) {
      results[i] = Error{ErrorCode::invalid_parameter, "rng",
                         "rng: row " + std::to_string(i) + " has no generator"};
      continue;
    }
    results[i] = sample(rows[i].request, *rows[i].rng, ws, options);
  }
}

}  // namespace exactsample
