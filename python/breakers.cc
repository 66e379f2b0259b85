#include "breakers.hpp"

#include <map>
#include <mutex>
#include <string>
#include <vector>

namespace py = pybind11;

namespace exactsample_python {
namespace {

using Ids = std::vector<std::vector<int32_t>>;

[[noreturn]] void NotBreakers(py::handle value, const std::string& at) {
  throw py::type_error("dry_sequence_breakers" + at + ": expected a list of id lists, got " +
                       std::string(py::repr(value)));
}

bool IsList(py::handle v) { return py::isinstance<py::list>(v) || py::isinstance<py::tuple>(v); }

// Each distinct list once; map nodes never move, so the views stay.
BreakerViews Kept(Ids ids) {
  static std::mutex mutex;
  static std::map<Ids, std::vector<std::span<const int32_t>>> kept;
  const std::lock_guard<std::mutex> lock(mutex);
  auto [it, inserted] = kept.try_emplace(std::move(ids));
  if (inserted) it->second.assign(it->first.begin(), it->first.end());
  return it->second;
}

}  // namespace

BreakerViews BreakersFrom(py::handle value) {
  if (!IsList(value)) NotBreakers(value, "");
  Ids ids;
  size_t j = 0;
  for (py::handle breaker : value) {
    // Appended, not "[" + std::to_string(j): GCC 12 reports a false
    // -Wrestrict for a literal prepended to a temporary string.
    const std::string at = std::string("[").append(std::to_string(j++)).append("]");
    if (!IsList(breaker)) NotBreakers(breaker, at);
    std::vector<int32_t>& b = ids.emplace_back();
    for (py::handle id : breaker) {
      // An int, never a bool; one beyond int32 is no id of any row.
      if (!py::isinstance<py::int_>(id) || PyBool_Check(id.ptr())) NotBreakers(id, at);
      const long long v = id.cast<long long>();
      if (v < INT32_MIN || v > INT32_MAX) {
        throw py::value_error("dry_sequence_breakers" + at + ": id " + std::to_string(v) +
                              " is outside int32");
      }
      b.push_back(static_cast<int32_t>(v));
    }
  }
  return Kept(std::move(ids));
}

BreakerViews Kept(BreakerViews breakers) {
  Ids ids;
  for (const std::span<const int32_t> b : breakers) ids.emplace_back(b.begin(), b.end());
  return Kept(std::move(ids));
}

py::list BreakersValue(BreakerViews breakers) {
  py::list out;
  for (const std::span<const int32_t> b : breakers) {
    py::list ids;
    for (const int32_t id : b) ids.append(id);
    out.append(ids);
  }
  return out;
}

}  // namespace exactsample_python
