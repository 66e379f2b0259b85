// Where the threads that split a row or a batch come from: the library's
// own pool (the default) or an executor the host lends.
//
// The calling thread never waits for a helper: work is claimed in pieces,
// and whatever a helper has not finished when the caller runs out of its own
// work the caller computes itself (the values are identical). So an executor
// may run the tasks it is given late (after the call returned), on any
// thread, or never; each call still returns the right result, and a task
// that runs after its call returned touches nothing of the caller's.
#pragma once

#include <cstddef>

#include "exactsample/export.h"

namespace exactsample {

class Workspace;
class BatchWorkspace;

class EXACTSAMPLE_API Executor {
 public:
  virtual ~Executor() = default;
  // Runs task(arg) n times, each on some thread, at any time or never. It
  // must not run them on the calling thread before returning (that thread is
  // the caller, which will do any work left over itself). task and arg stay
  // valid for the life of the library; the executor object itself is used
  // only during submit.
  virtual void submit(size_t n, void (*task)(void* arg), void* arg) = 0;
};

// The library's pool: worker threads created on first use, as many as the
// largest team asked for (at most 63), that spin (yielding) after their work
// for as long as the recent gaps between calls when those are at most 4 ms
// (else 200 us) and then sleep on a condition variable, joined at process
// exit. Its submit never waits for a worker: when a worker holds the
// pool's lock (one preempted there), the tasks are not run.
EXACTSAMPLE_API Executor& library_pool();

// Joins the pool's threads now (a later call creates them again). Call it
// while no sampling call is running.
EXACTSAMPLE_API void shutdown_library_pool();

// The executor calls on this workspace use for their helpers; null (the
// default) is the library pool. It must stay alive while calls run.
EXACTSAMPLE_API void set_executor(Workspace& workspace, Executor* executor);
EXACTSAMPLE_API void set_executor(BatchWorkspace& workspace, Executor* executor);

}  // namespace exactsample
