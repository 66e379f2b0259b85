// NucleusFromBounds (lib/engine/top_p_bounds.cc), steps 5 to 7 on the f32 row from
// an enclosure of Z: whenever it decides, K after top-p is the reference
// engine's; it decides on peaked rows, through either candidate level and
// with penalised ids entering or leaving the candidates; and it hands over
// (nullopt) where the cut is not decided by the interval: p equal to a
// running sum of the walk, and a flat row whose nucleus no candidate set
// holds (the whole call then still equals the reference), or another
// rounding mode.
#include "lib/engine/steps.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cfenv>
#include <cmath>
#include <numeric>
#include <optional>
#include <string>
#include <vector>

#include "exactsample/exactsample.hpp"
#include "exactsample/pcg32.hpp"
#include "lib/engine/workspace.hpp"
#include "tests/support/test_util.hpp"
#include "tools/lib/standard_inputs.hpp"

namespace exactsample {
namespace {

struct Case {
  std::vector<float> row;
  SamplingParams params;
  std::vector<int32_t> generated;

  Request Of() const { return {row, {}, generated, params}; }
  std::string Describe() const {
    return "V=" + std::to_string(row.size()) + " T=" + std::to_string(params.temperature) +
           " p=" + std::to_string(params.top_p) + " (" +
           std::to_string(std::bit_cast<uint64_t>(params.top_p)) +
           ") rep=" + std::to_string(params.repetition_penalty) +
           " window=" + std::to_string(generated.size());
  }
};

// K after top-p, ascending, from NucleusFromBounds; nullopt when it hands over.
std::optional<std::vector<int32_t>> FromBounds(const Case& c, Workspace& workspace) {
  detail::WorkspaceImpl& ws = detail::WorkspaceAccess::Of(workspace);
  const Request request = c.Of();
  const Plan plan = Plan::Of(request, {});
  EXPECT_TRUE(plan.path.f32_row) << c.Describe();
  ws.Reserve(request.vocab());
  Result<Logits> logits = PenalizedLogits(request, plan, ws);
  EXPECT_TRUE(logits.ok()) << c.Describe();
  simd::Cut cut;
  const std::optional<KeptSet> kept = NucleusFromBounds(*logits, c.params, plan, ws, cut);
  if (!kept) return std::nullopt;
  EXPECT_TRUE(cut.found) << c.Describe();
  std::vector<int32_t> ids;
  for (size_t j = 0; j < kept->n; ++j) {
    if (kept->e[j] > 0.0) ids.push_back(kept->Id(j));
  }
  return ids;
}

// The reference engine's K after top-p and the penalised logits.
Trace Reference(const Case& c) {
  Workspace ws;
  Trace trace;
  Pcg32 rng = stream(1, Purpose::sample);
  const Result<Token> token =
      sample(c.Of(), rng, ws, {.engine = Engine::reference, .trace = &trace});
  EXPECT_TRUE(token.ok()) << c.Describe();
  std::sort(trace.kept_top_p.begin(), trace.kept_top_p.end());
  return trace;
}

// The whole call, fast against reference: token, logprobs, generator.
void ExpectParity(const Case& c, Workspace& fast_ws) {
  Workspace ref_ws;
  for (uint64_t seed : {0, 1, 2}) {
    Pcg32 ref_rng = stream(seed, Purpose::sample);
    Pcg32 fast_rng = ref_rng;
    const auto want = sample(c.Of(), ref_rng, ref_ws, {.engine = Engine::reference});
    const auto got = sample(c.Of(), fast_rng, fast_ws, {.engine = Engine::fast});
    ASSERT_EQ(test::OutcomeOf(got, fast_rng), test::OutcomeOf(want, ref_rng))
        << c.Describe() << " seed " << seed;
  }
}

// The spec's step 7 running sums over every id, in walk order, from the
// penalised logits: s[j] after the j-th id of (t desc, id asc).
std::vector<double> WalkSums(const std::vector<double>& l, double temperature) {
  const size_t n = l.size();
  std::vector<double> t(n);
  for (size_t i = 0; i < n; ++i) t[i] = l[i] / temperature;
  const double max_t = *std::max_element(t.begin(), t.end());
  std::vector<double> e(n);
  double z = 0.0;
  for (size_t i = 0; i < n; ++i) {
    e[i] = std::exp(t[i] - max_t);
    z += e[i];
  }
  std::vector<size_t> order(n);
  std::iota(order.begin(), order.end(), size_t{0});
  std::sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    return t[a] > t[b] || (t[a] == t[b] && a < b);
  });
  std::vector<double> sums;
  double s = 0.0;
  for (const size_t i : order) {
    s += e[i] / z;
    sums.push_back(s);
  }
  return sums;
}

Case PeakedCase(size_t vocab, uint64_t seed) {
  Case c{StandardRow(vocab, seed), {}, {}};
  c.params.temperature = 0.7;
  c.params.top_p = 0.9;
  return c;
}

// A language model's shape: the r-th most likely id (in a shuffled order)
// with logit -1.1 ln(1 + r), so q spans every candidate level with many ids.
Case ZipfCase(size_t vocab, uint64_t seed) {
  std::vector<size_t> rank(vocab);
  std::iota(rank.begin(), rank.end(), size_t{0});
  test::SplitMix rng{seed};
  for (size_t i = vocab; i > 1; --i) std::swap(rank[i - 1], rank[rng.Next() % i]);
  Case c{std::vector<float>(vocab), {}, {}};
  for (size_t i = 0; i < vocab; ++i) {
    c.row[i] = static_cast<float>(-1.1 * std::log1p(static_cast<double>(rank[i])));
  }
  c.params.temperature = 0.7;
  c.params.top_p = 0.9;
  return c;
}

TEST(NucleusFromBounds, DecidesAsTheReferenceOnPeakedRows) {
  Workspace ws;
  size_t decided = 0, cases = 0;
  for (size_t vocab : {size_t{3000}, size_t{70000}, size_t{128256}}) {
    if (vocab > 3000 && test::ShareDivisor() > 1) continue;
    // Two rows of each length: each setting below on rows of the same kind.
    for (uint64_t seed = 0; seed < 2; ++seed) {
      for (double temperature : {0.7, 1.3, 0.05}) {
        for (double p : {0.3, 0.9, 0.95, 0.999}) {
          for (int penalties = 0; penalties < 3; ++penalties) {
            Case c = PeakedCase(vocab, seed + 10 * vocab);
            c.params.temperature = temperature;
            c.params.top_p = p;
            if (penalties > 0) {
              // 0.5 raises the negative logits of the window's ids (some
              // enter the candidates by their patch), 1.3 lowers the top ids
              // (some leave them).
              c.params.repetition_penalty = penalties == 1 ? 0.5 : 1.3;
              c.params.frequency_penalty = 0.2;
              const auto top = static_cast<int32_t>(
                  std::max_element(c.row.begin(), c.row.end()) - c.row.begin());
              c.generated = {top};
              test::SplitMix rng{seed + 5};
              for (int j = 0; j < 200; ++j) {
                c.generated.push_back(static_cast<int32_t>(rng.Next() % vocab));
              }
            }
            const std::optional<std::vector<int32_t>> got = FromBounds(c, ws);
            ++cases;
            // Below T = 1 these rows' nuclei fit the candidates at p <= 0.95;
            // at 0.999, or flattened by T = 1.3, many hold too many ids.
            if (temperature < 1.0 && p <= 0.95) {
              ASSERT_TRUE(got) << c.Describe();
            }
            if (!got) continue;
            ++decided;
            ASSERT_EQ(*got, Reference(c).kept_top_p) << c.Describe();
          }
        }
      }
    }
  }
  EXPECT_GE(decided * 4, cases * 3) << decided << " of " << cases;
}

// Cuts at the last ids whose q reaches 2^-L (every candidate level
// q >= 2^-L Z among them, L from 6 to 17), on Zipf rows and on a dense
// one: the level's candidates must reach down to them, the compaction's
// threshold on the logits being only a little below theirs.
TEST(NucleusFromBounds, CutsAtTheEdgeOfEachLevel) {
  Workspace ws;
  size_t tried = 0;
  for (const size_t vocab : {size_t{3000}, size_t{70000}}) {
    if (vocab > 3000 && test::ShareDivisor() > 1) continue;  // emulated: the long row left out
    for (uint64_t seed = 0; seed < 3; ++seed) {
      Case c = ZipfCase(vocab, seed + 20);
      if (seed == 2) {  // dense: an id every 3e-4 in logit
        test::SplitMix rng{seed};
        for (float& x : c.row) x = static_cast<float>(rng.Uniform(-20.0, 0.0));
      }
      const std::vector<double> sums = WalkSums(Reference(c).penalized, c.params.temperature);
      for (int level = 6; level <= 17; ++level) {
        // The last ids (q falls along the walk) at or above the level.
        const double q_level = std::ldexp(1.0, -level) * (1 + 1e-8);
        size_t last = 0;
        for (size_t j = 1; j < sums.size() && sums[j] - sums[j - 1] >= q_level; ++j) last = j;
        // (Candidates past the compact capacity hand over.)
        if (last < 3 || last > CompactCapacity(vocab) / 2 || sums[last] > 0.999) continue;
        for (size_t j = last - 2; j <= last; ++j) {
          c.params.top_p = (sums[j - 1] + sums[j]) / 2;  // the cut is the j-th id
          const std::optional<std::vector<int32_t>> got = FromBounds(c, ws);
          ASSERT_TRUE(got.has_value()) << c.Describe() << " level " << level;
          ASSERT_EQ(*got, Reference(c).kept_top_p) << c.Describe() << " level " << level;
          ASSERT_EQ(got->size(), j + 1) << c.Describe();
          ++tried;
        }
      }
    }
  }
  EXPECT_GE(tried, test::ShareDivisor() > 1 ? 20u : 60u);
}

TEST(NucleusFromBounds, HandsOverWhereZDecides) {
  Workspace ws;
  size_t tried = 0;
  for (uint64_t seed = 0; seed < 3; ++seed) {
    Case c = PeakedCase(3000, seed);
    c.params.top_p = 0.5;
    const Trace trace = Reference(c);
    const std::vector<double> sums = WalkSums(trace.penalized, c.params.temperature);
    for (size_t j = 1; j < 40; ++j) {
      if (sums[j] >= 0.999 || sums[j] - sums[j - 1] < 1e-6) continue;
      c.params.top_p = sums[j];  // s reaches p exactly at the j-th id
      EXPECT_EQ(FromBounds(c, ws), std::nullopt) << c.Describe() << " j=" << j;
      ExpectParity(c, ws);
      c.params.top_p = std::nextafter(sums[j], 1.0);
      ExpectParity(c, ws);
      ++tried;
    }
  }
  EXPECT_GE(tried, 20u);
}

TEST(NucleusFromBounds, HandsOverAFlatRow) {
  Workspace ws;
  Case c = PeakedCase(70000, 3);
  for (float& x : c.row) x = std::min(x, 1.0f);  // no candidate set holds the nucleus
  c.params.top_p = 0.95;
  EXPECT_EQ(FromBounds(c, ws), std::nullopt);
  ExpectParity(c, ws);
}

// Another rounding mode voids the bounds' error analysis (the reduction's
// rounding to an integer among it): the exact pass decides.
TEST(NucleusFromBounds, HandsOverInAnotherRoundingMode) {
  Workspace ws;
  const Case c = PeakedCase(3000, 4);
  ASSERT_TRUE(FromBounds(c, ws).has_value());
  for (const int mode : {FE_UPWARD, FE_TOWARDZERO}) {
    ASSERT_EQ(0, std::fesetround(mode));
    const bool handed_over = !FromBounds(c, ws).has_value();
    std::fesetround(FE_TONEAREST);
    EXPECT_TRUE(handed_over) << mode;
  }
}

}  // namespace
}  // namespace exactsample
