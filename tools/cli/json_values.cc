#include "tools/cli/json_values.hpp"

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <set>
#include <vector>

namespace exactsample::cli {
namespace {

using nlohmann::json;

struct TooDeep {};
struct DuplicateKey {
  std::string key;
};

// The numeric-string grammar of the header comment.
bool IsNumericText(std::string_view s) {
  if (s == "inf" || s == "-inf" || s == "nan") return true;
  size_t i = 0;
  const auto digits = [&] {
    const size_t from = i;
    while (i < s.size() && s[i] >= '0' && s[i] <= '9') ++i;
    return i > from;
  };
  if (i < s.size() && s[i] == '-') ++i;
  if (i < s.size() && s[i] == '0') {
    ++i;
  } else if (!digits()) {
    return false;
  }
  if (i < s.size() && s[i] == '.' && (++i, !digits())) return false;
  if (i < s.size() && (s[i] == 'e' || s[i] == 'E')) {
    ++i;
    if (i < s.size() && (s[i] == '+' || s[i] == '-')) ++i;
    if (!digits()) return false;
  }
  return i == s.size();
}

Error OutOfRange(const std::string& field, const json& v, const std::string& range) {
  return FieldError(field, "expected an integer in " + range + ", got " + Brief(v));
}

}  // namespace

Result<json> ParseJson(std::string_view text, const std::string& where) {
  // The keys of each open object, innermost last: a key given twice is an
  // error, not a value the last one silently replaces.
  std::vector<std::set<std::string>> keys;
  const json::parser_callback_t checked = [&keys](int depth, json::parse_event_t event,
                                                  json& parsed) {
    using Event = json::parse_event_t;
    // depth counts the containers around the event's; a new one is a level more,
    // empty or not.
    if ((event == Event::object_start || event == Event::array_start) &&
        depth >= kMaxJsonDepth) {
      throw TooDeep{};
    }
    if (event == Event::object_start) keys.emplace_back();
    if (event == Event::object_end) keys.pop_back();
    if (event == Event::key && !keys.back().insert(parsed.get<std::string>()).second) {
      throw DuplicateKey{parsed.get<std::string>()};
    }
    return true;
  };
  try {
    return json::parse(text, checked);
  } catch (const TooDeep&) {
    return FieldError(where, "nested deeper than " + std::to_string(kMaxJsonDepth) + " levels");
  } catch (const DuplicateKey& e) {
    return FieldError(where, "the key " + Brief(json(e.key)) + " appears twice in one object");
  } catch (const json::exception& e) {
    return FieldError(where, std::string("not JSON: ") + e.what());
  }
}

std::string Brief(const json& v) {
  constexpr size_t kShown = 40;
  switch (v.type()) {
    case json::value_t::array:
      return "an array of " + std::to_string(v.size()) + " items";
    case json::value_t::object:
      return "an object of " + std::to_string(v.size()) + " keys";
    case json::value_t::string: {
      const std::string& s = v.get_ref<const std::string&>();
      if (s.size() <= kShown) return v.dump(-1, ' ', false, json::error_handler_t::replace);
      return json(s.substr(0, kShown)).dump(-1, ' ', false, json::error_handler_t::replace) +
             "... (" + std::to_string(s.size()) + " bytes)";
    }
    case json::value_t::number_float: {
      const double d = v.get<double>();
      // An integer literal beyond the 64-bit ones is read as the nearest
      // f64; -2^63 is the one such f64 that would print as an int64
      // (-9223372036854775809 reads as it): shown as the f64 it is.
      if (d == -0x1p63) return v.dump() + " (the f64 nearest an integer below -2^63)";
      if (std::isfinite(d) && d == std::trunc(d) && std::fabs(d) >= 0x1p53) {
        char buf[400];
        std::snprintf(buf, sizeof buf, "%.0f", d);
        return buf;
      }
      return v.dump();
    }
    default:
      return v.dump();
  }
}

Result<double> ParseReal(const json& v, const std::string& field) {
  if (v.is_number()) return v.get<double>();
  if (v.is_string() && IsNumericText(v.get_ref<const std::string&>())) {
    const std::string& s = v.get_ref<const std::string&>();
    const double d = std::strtod(s.c_str(), nullptr);
    if (std::isinf(d) && s.find("inf") == std::string::npos) {
      return FieldError(field, Brief(v) + " is beyond the f64 range");
    }
    return d;
  }
  return FieldError(field,
                    "expected a number or a numeric string (JSON number syntax, "
                    "\"inf\", \"-inf\" or \"nan\"), got " +
                        Brief(v));
}

Result<int64_t> ParseInt(const json& v, const std::string& field, int64_t lo, int64_t hi) {
  // Appended, not "[" + std::to_string(lo): GCC 12 reports a false
  // -Wrestrict for a literal prepended to a temporary string.
  const std::string range =
      std::string("[").append(std::to_string(lo)).append(", ").append(std::to_string(hi)).append("]");
  if (!v.is_number_integer()) return OutOfRange(field, v, range);
  const bool inside = v.is_number_unsigned()
                          ? hi >= 0 && v.get<uint64_t>() <= static_cast<uint64_t>(hi)
                          : v.get<int64_t>() >= lo && v.get<int64_t>() <= hi;
  if (!inside) {
    return OutOfRange(field, v, range);
  }
  return v.get<int64_t>();
}

Result<uint64_t> ParseUnsigned(const json& v, const std::string& field) {
  if (!v.is_number_unsigned()) {
    return OutOfRange(field, v, "[0, " + std::to_string(UINT64_MAX) + "]");
  }
  return v.get<uint64_t>();
}

Error FieldError(const std::string& field, const std::string& why) {
  return {ErrorCode::invalid_parameter, field, field + ": " + why};
}

}  // namespace exactsample::cli
