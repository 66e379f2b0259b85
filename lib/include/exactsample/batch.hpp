// Batched sampling: one token for each of B rows, each with its own
// parameters, history and generator, spread across threads.
#pragma once

#include "exactsample/cxx20.hpp"
#if EXACTSAMPLE_CXX20

#include <memory>
#include <span>
#include <vector>

#include "exactsample/exactsample.hpp"
#include "exactsample/executor.hpp"

namespace exactsample {

namespace detail {
struct BatchWorkspaceImpl;
}  // namespace detail

struct BatchRow {
  Request request;
  Pcg32* rng;  // this row's generator; advanced exactly as sample() would
};

// The calling thread's workspace and the helpers' memory (their copies of
// the rows they claim, their workspaces, their results), reused across
// calls. A helper that finishes after its call returned writes only here;
// the destructor waits for such helpers.
class EXACTSAMPLE_API BatchWorkspace {
 public:
  BatchWorkspace();
  ~BatchWorkspace();
  BatchWorkspace(BatchWorkspace&&) noexcept;
  BatchWorkspace& operator=(BatchWorkspace&&) noexcept;

  // The workspace of the calling thread (thread 0); helpers have their own.
  Workspace& for_thread(size_t thread);


 private:
  friend struct detail::WorkspaceAccess;
  std::unique_ptr<detail::BatchWorkspaceImpl> impl_;
};

// results[i] is what sample(rows[i].request, *rows[i].rng, ...) returns: it
// does not depend on the thread count, on the executor, on the other rows or
// on their order. A row with bad input gets its error; the others are still
// sampled. `threads` (<= 0: the hardware's thread count; more than 64 use
// 64) split the rows (options.threads then splits only the last rows, which
// the calling thread samples while helpers that ran out of rows join them);
// on the library pool a call starts no more helpers than there are cores
// that no other runnable thread holds at the call (Linux: counted from
// /proc/loadavg), since a helper sharing a core with other work slows the
// caller more than it helps. The calling thread
// never waits for a helper that is not running: rows a helper has not
// finished when the caller runs out of rows are sampled by the caller too
// (the first of the two to finish serves). The
// helpers read a row only while copying it, and the call returns only after
// such copies end. results is resized; its memory is reused across calls.
EXACTSAMPLE_API void sample_batch(std::span<const BatchRow> rows,
                                  std::vector<Result<Token>>& results,
                                  BatchWorkspace& workspace,
                                  const SampleOptions& options = {},
                                  int threads = 0);

}  // namespace exactsample

#endif  // EXACTSAMPLE_CXX20
