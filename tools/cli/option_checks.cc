#include "tools/cli/option_checks.hpp"

#include <charconv>
#include <cmath>
#include <cstdint>

namespace exactsample::cli {

CLI::Validator Unsigned64() {
  return CLI::Validator(
      [](std::string& s) -> std::string {
        uint64_t v = 0;
        const auto r = std::from_chars(s.data(), s.data() + s.size(), v);
        if (s.empty() || r.ec != std::errc() || r.ptr != s.data() + s.size()) {
          return s + " is not an integer in [0, 18446744073709551615]";
        }
        return "";
      },
      "UINT64");
}

CLI::Validator FiniteNonNegative() {
  return CLI::Validator(
      [](std::string& s) -> std::string {
        double v = 0;
        const auto r = std::from_chars(s.data(), s.data() + s.size(), v);
        if (s.empty() || r.ec != std::errc() || r.ptr != s.data() + s.size() ||
            !std::isfinite(v) || v < 0) {
          return s + " is not a finite number >= 0";
        }
        return "";
      },
      "NUMBER >= 0");
}

}  // namespace exactsample::cli
