#include "lib/threads/executor.hpp"

#include <algorithm>
#include <array>
#include <atomic>
#include <charconv>
#include <chrono>
#include <condition_variable>
#include <cstring>
#include <deque>
#include <mutex>
#include <thread>
#include <vector>

#if defined(__linux__)
#include <fcntl.h>
#include <unistd.h>
#endif

#include "lib/engine/workspace.hpp"

namespace exactsample {
namespace threads {
namespace {

// The slot table: static storage with trivial destructors, so a task that
// runs at any time, even during exit, finds it.
constexpr uint32_t kSlots = 256;
constexpr int kCountBits = 20;  // helpers inside one slot
constexpr uint64_t kCountMask = (uint64_t{1} << kCountBits) - 1;
constexpr uint64_t kOneGeneration = uint64_t{1} << kCountBits;

struct Slot {
  std::atomic<uint64_t> word{0};  // generation << kCountBits | helpers inside
  std::atomic<Job*> job{nullptr};
};
Slot g_slots[kSlots];
std::atomic<uint32_t> g_next_slot{0};

// A token is the slot index and the generation's low bits (as many as a
// pointer holds beside the index).
constexpr int kSlotBits = 8;
static_assert(kSlots == 1u << kSlotBits);
constexpr uint64_t kTokenGenerationMask =
    (sizeof(void*) >= 8 ? (uint64_t{1} << 48) : (uint64_t{1} << 24)) - 1;

void* TokenOf(uint32_t slot, uint64_t generation) {
  return reinterpret_cast<void*>(static_cast<uintptr_t>(
      ((generation & kTokenGenerationMask) << kSlotBits) | slot));
}

std::atomic<HelperHook> g_hook{nullptr};
std::atomic<PassHook> g_pass_hook{nullptr};
std::atomic<RaceHook> g_race_hook{nullptr};
std::atomic<FreeCoresHook> g_free_cores_hook{nullptr};
std::atomic<bool> g_follow_turnout{true};

// The library pool. Tasks wait in a queue; a worker with nothing to do
// spins (SpinWhile: other work on the core runs) for as long as the recent
// gaps between submissions, when they are short, so that the next call
// finds it awake, and then sleeps on the condition variable. A caller's
// submit never blocks on a worker: when it cannot take the queue's lock at
// once, its tasks are not queued.
class Pool final : public Executor {
 public:
  static constexpr size_t kMaxThreads = 63;

  ~Pool() override { Shutdown(); }

  void submit(size_t n, void (*task)(void*), void* arg) override {
    if (n == 0) return;
    std::unique_lock<std::mutex> lock = TryLock();
    if (!lock.owns_lock()) return;  // no helpers this time: the caller does the work
    const size_t want = std::min(n, kMaxThreads);
    NoteSubmission();
    while (workers_.size() < want) workers_.emplace_back([this] { Work(); });
    queue_.push_back({task, arg, n});
    pending_.fetch_add(n, std::memory_order_release);
    const bool wake = sleeping_ > 0;
    lock.unlock();
    if (wake) {
      if (n == 1) {
        ready_.notify_one();
      } else {
        ready_.notify_all();
      }
    }
  }

  void WakeSleepers() {
    std::unique_lock<std::mutex> lock = TryLock();
    if (!lock.owns_lock() || sleeping_ == 0) return;
    ++wakes_;
    lock.unlock();
    ready_.notify_all();
  }

  void Shutdown() {
    std::vector<std::thread> workers;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      stopping_ = true;
      workers.swap(workers_);
    }
    ready_.notify_all();
    for (std::thread& t : workers) t.join();
    std::lock_guard<std::mutex> lock(mutex_);
    stopping_ = false;
    queue_.clear();  // tasks never run are allowed
    pending_.store(0, std::memory_order_relaxed);
  }

  size_t Threads() {
    std::lock_guard<std::mutex> lock(mutex_);
    return workers_.size();
  }

  // Workers spinning or running a task now (not asleep); a moment's count.
  size_t Awake() const { return awake_.load(std::memory_order_relaxed); }

 private:
  struct Entry {
    void (*task)(void*);
    void* arg;
    size_t left;  // runs still to hand out
  };

  // The lock for a caller, who never waits on a worker: a worker holds it
  // for a few instructions, but one preempted while holding it would keep a
  // blocking caller waiting for a whole time slice of other work. Another
  // caller holding it lets go soon, so a few pauses of tries; then none (not
  // owned).
  std::unique_lock<std::mutex> TryLock() {
    std::unique_lock<std::mutex> lock(mutex_, std::try_to_lock);
    for (int k = 0; k < 256 && !lock.owns_lock(); ++k) {
      Relax();
      lock.try_lock();
    }
    return lock;
  }

  // Records the gap since the last submission for IdleSpin. The lock is
  // held.
  void NoteSubmission() {
    const SpinClock::time_point now = SpinClock::now();
    if (last_submit_ != SpinClock::time_point{}) {
      gaps_[next_gap_] = now - last_submit_;
      next_gap_ = (next_gap_ + 1) % gaps_.size();
    }
    last_submit_ = now;
    spin_.store(IdleSpin(gaps_).count(), std::memory_order_relaxed);
  }

  // Takes one run off the queue; the lock is held.
  bool PopLocked(Entry& out) {
    if (queue_.empty()) return false;
    out = queue_.front();
    if (--queue_.front().left == 0) queue_.pop_front();
    pending_.fetch_sub(1, std::memory_order_relaxed);
    return true;
  }

  void Work() {
    awake_.fetch_add(1, std::memory_order_relaxed);
    for (;;) {
      // A short bounded spin, then sleep.
      SpinWhile([&] { return pending_.load(std::memory_order_acquire) == 0; },
                SpinClock::duration(spin_.load(std::memory_order_relaxed)));
      Entry e{};
      {
        std::unique_lock<std::mutex> lock(mutex_);
        if (!PopLocked(e)) {
          ++sleeping_;
          awake_.fetch_sub(1, std::memory_order_relaxed);
          const uint64_t wakes = wakes_;
          ready_.wait(lock, [&] { return stopping_ || !queue_.empty() || wakes_ != wakes; });
          --sleeping_;
          if (stopping_) return;
          awake_.fetch_add(1, std::memory_order_relaxed);
          if (!PopLocked(e)) continue;  // woken ahead of a task: spin for it
        }
      }
      e.task(e.arg);
    }
  }


  std::mutex mutex_;
  std::condition_variable ready_;
  std::deque<Entry> queue_;
  std::vector<std::thread> workers_;
  std::atomic<size_t> pending_{0};
  size_t sleeping_ = 0;
  std::atomic<size_t> awake_{0};  // read without the lock, by FreeCores
  uint64_t wakes_ = 0;  // WakeSleepers calls
  bool stopping_ = false;
  SpinClock::time_point last_submit_{};
  std::array<SpinClock::duration, kSubmissionGaps> gaps_{};
  size_t next_gap_ = 0;
  std::atomic<SpinClock::rep> spin_{IdleSpin(gaps_).count()};
};

Pool& ThePool() {
  static Pool pool;  // joined by its destructor at exit
  return pool;
}

}  // namespace

SpinClock::duration IdleSpin(std::span<const SpinClock::duration> gaps) {
  constexpr SpinClock::duration kBridge = std::chrono::microseconds(4000);
  constexpr SpinClock::duration kMinSpin = std::chrono::microseconds(200);
  const SpinClock::duration longest =
      gaps.empty() ? SpinClock::duration{} : *std::max_element(gaps.begin(), gaps.end());
  return longest <= kBridge ? std::max(kMinSpin, longest + longest / 4) : kMinSpin;
}

void Relax() {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#elif defined(__aarch64__)
  asm volatile("yield");
#endif
}

void* Ticket::Open(Job* job) {
  const uint32_t start = g_next_slot.fetch_add(1, std::memory_order_relaxed);
  for (uint32_t k = 0; k < kSlots; ++k) {
    const uint32_t s = (start + k) % kSlots;
    Slot& slot = g_slots[s];
    uint64_t word = slot.word.load(std::memory_order_acquire);
    const uint64_t generation = word >> kCountBits;
    // Free: closed (even generation) and nobody inside.
    if ((word & kCountMask) != 0 || (generation & 1) != 0) continue;
    if (!slot.word.compare_exchange_strong(word, word + kOneGeneration,
                                           std::memory_order_acq_rel)) {
      continue;
    }
    // The token reaches helpers through the executor, after this store.
    slot.job.store(job, std::memory_order_release);
    slot_ = s;
    generation_ = generation + 1;
    open_ = true;
    return TokenOf(s, generation_);
  }
  return nullptr;
}

void Ticket::Close() {
  if (!open_) return;
  open_ = false;
  g_slots[slot_].word.fetch_add(kOneGeneration, std::memory_order_acq_rel);
}

bool Ticket::Busy() const {
  if (generation_ == 0) return false;
  const uint64_t word = g_slots[slot_].word.load(std::memory_order_acquire);
  const uint64_t generation = word >> kCountBits;
  return generation == generation_ ||
         (generation == generation_ + 1 && (word & kCountMask) != 0);
}

void Ticket::WaitIdle() const {
  while (Busy()) std::this_thread::sleep_for(std::chrono::microseconds(50));
}

void HelperTask(void* token) {
  const auto bits = reinterpret_cast<uintptr_t>(token);
  Slot& slot = g_slots[bits & (kSlots - 1)];
  const uint64_t generation = static_cast<uint64_t>(bits) >> kSlotBits;
  uint64_t word = slot.word.load(std::memory_order_relaxed);
  do {
    const uint64_t now = word >> kCountBits;
    // Closed or reused since: the call this task was for is over.
    if ((now & kTokenGenerationMask) != generation || (now & 1) == 0) return;
  } while (!slot.word.compare_exchange_weak(word, word + 1, std::memory_order_acquire,
                                            std::memory_order_relaxed));
  slot.job.load(std::memory_order_acquire)->Help();
  slot.word.fetch_sub(1, std::memory_order_release);
}

void SubmitHelpers(Executor* chosen, size_t n, void* token) noexcept {
  try {
    (chosen != nullptr ? *chosen : ThePool()).submit(n, HelperTask, token);
  } catch (...) {
    // No helper comes for what was not handed over: the caller does it.
  }
}

void WakeHelpers(Executor* chosen) {
  if (chosen == nullptr) ThePool().WakeSleepers();
}

size_t PoolThreads() { return ThePool().Threads(); }

namespace {

// The threads runnable now, as /proc/loadavg's fourth field counts them
// ("0.52 0.58 0.59 3/467 12345": 3, the reader among them); 0 when it
// cannot be read. The file stays open: one pread a call (about a
// microsecond), which the kernel answers with the count of that moment.
size_t RunnableNow() {
#if defined(__linux__)
  static const int fd = open("/proc/loadavg", O_RDONLY | O_CLOEXEC);
  if (fd < 0) return 0;
  char text[128];
  const ssize_t n = pread(fd, text, sizeof text - 1, 0);
  if (n <= 0) return 0;
  text[n] = '\0';
  const char* p = text;
  for (int field = 0; field < 3; ++field) {
    p = std::strchr(p, ' ');
    if (p == nullptr) return 0;
    ++p;
  }
  size_t runnable = 0;
  const auto [end, ec] = std::from_chars(p, text + n, runnable);
  return ec == std::errc() && *end == '/' ? runnable : 0;
#else
  return 0;
#endif
}

}  // namespace

size_t FreeCores(size_t cores, size_t runnable, size_t pool_awake) {
  const size_t ours = 1 + pool_awake;
  const size_t others = runnable > ours ? runnable - ours : 0;
  return cores > 1 + others ? cores - 1 - others : 0;
}

size_t FreeCores() {
  if (const FreeCoresHook hook = g_free_cores_hook.load(std::memory_order_acquire)) return hook();
  const size_t cores = std::max<size_t>(1, std::thread::hardware_concurrency());
  return FreeCores(cores, RunnableNow(), ThePool().Awake());
}

size_t TeamOnPool(const Executor* chosen, size_t team) {
  return chosen != nullptr || team <= 1 ? team : std::min(team, 1 + FreeCores());
}

void SetFreeCoresHook(FreeCoresHook hook) {
  g_free_cores_hook.store(hook, std::memory_order_release);
}

void SetFollowTurnout(bool follow) { g_follow_turnout.store(follow, std::memory_order_relaxed); }
bool FollowsTurnout() { return g_follow_turnout.load(std::memory_order_relaxed); }

void SetHelperHook(HelperHook hook) { g_hook.store(hook, std::memory_order_release); }

void RunHelperHook(size_t unit) {
  if (const HelperHook hook = g_hook.load(std::memory_order_acquire)) hook(unit);
}

void SetPassHook(PassHook hook) { g_pass_hook.store(hook, std::memory_order_release); }

void RunPassHook() {
  if (const PassHook hook = g_pass_hook.load(std::memory_order_acquire)) hook();
}

void SetRaceHook(RaceHook hook) { g_race_hook.store(hook, std::memory_order_release); }

void RunRaceHook(size_t unit, Race event) {
  if (const RaceHook hook = g_race_hook.load(std::memory_order_acquire)) hook(unit, event);
}

void SetExecutor(Workspace& workspace, SharedExecutor executor) {
  detail::WorkspaceAccess::Of(workspace).executor = std::move(executor);
}

}  // namespace threads

Executor& library_pool() { return threads::ThePool(); }

void shutdown_library_pool() { threads::ThePool().Shutdown(); }

namespace {
threads::SharedExecutor Borrowed(Executor* executor) {
  if (executor == nullptr) return nullptr;
  return threads::SharedExecutor(executor, [](Executor*) {});
}
}  // namespace

void set_executor(Workspace& workspace, Executor* executor) {
  threads::SetExecutor(workspace, Borrowed(executor));
}

void set_executor(BatchWorkspace& workspace, Executor* executor) {
  threads::SetExecutor(workspace, Borrowed(executor));
}

}  // namespace exactsample
