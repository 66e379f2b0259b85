#include "tools/cli/option_checks.hpp"

#include <charconv>
#include <cmath>
#include <cstdint>
#include <functional>
#include <optional>
#include <string_view>

namespace exactsample::cli {
namespace {

// The whole of s as a T, or nullopt (empty, trailing text, out of range).
template <class T>
std::optional<T> Whole(std::string_view s) {
  T v{};
  const auto r = std::from_chars(s.data(), s.data() + s.size(), v);
  if (s.empty() || r.ec != std::errc() || r.ptr != s.data() + s.size()) return std::nullopt;
  return v;
}

// A validator that refuses a value `ok` rejects with "VALUE is not WHAT".
template <class T>
CLI::Validator Check(std::function<bool(T)> ok, const std::string& what,
                     const std::string& name) {
  return CLI::Validator(
      [ok, what](std::string& s) -> std::string {
        const auto v = Whole<T>(s);
        return v && ok(*v) ? "" : (s.empty() ? "\"\"" : s) + " is not " + what;
      },
      name);
}

}  // namespace

CLI::Validator Unsigned64() {
  return Check<uint64_t>([](uint64_t) { return true; },
                         "an integer in [0, 18446744073709551615]", "UINT64");
}

CLI::Validator FiniteNonNegative() {
  return Check<double>([](double v) { return std::isfinite(v) && v >= 0; },
                       "a finite number >= 0", "NUMBER >= 0");
}

CLI::Validator Fraction() {
  return Check<double>([](double v) { return v >= 0 && v <= 1; }, "a number in [0, 1]",
                       "NUMBER in [0, 1]");
}

CLI::Validator Real() {
  return Check<double>([](double) { return true; }, "a number", "NUMBER");
}

CLI::Validator Signed64() {
  return Check<int64_t>([](int64_t) { return true; },
                        "an integer in [-9223372036854775808, 9223372036854775807]", "INT64");
}

}  // namespace exactsample::cli
