// CLI11 checks for option values that CLI11's own conversions would take
// too loosely: "-1" or "1e23" as an unsigned 64-bit integer, "nan" as a
// non-negative number or a fraction, "" as a number, an integer beyond 64
// bits, an empty item of a list.
#pragma once

#include <CLI/CLI.hpp>
#include <string>
#include <utility>
#include <vector>

namespace exactsample::cli {

// Decimal digits only, at most 2^64 - 1.
CLI::Validator Unsigned64();
// A finite number >= 0.
CLI::Validator FiniteNonNegative();
// A number in [0, 1].
CLI::Validator Fraction();
// A number as written ("nan" and "inf" too: the sampler's checks say what
// it accepts); not empty, nothing after it.
CLI::Validator Real();
// Decimal digits with an optional '-', in [-2^63, 2^63 - 1].
CLI::Validator Signed64();

// A comma-separated list option: every item must pass `item`; an empty item
// ("1,,2", "1,") is refused (CLI11's own delimiter drops it in silence).
template <class T>
CLI::Option* AddList(CLI::App* app, const std::string& name, std::vector<T>& out,
                     const std::string& description, CLI::Validator item) {
  return app
      ->add_option_function<std::string>(
          name,
          [name, &out, item](const std::string& list) {
            std::vector<T> values;
            size_t from = 0;
            for (;;) {
              const size_t comma = list.find(',', from);
              std::string text = list.substr(from, comma - from);
              if (text.empty()) {
                throw CLI::ValidationError(name, "\"" + list + "\" has an empty item");
              }
              if (const std::string why = item(text); !why.empty()) {
                throw CLI::ValidationError(name, why);
              }
              T v{};
              CLI::detail::lexical_cast(text, v);
              values.push_back(v);
              if (comma == std::string::npos) break;
              from = comma + 1;
            }
            out = std::move(values);
          },
          description)
      ->type_name("LIST");
}

}  // namespace exactsample::cli
