// simd::NucleusCut against twins::NucleusCut on every compiled and
// supported target: peaked and flat rows, ties in t (quantized logits, equal
// logits, distinct logits that divide to one t), divisors other than 1,
// masked runs, underflowed e, and p at 0, tiny, common values, exactly on a
// partial sum of the walk and next to it, and out of reach.
#include "scalar_ref/twins/nucleus.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

#include "hwy/highway.h"
#include "scalar_ref/order.hpp"
#include "simd/nucleus.hpp"
#include "tests/support/test_util.hpp"
#include "tests/support/walk_test_util.hpp"

namespace exactsample {
namespace {

using Rng = test::SplitMix;
using twins::Cut;
using test::Bits;

double Uniform(Rng& rng, double lo, double hi) {
  return std::uniform_real_distribution<double>(lo, hi)(rng);
}

// The running sums of the twin's walk, in its order.
std::vector<double> PartialSums(const test::Row& row) {
  auto t = [&](size_t i) { return row.l[i] / row.divisor; };
  std::vector<size_t> ids;
  for (size_t i = 0; i < row.e.size(); ++i) {
    if (row.e[i] > 0) ids.push_back(i);
  }
  std::sort(ids.begin(), ids.end(), [&](size_t a, size_t b) {
    return t(a) != t(b) ? t(a) > t(b) : a < b;
  });
  std::vector<double> sums;
  double s = 0.0;
  for (size_t i : ids) sums.push_back(s += row.e[i] / row.z);
  return sums;
}

std::vector<double> ProbesFor(Rng& rng, const test::Row& row) {
  std::vector<double> p = {0.0, 0x1p-1074, 1e-300,   0.5,
                           0.9, 0.95,      0.999999, Uniform(rng, 0, 1)};
  const std::vector<double> sums = PartialSums(row);
  for (int k = 0; k < 4 && !sums.empty(); ++k) {
    // Early sums matter too: bias toward the head of the walk.
    const size_t at = rng() % 2 ? rng() % std::min<size_t>(sums.size(), 64)
                                : rng() % sums.size();
    p.push_back(sums[at]);
    p.push_back(std::nextafter(sums[at], 0.0));
    p.push_back(std::nextafter(sums[at], 1.0));
  }
  if (!sums.empty()) p.push_back(sums.back());
  return p;
}

// Logits that sit on a few adjacent doubles: distinct l that a divisor maps
// to one t, and exact ties.
void CrowdLogits(Rng& rng, test::Row& row) {
  const double centers[] = {Uniform(rng, -3, 3), Uniform(rng, -3, 3), 1.0, 2.0};
  for (double& l : row.l) {
    if (l == -INFINITY || rng() % 4 == 0) continue;
    double v = centers[rng() % 4];
    for (int k = static_cast<int>(rng() % 6); k > 0; --k)
      v = std::nextafter(v, INFINITY);
    l = v;
  }
  test::Softmax(row);
}

// Masked runs: stretches of l = -inf, e = 0.
void MaskRuns(Rng& rng, test::Row& row) {
  const size_t n = row.l.size();
  for (int runs = 1 + static_cast<int>(rng() % 4); runs > 0 && n > 1; --runs) {
    const size_t begin = rng() % n;
    const size_t end = std::min(n, begin + 1 + rng() % (n / 2 + 1));
    for (size_t i = begin; i < end; ++i) row.l[i] = -INFINITY;
  }
  if (std::all_of(row.l.begin(), row.l.end(),
                  [](double l) { return l == -INFINITY; })) {
    row.l[0] = 0.0;
  }
  test::Softmax(row);
}

// e no longer follows t (the kernel does not rely on it): the guesses of where
// the nucleus ends miss, and the walk has to go on past them.
void ShuffleKept(Rng& rng, test::Row& row) {
  std::vector<double> kept;
  for (double e : row.e) {
    if (e > 0) kept.push_back(e);
  }
  std::shuffle(kept.begin(), kept.end(), rng);
  size_t k = 0;
  for (double& e : row.e) {
    if (e > 0) e = kept[k++];
  }
}

test::Row MakeCase(Rng& rng, size_t n, int kind) {
  test::RowShape shape;
  const double divisors[] = {1.0, 0.8, 0.7, 1.3, 3.0, 10.0, 20.0, 100.0};
  shape.divisor = divisors[rng() % 8];
  switch (kind % 8) {
    case 0:  // peaked
      shape.raised = 20;
      break;
    case 1:  // flat
      shape.divisor = Uniform(rng, 10, 100);
      shape.raised = rng() % 2 ? 20 : 0;
      break;
    case 2:  // quantized: many exact ties
      shape.quantum = rng() % 2 ? 0.5 : 0.01;
      break;
    case 3:  // one logit for all: every e equal
      shape.sigma = 0.0;
      break;
    case 4:  // wide: e underflows to 0 for kept ids, subnormal e
      shape.sigma = Uniform(rng, 50, 400);
      shape.divisor = 1.0;
      break;
    default:
      shape.sigma = std::exp(Uniform(rng, -3, 3));
      shape.raised = rng() % 3 ? 0 : 1 + rng() % 20;
      shape.masked = rng() % 3 ? 0.0 : Uniform(rng, 0.1, 0.999);
      break;
  }
  test::Row row = test::MakeRow(rng, n, shape);
  if (kind % 8 == 5) CrowdLogits(rng, row);
  if (kind % 8 == 6) MaskRuns(rng, row);
  if (kind % 16 == 7)
    row.z *= 2;  // q sums to about 1/2: p = 0.9 is never reached
  if (kind % 16 == 15) ShuffleKept(rng, row);
  return row;
}

struct Probe {
  const test::Row* row;
  double p;
  Cut want;
};

void CheckAllTargets(const std::vector<Probe>& probes) {
  test::ForEachTarget([&](int64_t target) {
    for (size_t k = 0; k < probes.size(); ++k) {
      const Probe& pr = probes[k];
      const test::Row& row = *pr.row;
      const size_t n = row.l.size();
      std::vector<uint32_t> scratch(simd::NucleusScratchWords(n), 0xFFFFFFFFu);
      const Cut got = simd::NucleusCut(row.l.data(), row.divisor, row.e.data(),
                                       n, row.z, pr.p, scratch);
      ASSERT_TRUE(got.found == pr.want.found &&
                  Bits(got.t) == Bits(pr.want.t) && got.id == pr.want.id &&
                  got.kept == pr.want.kept)
          << hwy::TargetName(target) << " probe " << k << " n " << n
          << " divisor " << row.divisor << " p " << pr.p << ": got ("
          << got.found << ", " << got.t << ", " << got.id << ", " << got.kept
          << ") want (" << pr.want.found << ", " << pr.want.t << ", "
          << pr.want.id << ", " << pr.want.kept << ")";
    }
  });
}

std::vector<Probe> ProbeRows(Rng& rng, const std::vector<test::Row>& rows) {
  std::vector<Probe> probes;
  for (const test::Row& row : rows) {
    for (double p : ProbesFor(rng, row)) {
      probes.push_back(
          {&row, p,
           twins::NucleusCut(row.l.data(), row.divisor, row.e.data(),
                                  row.l.size(), row.z, p)});
    }
  }
  return probes;
}

// `count` rows of every kind (ties, masked runs, underflowed e, e not
// following t, p out of reach), of lengths drawn by length(rng, k), on
// every target.
template <class Length>
void CheckRowsOfLengths(uint64_t seed, int count, const Length& length) {
  Rng rng(seed);
  std::vector<test::Row> rows;
  for (int k = 0; k < static_cast<int>(test::Share(count)); ++k) {
    rows.push_back(MakeCase(rng, length(rng, k), k));
  }
  CheckAllTargets(ProbeRows(rng, rows));
}

// 480 rows: each of MakeCase's 16 kinds 30 times (the even kinds 6 times
// at 16 ids or fewer).
TEST(NucleusCutTest, SmallRowsMatchTwin) {
  CheckRowsOfLengths(5, 480, [](Rng& rng, int k) -> size_t {
    return k % 10 == 0 ? 1 + rng() % 16 : 1 + rng() % 5000;
  });
}

// Rows of up to 256 ids are sorted whole (the candidates of a peaked row):
// the lengths around that limit.
TEST(NucleusCutTest, SortedRowsMatchTwin) {
  CheckRowsOfLengths(9, 3000, [](Rng& rng, int k) -> size_t {
    return k % 4 == 0 ? 250 + rng() % 12 : 1 + rng() % 300;
  });
}

TEST(NucleusCutTest, VocabularyRowsMatchTwin) {
  Rng rng(6);
  std::vector<test::Row> rows;
  for (int k = 0; k < static_cast<int>(test::Share(8)); ++k)
    rows.push_back(MakeCase(rng, k % 2 ? 128256 : 262144, k));
  CheckAllTargets(ProbeRows(rng, rows));
}

// The rows of the speed measurement: V = 128256, 20 ids raised by 8..14.
TEST(NucleusCutTest, StandardRowsMatchTwin) {
  Rng rng(7);
  std::vector<test::Row> rows;
  for (double temperature : {0.8, 1.0, 20.0}) {
    test::RowShape shape;
    shape.raised = 20;
    shape.divisor = temperature;
    rows.push_back(test::MakeRow(rng, 128256, shape));
  }
  CheckAllTargets(ProbeRows(rng, rows));
}

// The tier bound: distinct l that divide to one t must not straddle it. Rows
// rarely put an l exactly on the bound, so the helper is checked directly.
TEST(NucleusCutTest, TierBoundIsWhereTChanges) {
  Rng rng(8);
  size_t moved = 0;
  for (double divisor : {1.0, 0.8, 0.7, 1.3, 3.0, 100.0}) {
    const auto t = [divisor](double l) { return scalar_ref::Tempered(l, divisor); };
    for (int k = 0; k < 20000; ++k) {
      const double l =
          std::ldexp(Uniform(rng, -2, 2), static_cast<int>(rng() % 8));
      const double b = scalar_ref::TemperedBoundaryAtOrBelow(l, divisor);
      ASSERT_LE(b, l);
      ASSERT_EQ(Bits(t(b)), Bits(t(l)));
      ASSERT_LT(t(std::nextafter(b, -INFINITY)), t(b));
      moved += b != l;
    }
  }
  EXPECT_GT(moved, 1000u);  // the bound does move
}

}  // namespace
}  // namespace exactsample
