// Who holds a unit of work (a piece of a row, a batch row) that a caller
// and its helpers both may compute, and who is still reading the caller's
// memory: the one claims helper both the row passes (lib/threads/row_passes.cc)
// and the batch (lib/threads/batch.cc) build their state machines on.
//
// A unit's state is one atomic byte. A machine names its states and the
// moves between them (Machine::Allowed); every move goes through Claim,
// which in debug builds asserts that the move is one of the machine's and,
// for a move only one thread can make (Set), that the unit was in the state
// the mover believes. So a transition the machine does not have stops a
// debug build where it happens instead of leaving a unit in a state nobody
// moves it on from.
#pragma once

#include <atomic>
#include <cassert>
#include <cstdint>

#include "lib/threads/executor.hpp"

namespace exactsample::threads {

// An atomic alone on its cache line: the caller and the helpers use these
// from different cores, and atomics sharing a line make each use of one a
// transfer of the line between the cores.
template <typename T>
struct alignas(64) OwnCacheLine : std::atomic<T> {
  using std::atomic<T>::atomic;
};

// One unit's state in `Machine`, which provides `enum State : uint8_t` with
// a `kFree` and `static constexpr bool Allowed(State from, State to)`.
// Moves are sequentially consistent: the claims pair with the counters
// beside them (a cursor, helpers present, readers inside), and on the cores
// this runs on a read-modify-write costs the same at any order.
template <typename Machine>
class Claim {
 public:
  using State = typename Machine::State;

  // Between calls, with nobody inside the job.
  void Reset() { state_.store(Machine::kFree, std::memory_order_relaxed); }

  State Load() const { return static_cast<State>(state_.load(std::memory_order_seq_cst)); }
  // The state word, for a thread that only watches it (Supersede).
  const std::atomic<uint8_t>* Word() const { return &state_; }

  // from -> to if the unit is in `from`; true when moved. On false, `seen`
  // (when given) is the state found.
  bool Move(State from, State to, State* seen = nullptr) {
    assert(Machine::Allowed(from, to));
    uint8_t s = from;
    const bool moved = state_.compare_exchange_strong(s, to, std::memory_order_seq_cst);
    if (seen != nullptr) *seen = static_cast<State>(s);
    return moved;
  }

  // The move `next(state)` names from whatever state the unit is in, made
  // at once (no move when next returns the state itself); returns the
  // state the move was made from, or the one found when none was.
  template <typename Next>
  State MoveFromAny(Next next) {
    uint8_t s = state_.load(std::memory_order_seq_cst);
    for (;;) {
      const State from = static_cast<State>(s);
      const State to = next(from);
      if (to == from) return from;
      assert(Machine::Allowed(from, to));
      if (state_.compare_exchange_weak(s, to, std::memory_order_seq_cst)) return from;
    }
  }

  // from -> to where no other thread moves the unit out of `from` (its
  // holder's own move): a store, checked in debug builds.
  void Set(State from, State to) {
    assert(Machine::Allowed(from, to));
#ifndef NDEBUG
    const uint8_t was = state_.exchange(to, std::memory_order_seq_cst);
    assert(was == from);
#else
    (void)from;
    state_.store(to, std::memory_order_release);
#endif
  }

 private:
  std::atomic<uint8_t> state_{Machine::kFree};
};

// A claim alone on its cache line, as OwnCacheLine.
template <typename Machine>
struct alignas(64) OwnLineClaim : Claim<Machine> {};

// The helpers inside a read of the caller's memory (its row, its inputs).
// A helper enters before it claims a unit and leaves once it has copied
// what it reads, so that once the caller has seen every unit claimed and
// nobody inside, no helper reads its memory again: Wait is the caller's
// only wait for a helper, and it lasts one copy.
class Readers {
 public:
  void Reset() { inside_.store(0, std::memory_order_relaxed); }
  void Enter() { inside_.fetch_add(1, std::memory_order_seq_cst); }
  void Leave() { inside_.fetch_sub(1, std::memory_order_release); }
  void Wait() const {
    SpinWhile([this] { return inside_.load(std::memory_order_seq_cst) != 0; },
              SpinClock::duration::max());
  }

 private:
  OwnCacheLine<int> inside_{0};
};

}  // namespace exactsample::threads
