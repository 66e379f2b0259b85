// simd/max.hpp and simd/penalty.hpp against their scalar twins, bit for
// bit, on every compiled and supported target.
#include "scalar_ref/twins/max.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <vector>

#include "hwy/tests/hwy_gtest.h"
#include "simd/max.hpp"
#include "simd/penalty.hpp"
#include "tests/support/logit_rows.hpp"
#include "tests/support/test_util.hpp"

namespace exactsample::test {
namespace {

using test::Bits;

// Every length up to 70 (each tail length on every target), then large rows.
std::vector<size_t> Sizes() {
  std::vector<size_t> sizes;
  for (size_t n = 1; n <= 70; ++n) sizes.push_back(n);
  for (size_t n : {127, 128, 129, 1000, 4099, 65537, 128256, 262144}) {
    sizes.push_back(n);
  }
  return sizes;
}

void CheckWiden(const std::vector<float>& x, const std::string& what) {
  std::vector<double> l(x.size(), 7.0), l_ref(x.size(), 7.0);
  const simd::WidenResult r = simd::WidenMax(x.data(), x.size(), l.data());
  const twins::WidenResult r_ref =
      twins::WidenMax(x.data(), x.size(), l_ref.data());
  ASSERT_EQ(r.bad, r_ref.bad) << what;
  ASSERT_EQ(0, std::memcmp(l.data(), l_ref.data(), l.size() * sizeof(double)))
      << what;
  // CheckedMax: the same maximum and check without the row; CopyCheckedMax
  // with the row copied bit for bit (NaN payloads and signed zeros too).
  const simd::WidenResult c = simd::CheckedMax(x.data(), x.size());
  const twins::WidenResult c_ref = twins::CheckedMax(x.data(), x.size());
  std::vector<float> copy(x.size() + 1, 7.0f), copy_ref(x.size() + 1, 7.0f);
  const simd::WidenResult cc = simd::CopyCheckedMax(x.data(), x.size(), copy.data());
  const twins::WidenResult cc_ref = twins::CopyCheckedMax(x.data(), x.size(), copy_ref.data());
  ASSERT_EQ(0, std::memcmp(copy.data(), x.data(), x.size() * sizeof(float))) << what;
  ASSERT_EQ(0, std::memcmp(copy_ref.data(), x.data(), x.size() * sizeof(float))) << what;
  ASSERT_EQ(copy.back(), 7.0f) << what << ": written past the end";
  ASSERT_EQ(c.bad, r_ref.bad) << what;
  ASSERT_EQ(c_ref.bad, r_ref.bad) << what;
  ASSERT_EQ(cc.bad, r_ref.bad) << what;
  ASSERT_EQ(cc_ref.bad, r_ref.bad) << what;
  if (!r.bad) {
    ASSERT_EQ(Bits(r.max), Bits(r_ref.max)) << what;
    ASSERT_EQ(Bits(c.max), Bits(r_ref.max)) << what;
    ASSERT_EQ(Bits(c_ref.max), Bits(r_ref.max)) << what;
    ASSERT_EQ(Bits(cc.max), Bits(r_ref.max)) << what;
    ASSERT_EQ(Bits(cc_ref.max), Bits(r_ref.max)) << what;
  }
}

class MaxTest : public hwy::TestWithParamTarget {};
HWY_TARGET_INSTANTIATE_TEST_SUITE_P(MaxTest);

TEST_P(MaxTest, WidenMaxMatchesTwin) {
  test::SplitMix rng(1);
  for (size_t n : Sizes()) {
    const std::string at = "n = " + std::to_string(n);
    CheckWiden(NormalRowF32(n, rng), "normal, " + at);
    CheckWiden(std::vector<float>(n, -INFINITY), "all -inf, " + at);
    std::vector<float> x = NormalRowF32(n, rng);
    std::fill(x.begin(), x.begin() + n / 2, -INFINITY);
    CheckWiden(x, "leading -inf, " + at);
    for (float& v : x) v = rng() % 2 ? -0.0f : (rng() % 2 ? 0.0f : -3.0f);
    CheckWiden(x, "signed zeros, " + at);
  }
}

// A bitmask over ids [0, first + n) allowing each id with probability
// `share`.
std::vector<uint32_t> RandomBits(size_t ids, double share, test::SplitMix& rng) {
  std::vector<uint32_t> words((ids + 31) / 32, 0);
  for (size_t i = 0; i < ids; ++i) {
    if (static_cast<double>(rng() >> 11) * 0x1p-53 < share) words[i / 32] |= 1u << (i % 32);
  }
  return words;
}

// With a mask: masked-out ids stored as -inf, the check over every x, the
// maximum over the rest; from ids that start mid-word too (`first`).
TEST_P(MaxTest, MaskedWidenMaxMatchesTwin) {
  test::SplitMix rng(5);
  for (size_t n : Sizes()) {
    for (size_t first : {0, 1, 7, 31}) {
      for (double share : {0.0, 0.03, 0.5, 0.97, 1.0}) {
        const std::string what = "n = " + std::to_string(n) + ", first " +
                                 std::to_string(first) + ", share " + std::to_string(share);
        const std::vector<uint32_t> words = RandomBits(first + n, share, rng);
        const simd::AllowedIds allowed{words.data(), first};
        std::vector<float> x = NormalRowF32(n, rng);
        x[rng() % n] = (rng() % 2) ? -INFINITY : -0.0f;
        if (n > 70 && rng() % 4 == 0) x[rng() % n] = NAN;  // masked or not
        std::vector<double> l(n, 7.0), l_ref(n, 7.0);
        const simd::WidenResult r = simd::WidenMax(x.data(), n, l.data(), allowed);
        const twins::WidenResult r_ref = twins::WidenMax(x.data(), n, l_ref.data(), allowed);
        ASSERT_EQ(r.bad, r_ref.bad) << what;
        ASSERT_EQ(r.bad, std::any_of(x.begin(), x.end(), [](float v) { return std::isnan(v); }))
            << what;
        ASSERT_EQ(0, std::memcmp(l.data(), l_ref.data(), n * sizeof(double))) << what;
        if (!r.bad) {
          ASSERT_EQ(Bits(r.max), Bits(r_ref.max)) << what;
        }
        for (size_t i = 0; i < n; ++i) {  // the twin against its definition
          const bool on = (words[(first + i) / 32] >> ((first + i) % 32)) & 1;
          ASSERT_EQ(Bits(l_ref[i]), Bits(on ? static_cast<double>(x[i]) : -INFINITY))
              << what << " id " << i;
        }
      }
    }
  }
}

// Penalty codes (twins::PenaltyCodes) for n ids: each in the window with
// probability `share`, with a generated count of 0 to 3, or now and then a
// large one (up to INT32_MAX, the largest code).
std::vector<int32_t> RandomCodes(size_t n, double share, test::SplitMix& rng) {
  std::vector<int32_t> codes(n, -1);
  for (int32_t& c : codes) {
    if (static_cast<double>(rng() >> 11) * 0x1p-53 >= share) continue;
    const uint64_t large = rng() % 8 == 0 ? INT32_MAX : rng() >> 41;
    c = static_cast<int32_t>(rng() % 64 == 0 ? large : rng() % 4);
  }
  return codes;
}

// Repetition below and above 1 and 1 itself, additive penalties of either
// sign and off (+0), and penalties that overflow (+inf; NaN from a -inf
// logit) so that `bad` is exercised.
const twins::Penalties kPenalties[] = {
    {1.3, 0.25, 0.5}, {0.7, 0.0, 0.0}, {1.0, -0.4, 0.1}, {2.5, 0.0, -1.0}, {1e-300, 0.0, 0.0},
    {1.0, -1e308, 0.0}};

// A row's twin result against the definition of steps 2 and 3 (the spec's
// operations written out here).
void CheckPenalizedTwin(const std::vector<double>& before, const std::vector<double>& after,
                        const std::vector<int32_t>& codes, const twins::Penalties& p,
                        const std::string& what) {
  for (size_t i = 0; i < before.size(); ++i) {
    double want = before[i];
    if (codes[i] >= 0) {
      want = want > 0 ? want / p.repetition : want * p.repetition;
      const int32_t count = codes[i];
      if (count > 0) want = want - p.frequency * static_cast<double>(count) - p.presence;
    }
    if (std::isnan(want)) {
      ASSERT_TRUE(std::isnan(after[i])) << what << " id " << i;
    } else {
      ASSERT_EQ(Bits(after[i]), Bits(want)) << what << " id " << i;
    }
  }
}

// simd::Penalize and simd::WidenMax with penalties (masked and not) against
// their twins: the same logits, maximum and check, over rows with signed
// zeros, -inf and huge logits.
TEST_P(MaxTest, PenaltiesMatchTwins) {
  test::SplitMix rng(11);
  for (size_t n : Sizes()) {
    const size_t kinds = n > 5000 ? 2 : std::size(kPenalties);
    for (size_t k = 0; k < kinds; ++k) {
      const twins::Penalties& p = kPenalties[(k + n) % std::size(kPenalties)];
      for (double share : {0.02, 0.25, 1.0}) {
        if (n > 5000 && share != 0.25) continue;
        const std::string what = "n = " + std::to_string(n) + ", penalties " + std::to_string(k) +
                                 ", share " + std::to_string(share);
        const std::vector<int32_t> codes = RandomCodes(n, share, rng);
        const twins::PenaltyCodes pc{codes.data(), p};
        std::vector<float> x = NormalRowF32(n, rng);
        for (size_t j = 0; j < 3; ++j) {
          const float special[] = {-0.0f, 0.0f, -INFINITY, 3e38f, -3e38f, 1e-45f};
          x[rng() % n] = special[rng() % std::size(special)];
        }
        const std::vector<uint32_t> words = RandomBits(n, 0.9, rng);
        for (const bool masked : {false, true}) {
          const simd::AllowedIds allowed{masked ? words.data() : nullptr, 0};
          std::vector<double> l(n, 7.0), l_ref(n, 7.0), widened(n);
          const simd::WidenResult r = simd::WidenMax(x.data(), n, l.data(), allowed, &pc);
          const twins::WidenResult r_ref =
              twins::WidenMax(x.data(), n, l_ref.data(), allowed, &pc);
          twins::WidenMax(x.data(), n, widened.data(), allowed);
          ASSERT_NO_FATAL_FAILURE(CheckPenalizedTwin(widened, l_ref, codes, p, what));
          ASSERT_EQ(r.bad, r_ref.bad) << what;
          ASSERT_EQ(r_ref.bad, std::any_of(l_ref.begin(), l_ref.end(),
                                           [](double v) { return !(v < INFINITY); }))
              << what;
          if (!r.bad) {
            ASSERT_EQ(0, std::memcmp(l.data(), l_ref.data(), n * sizeof(double))) << what;
            ASSERT_EQ(Bits(r.max), Bits(r_ref.max)) << what;
            ASSERT_EQ(Bits(r_ref.max), Bits(twins::Max(l_ref.data(), n))) << what;
          }
          // In place, over the widened row (as after a bias).
          std::vector<double> in_place = widened, in_place_ref = widened;
          const simd::PenaltyResult q = simd::Penalize(in_place.data(), n, pc);
          const twins::PenaltyResult q_ref = twins::Penalize(in_place_ref.data(), n, pc);
          ASSERT_EQ(q.bad, r_ref.bad) << what << " in place";
          ASSERT_EQ(q_ref.bad, r_ref.bad) << what << " in place";
          if (!q.bad) {
            ASSERT_EQ(0, std::memcmp(in_place.data(), l_ref.data(), n * sizeof(double))) << what;
            ASSERT_EQ(0, std::memcmp(in_place_ref.data(), l_ref.data(), n * sizeof(double)))
                << what;
            ASSERT_EQ(Bits(q.max), Bits(r_ref.max)) << what << " in place";
            ASSERT_EQ(Bits(q_ref.max), Bits(r_ref.max)) << what << " in place";
          }
        }
      }
    }
  }
}

TEST_P(MaxTest, WidenMaxFlagsNanAndInfAnywhere) {
  const float kBad[] = {std::numeric_limits<float>::quiet_NaN(),
                        -std::numeric_limits<float>::quiet_NaN(),
                        std::numeric_limits<float>::signaling_NaN(), INFINITY};
  test::SplitMix rng(2);
  for (size_t n : Sizes()) {
    std::vector<size_t> places;
    if (n <= 70) {
      for (size_t p = 0; p < n; ++p) places.push_back(p);
    } else {
      places = {0, 1, n / 2, n - 5, n - 2, n - 1, rng() % n, rng() % n};
    }
    const std::vector<float> clean = NormalRowF32(n, rng);
    for (size_t p : places) {
      for (float bad : kBad) {
        std::vector<float> x = clean;
        x[p] = bad;
        const std::string what = "bad " + std::to_string(bad) + " at " +
                                 std::to_string(p) +
                                 ", n = " + std::to_string(n);
        CheckWiden(x, what);
        ASSERT_TRUE(
            simd::WidenMax(x.data(), n, std::vector<double>(n).data()).bad)
            << what;
        ASSERT_TRUE(simd::CheckedMax(x.data(), n).bad) << what;
        ASSERT_TRUE(simd::CopyCheckedMax(x.data(), n, std::vector<float>(n).data()).bad) << what;
      }
    }
  }
}

TEST_P(MaxTest, MaxAndFindFirstMatchTwins) {
  test::SplitMix rng(3);
  for (Row row : kAllRows) {
    for (size_t n : Sizes()) {
      const std::vector<double> l = MakeRow(row, n, rng);
      const std::string what = RowName(row) + ", n = " + std::to_string(n);
      ASSERT_EQ(Bits(simd::Max(l.data(), n)),
                Bits(twins::Max(l.data(), n)))
          << what;
      const double m = simd::Max(l.data(), n);
      for (double value : {m, l[n / 2], l[n - 1], std::nextafter(m, INFINITY)}) {
        ASSERT_EQ(simd::FindFirst(l.data(), n, value),
                  twins::FindFirst(l.data(), n, value))
            << what << " value " << value;
      }
    }
  }
}

// The twins against their definitions: the first maximal element, and a
// zero maximum as +0.0.
TEST(MaxTwin, IsTheFirstLargest) {
  test::SplitMix rng(4);
  for (Row row : kAllRows) {
    for (size_t n : {1, 2, 3, 17, 1000}) {
      const std::vector<double> l = MakeRow(row, n, rng);
      const auto first = std::max_element(l.begin(), l.end());
      const double m = twins::Max(l.data(), n);
      EXPECT_EQ(twins::FindFirst(l.data(), n, m),
                static_cast<size_t>(first - l.begin()));
      EXPECT_EQ(m, *first);
      if (m == 0.0) {
        EXPECT_FALSE(std::signbit(m));
      }
    }
  }
  std::vector<double> l = {-0.0, -1.0, -0.0};
  EXPECT_EQ(Bits(twins::Max(l.data(), 3)), Bits(0.0));
  EXPECT_EQ(twins::FindFirst(l.data(), 3, 0.0), 0u);
  EXPECT_EQ(twins::FindFirst(l.data(), 3, 1.0), 3u);
}

}  // namespace
}  // namespace exactsample::test
