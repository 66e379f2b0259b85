// Batched sampling: one token for each of B rows, each with its own
// parameters, history and generator, OpenMP across rows.
#pragma once

#include <span>
#include <vector>

#include "exactsample/exactsample.hpp"

namespace exactsample {

struct BatchRow {
  Request request;
  Pcg32* rng;  // this row's generator; advanced exactly as sample() would
};

// One Workspace per OpenMP thread, reused across calls.
class EXACTSAMPLE_API BatchWorkspace {
 public:
  Workspace& ForThread(size_t thread);

 private:
  std::vector<Workspace> per_thread_;
  friend void sample_batch(std::span<const BatchRow>, std::vector<Result<Token>>&,
                           BatchWorkspace&, const SampleOptions&, int);
};

// results[i] is what sample(rows[i].request, *rows[i].rng, ...) returns: it
// does not depend on the thread count, on the other rows or on their order.
// A row with bad input gets its error; the others are still sampled.
// threads <= 0 uses OpenMP's default. results is resized; its memory is
// reused across calls.
EXACTSAMPLE_API void sample_batch(std::span<const BatchRow> rows,
                                  std::vector<Result<Token>>& results,
                                  BatchWorkspace& workspace,
                                  const SampleOptions& options = {},
                                  int threads = 0);

}  // namespace exactsample
