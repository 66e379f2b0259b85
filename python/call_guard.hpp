// What makes a sampling call from Python all or nothing: the generators it
// uses are marked in use for its duration (a second call that finds one
// marked raises instead of losing draws), and an interrupt (KeyboardInterrupt)
// or other exception raised while the library ran is raised before the call
// hands out any token, with every generator as it was.
//
// The marks and the hook are read and written with the GIL held.
#pragma once

#include <Python.h>
#include <pybind11/pybind11.h>

#include <unordered_set>
#include <utility>
#include <vector>

namespace exactsample::python {

// The generators (any object address) some call is using now.
inline std::unordered_set<const void*>& GeneratorsInUse() {
  static auto* in_use = new std::unordered_set<const void*>;  // never freed: no exit-time order
  return *in_use;
}

// The generators of one call, unmarked when it ends (whatever way).
class CallGuard {
 public:
  CallGuard() = default;
  CallGuard(const CallGuard&) = delete;
  CallGuard& operator=(const CallGuard&) = delete;
  ~CallGuard() {
    if (first_ != nullptr) GeneratorsInUse().erase(first_);
    for (const void* g : more_) GeneratorsInUse().erase(g);
  }

  // Marks g for this call; false (nothing marked) when another call uses it.
  bool Mark(const void* g) {
    if (!GeneratorsInUse().insert(g).second) return false;
    if (first_ == nullptr) {
      first_ = g;
    } else {
      more_.push_back(g);
    }
    return true;
  }

 private:
  // The first apart: a one-generator call (one per token) allocates nothing.
  const void* first_ = nullptr;
  std::vector<const void*> more_;
};

// Whether a generator is marked by a running call.
inline bool InUse(const void* g) { return GeneratorsInUse().contains(g); }

// The test hook: a callable run once by the next call, after the library
// returned and before the call commits (its generators still marked). It
// stands for what may happen there (a signal, another call) without timing.
inline PyObject*& NextCallHook() {
  static PyObject* hook = nullptr;
  return hook;
}

inline void SetNextCallHook(pybind11::handle fn) {
  PyObject*& hook = NextCallHook();
  Py_XDECREF(hook);
  hook = fn.is_none() ? nullptr : fn.inc_ref().ptr();
}

// Called by a sampling call with the GIL held again, before it writes back
// any generator: runs the test hook, then throws what is pending (an
// interrupt that came while the library ran), so that nothing is committed.
inline void BeforeCommit() {
  if (PyObject* hook = std::exchange(NextCallHook(), nullptr)) {
    const auto fn = pybind11::reinterpret_steal<pybind11::object>(hook);
    fn();
  }
  if (PyErr_CheckSignals() != 0) throw pybind11::error_already_set();
}

}  // namespace exactsample::python
