#include "tools/lib/half_rows.hpp"

#include <bit>
#include <cmath>

namespace exactsample::tools {

uint16_t F32ToF16(float x) {
  const uint32_t b = std::bit_cast<uint32_t>(x);
  const auto sign = static_cast<uint16_t>((b >> 16) & 0x8000u);
  const uint32_t a = b & 0x7FFFFFFFu;
  if (a > 0x7F800000u) return static_cast<uint16_t>(sign | 0x7E00u | ((a >> 13) & 0x3FFu));
  if (a >= 0x477FF000u) return static_cast<uint16_t>(sign | 0x7C00u);  // >= 65520: inf
  if (a >= 0x38800000u) {  // f16 normal (>= 2^-14): rebias, round 13 bits away
    const uint32_t m = a - ((127u - 15u) << 23);
    return static_cast<uint16_t>(sign | ((m + 0xFFFu + ((m >> 13) & 1u)) >> 13));
  }
  // Subnormal or zero: units of 2^-24, rounded to the nearest even count
  // (1024 units is the smallest normal, encoded as such).
  const float units = std::fabs(x) * 0x1p24f;  // exact: a power of two
  return static_cast<uint16_t>(sign | static_cast<uint32_t>(std::nearbyint(units)));
}

uint16_t F32ToBf16(float x) {
  const uint32_t b = std::bit_cast<uint32_t>(x);
  if (std::isnan(x)) return static_cast<uint16_t>((b >> 16) | 0x40u);
  return static_cast<uint16_t>((b + 0x7FFFu + ((b >> 16) & 1u)) >> 16);
}

std::vector<uint16_t> NarrowRow(std::span<const float> x, LogitType type) {
  std::vector<uint16_t> w(x.size());
  for (size_t i = 0; i < x.size(); ++i) {
    w[i] = type == LogitType::f16 ? F32ToF16(x[i]) : F32ToBf16(x[i]);
  }
  return w;
}

std::string TypeName(LogitType type) {
  switch (type) {
    case LogitType::f16: return "f16";
    case LogitType::bf16: return "bf16";
    case LogitType::f32: break;
  }
  return "f32";
}

std::optional<LogitType> ParseType(const std::string& name) {
  for (LogitType t : {LogitType::f32, LogitType::f16, LogitType::bf16}) {
    if (name == TypeName(t)) return t;
  }
  return std::nullopt;
}

}  // namespace exactsample::tools
