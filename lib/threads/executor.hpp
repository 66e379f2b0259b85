// The machinery between a call and its helpers (lib/threads/executor.cc): a
// process-wide table of job slots that tasks reach by a token, never-freed,
// so that a task that runs late touches nothing but the table; the library
// pool; the spin-wait helpers use; and hooks for tests.
#pragma once

#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <thread>

#include "exactsample/executor.hpp"

namespace exactsample::threads {

// Work that helpers join. Help() runs on a helper thread for as long as it
// finds work, touching only memory that the job owns (never the caller's
// inputs or outputs), except where the job says otherwise.
class Job {
 public:
  virtual void Help() = 0;

 protected:
  ~Job() = default;
};

// A job's place in the slot table. The slot's word packs a generation and
// the count of helpers inside: a helper enters (count + 1) only while the
// generation is the one its token names; closing bumps the generation and
// never waits. A slot is reopened only once nobody is inside it.
class Ticket {
 public:
  // Opens a free slot for `job` and returns the token its tasks carry; null
  // when every slot is in use (the caller then works alone).
  void* Open(Job* job);
  // No helper enters from now on; those inside may still be working.
  // Nothing when the last Open found no slot.
  void Close();
  // Whether a helper may still be inside the job this ticket last opened
  // (false before the first Open).
  bool Busy() const;
  // Sleeps until !Busy(): for destructors of the memory a job owns.
  void WaitIdle() const;

 private:
  uint32_t slot_ = 0;
  uint64_t generation_ = 0;  // odd while open; 0: never opened
  bool open_ = false;
};

// A spin-wait's pause: the core's hint that this thread waits.
void Relax();

// Spins while busy() holds, for at most `limit`: the library's one backoff.
// It pauses alone at first (kPausesAlone: a yield is a system call, which
// under some hypervisors takes longer than the waits this serves), then
// yields the core every few pauses so that other work on it runs, a
// preempted thread that this one waits for among it. False when the limit
// passed.
using SpinClock = std::chrono::steady_clock;
template <typename Busy>
bool SpinWhile(Busy busy, SpinClock::duration limit) {
  using Clock = SpinClock;
  constexpr std::chrono::microseconds kPausesAlone{20};
  const Clock::time_point start = Clock::now();
  for (int k = 0; busy(); ++k) {
    Relax();
    if ((k & 63) != 63) continue;
    const Clock::duration spent = Clock::now() - start;
    if (spent >= limit) return false;
    if (spent >= kPausesAlone) std::this_thread::yield();
  }
  return true;
}

// A call whose result another thread may deliver first (a batch row a
// helper is still sampling, which the caller samples too): once `word`
// holds `value`, the call's passes over one thread stop between pieces and
// say so (ExpView::stopped), before anything the call returns or draws is
// touched; the call then returns at once, and *stopped (when given) tells
// the one who asked that its result is not one.
struct Supersede {
  const std::atomic<uint8_t>* word = nullptr;
  uint8_t value = 0;
  bool* stopped = nullptr;
  bool Now() const {
    return word != nullptr && word->load(std::memory_order_acquire) == value;
  }
  void Stop() const {
    if (stopped != nullptr) *stopped = true;
  }
};

// How long an idle worker of the library pool spins before it sleeps, for
// the last kSubmissionGaps gaps between submissions. Waking a sleeping
// thread costs a large part of a call (and the waking submit a system
// call), so a worker stays awake across gaps like the recent ones: the
// longest of them with a margin, as a call's two passes, or a one-thread
// call between two split ones, make the gaps alternate. That holds while
// the gaps are short enough to bridge; when calls are further apart a spin
// would not reach the next one, and only a short spin, for a quick
// follow-up, is spent.
inline constexpr size_t kSubmissionGaps = 4;
SpinClock::duration IdleSpin(std::span<const SpinClock::duration> gaps);

// The task handed to executors: enters the job named by the token, if its
// call is still open, helps, and leaves.
void HelperTask(void* token);

// Hands n runs of HelperTask(token) to `chosen` (null: the library pool).
// Never throws: when the executor fails (the pool cannot start a thread or
// queue the task, a host's submit throws), fewer helpers or none come and
// the caller does the work.
void SubmitHelpers(Executor* chosen, size_t n, void* token) noexcept;

// When `chosen` is null (the library pool): wakes the pool's sleeping
// workers into their spin, so that tasks a call submits a little later (its
// first pass split across threads) start at once; waking takes longer than
// the serial work before that pass. A host's executor is left alone.
void WakeHelpers(Executor* chosen);

// The number of threads the library pool runs now.
size_t PoolThreads();

// How many helpers a batch call on the library pool may start without
// taking a core from other work: a batch's rows last longer than the
// scheduler's slice, so a helper that shares a core with a busy thread
// makes the caller share its own, and the batch is slower than on one
// thread. A row split across threads does not use it: read at the start of
// a call that short, the count takes the pool's own worker for other work
// too often, and the row would lose its helpers on a quiet machine.
// Counted at the call: the cores less the threads runnable now (Linux's
// /proc/loadavg, the caller among them) that are not the pool's own awake
// workers, which are the ones that would help. Where the count cannot be
// read, every core but the caller's.
size_t FreeCores();
// The same from its parts: `runnable` counts the caller and `pool_awake`.
size_t FreeCores(size_t cores, size_t runnable, size_t pool_awake);
// `team` threads asked for a batch: on the library pool (`chosen` null) at most 1 + FreeCores(),
// as a helper beside other work slows the caller; a host's executor is
// left to decide for its own threads.
size_t TeamOnPool(const Executor* chosen, size_t team);
// Tests: a function that answers FreeCores() in its place; null: count.
using FreeCoresHook = size_t (*)();
void SetFreeCoresHook(FreeCoresHook hook);

// Tests: whether row passes on the library pool follow the helpers'
// turnout (RowHelpers: alone for a while after helpers came too late);
// true unless a test that delays helpers on purpose turns it off.
void SetFollowTurnout(bool follow);
bool FollowsTurnout();

// Tests: a function every helper calls after claiming a unit of work (a
// piece of a row, a batch row) and before computing it; null: none.
using HelperHook = void (*)(size_t unit);
void SetHelperHook(HelperHook hook);
void RunHelperHook(size_t unit);

// Tests: a function the caller calls once a pass split across threads is
// open to its helpers, before it computes anything; null: none.
using PassHook = void (*)();
void SetPassHook(PassHook hook);
void RunPassHook();

// Tests: a function the caller calls when it computes work a helper holds
// too (a helper's unfinished piece of a row, a batch row a helper samples):
// once as it starts (`started`), and again if it stops because the
// helper's copy is finished (`helper_served`); null: none.
enum class Race { started, helper_served };
using RaceHook = void (*)(size_t unit, Race event);
void SetRaceHook(RaceHook hook);
void RunRaceHook(size_t unit, Race event);

// An executor a workspace keeps (the C ABI's adapter owns its executor).
using SharedExecutor = std::shared_ptr<Executor>;
void SetExecutor(Workspace& workspace, SharedExecutor executor);
void SetExecutor(BatchWorkspace& workspace, SharedExecutor executor);

}  // namespace exactsample::threads
