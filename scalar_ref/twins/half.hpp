// 16-bit logits: f16 and bf16 words widened to f32 exactly (every f16 and
// every bf16 value is an f32 value), and the row view both engines read a
// request's logits through, whatever their type, in place.
#pragma once

#include <bit>
#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "exactsample/exactsample.hpp"

namespace exactsample::twins {

// bf16 is the upper half of an f32.
constexpr float Bf16ToF32(uint16_t w) { return std::bit_cast<float>(uint32_t{w} << 16); }

// IEEE binary16 to binary32: exponent rebiased (15 to 127), mantissa moved
// up 13 bits; a subnormal (exponent 0) is mantissa * 2^-24, exact in f32;
// exponent 31 is inf or NaN (the payload kept). The kernels compute the
// same bits (simd/widen-inl.h).
constexpr float F16ToF32(uint16_t w) {
  const uint32_t sign = uint32_t{w & 0x8000u} << 16;
  const uint32_t exponent = (w >> 10) & 0x1Fu;
  const uint32_t mantissa = w & 0x3FFu;
  uint32_t bits;
  if (exponent == 0) {
    bits = std::bit_cast<uint32_t>(static_cast<float>(mantissa) * 0x1p-24f);
  } else if (exponent == 31) {
    bits = 0x7F800000u | (mantissa << 13);
  } else {
    bits = ((exponent + (127 - 15)) << 23) | (mantissa << 13);
  }
  return std::bit_cast<float>(sign | bits);
}

// A word of a 16-bit type t (f16 or bf16) as f32.
constexpr float Widen16(uint16_t w, LogitType t) {
  return t == LogitType::f16 ? F16ToF32(w) : Bf16ToF32(w);
}

// The type a row of LogitType t stores per id.
template <LogitType t>
using RowWord = std::conditional_t<t == LogitType::f32, float, uint16_t>;

// A row of logits read in place: f32 values, or 16-bit words of `type`.
struct Row {
  const void* data = nullptr;
  LogitType type = LogitType::f32;

  constexpr Row() = default;
  constexpr Row(const float* x) : data(x) {}  // NOLINT: implicit, an f32 row
  constexpr Row(const void* words, LogitType t) : data(words), type(t) {}
  // The row `request.logits_type` selects.
  static Row Of(const Request& request) {
    return request.logits_type == LogitType::f32
               ? Row(request.logits.data())
               : Row(request.logits16.data(), request.logits_type);
  }

  template <LogitType t>
  const RowWord<t>* As() const {
    return static_cast<const RowWord<t>*>(data);
  }
  // The row from id i on.
  Row From(size_t i) const {
    return type == LogitType::f32 ? Row(As<LogitType::f32>() + i)
                                  : Row(As<LogitType::bf16>() + i, type);
  }
  // The logit of id i as f32.
  float operator[](size_t i) const {
    return type == LogitType::f32 ? As<LogitType::f32>()[i]
                                  : Widen16(As<LogitType::bf16>()[i], type);
  }
};

// Calls f(p) with p the row's words as their own type (const float* or
// const uint16_t*) and the type as a constant: f is instantiated per type.
template <class F>
decltype(auto) VisitRow(Row x, F&& f) {
  switch (x.type) {
    case LogitType::f16:
      return f(x.As<LogitType::f16>(), std::integral_constant<LogitType, LogitType::f16>());
    case LogitType::bf16:
      return f(x.As<LogitType::bf16>(), std::integral_constant<LogitType, LogitType::bf16>());
    case LogitType::f32: break;
  }
  return f(x.As<LogitType::f32>(), std::integral_constant<LogitType, LogitType::f32>());
}

}  // namespace exactsample::twins
