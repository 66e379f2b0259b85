// PCG32 against every entry of the shared reference vectors.
#include <gtest/gtest.h>

#include <type_traits>

#include "exactsample/pcg32.hpp"
#include "tests/support/test_util.hpp"

namespace exactsample {
namespace {

using test::Bits;

const nlohmann::json& Vectors() {
  static const nlohmann::json v = test::LoadJson("pcg32_vectors.json");
  return v;
}

uint64_t Seed(const std::string& key) { return std::stoull(key); }

// A request generator is stream(seed, Purpose::sample); a raw seed does not
// convert into a generator by mistake.
static_assert(!std::is_constructible_v<Pcg32, uint64_t>);
static_assert(!std::is_constructible_v<Pcg32, uint64_t, uint64_t>);
static_assert(!std::is_default_constructible_v<Pcg32>);
static_assert(!std::is_convertible_v<uint64_t, Pcg32>);

TEST(Pcg32, NextU32OfDefaultSequence) {
  ASSERT_FALSE(Vectors()["next_u32"].empty());
  for (const auto& [seed, outputs] : Vectors()["next_u32"].items()) {
    Pcg32 g = Pcg32::seeded(Seed(seed), Vectors()["default_seq"].get<uint64_t>());
    for (const auto& want : outputs) {
      EXPECT_EQ(g.next_u32(), want.get<uint32_t>()) << "seed " << seed;
    }
  }
}

TEST(Pcg32, SpecExamples) {
  Pcg32 g = Pcg32::seeded(42);
  for (uint32_t want : {0xa15c02b7u, 0x7b47f409u, 0xba1d3330u, 0x83d2f293u,
                        0xbfa4784bu, 0xcbed606eu}) {
    EXPECT_EQ(g.next_u32(), want);
  }
  EXPECT_EQ(Bits(Pcg32::seeded(0).uniform_f64()), Bits(0.2803122753265841));
  EXPECT_EQ(child_seed(0, 4), 0xF88BB8A8724C81ECULL);
  EXPECT_EQ(Bits(stream(0, Purpose::sample).uniform_f64()),
            Bits(0.8020949661137535));
}

TEST(Pcg32, UniformF64) {
  ASSERT_FALSE(Vectors()["uniform_f64"].empty());
  for (const auto& [seed, outputs] : Vectors()["uniform_f64"].items()) {
    Pcg32 g = Pcg32::seeded(Seed(seed));
    for (const auto& want : outputs) {
      EXPECT_EQ(Bits(g.uniform_f64()), Bits(want.get<double>())) << seed;
    }
  }
}

TEST(Pcg32, ChildSeedAndStreams) {
  const auto& purposes = Vectors()["purposes"];
  ASSERT_EQ(purposes.size(), 5u);
  for (const auto& [seed, by_purpose] : Vectors()["child_seed"].items()) {
    for (const auto& [name, want] : by_purpose.items()) {
      EXPECT_EQ(child_seed(Seed(seed), purposes[name].get<uint64_t>()),
                want.get<uint64_t>())
          << seed << " " << name;
    }
  }
  for (const auto& [seed, by_purpose] : Vectors()["stream_next_u32"].items()) {
    for (const auto& [name, outputs] : by_purpose.items()) {
      Pcg32 g = stream(Seed(seed), purposes[name].get<uint64_t>());
      for (const auto& want : outputs) {
        EXPECT_EQ(g.next_u32(), want.get<uint32_t>()) << seed << " " << name;
      }
    }
  }
}

TEST(Pcg32, UniformAfterSkippingByCallsAndByAdvance) {
  ASSERT_FALSE(Vectors()["sample_stream_seed7_uniform_after_n"].empty());
  for (const auto& [n_text, want] :
       Vectors()["sample_stream_seed7_uniform_after_n"].items()) {
    const uint64_t n = std::stoull(n_text);
    Pcg32 by_calls = stream(7, Purpose::sample);
    for (uint64_t i = 0; i < n; ++i) by_calls.uniform_f64();
    Pcg32 by_advance = stream(7, Purpose::sample);
    by_advance.advance(2 * n);
    EXPECT_EQ(by_calls, by_advance) << n;
    EXPECT_EQ(by_advance.draws_u32(), 2 * n);
    EXPECT_EQ(Bits(by_calls.uniform_f64()), Bits(want.get<double>())) << n;
    EXPECT_EQ(Bits(by_advance.uniform_f64()), Bits(want.get<double>())) << n;
  }
}

TEST(Pcg32, AdvanceEqualsCallsForManyLengths) {
  for (uint64_t n : {0ull, 1ull, 2ull, 3ull, 63ull, 64ull, 65ull, 1000ull,
                     4097ull, 99991ull}) {
    Pcg32 a = stream(123, Purpose::shuffle);
    Pcg32 b = a;
    for (uint64_t i = 0; i < n; ++i) a.next_u32();
    b.advance(n);
    EXPECT_EQ(a, b) << n;
  }
}

TEST(Pcg32, HandOffThroughPlainFields) {
  Pcg32 a = stream(99, Purpose::sample);
  a.uniform_f64();
  Pcg32 b = Pcg32::from_state(a.state(), a.inc(), a.draws_u32());
  EXPECT_EQ(a, b);
  EXPECT_EQ(Bits(a.uniform_f64()), Bits(b.uniform_f64()));
  EXPECT_EQ(b.draws_u32(), 4u);
}

}  // namespace
}  // namespace exactsample
