// InverseCdfFromSums against the spec's walk (scalar_ref::InverseCdf): on
// every target, whenever it decides, the id is the walk's; it decides
// nearly every uniform draw; and it declines rather than guesses for draws
// on or just below a partial sum of q, past the last one, and outside the
// ranges its bound covers. The running sums it reads are made here by a
// plain loop, independently of the exp-sum pass.
#include "lib/engine/steps.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <optional>
#include <random>
#include <vector>

#include "scalar_ref/twins/cdf.hpp"
#include "tests/support/walk_test_util.hpp"

namespace exactsample {
namespace {

using Rng = test::SplitMix;

// prefix[k] = e[0] + ... + e[k * piece - 1] in order; the last entry is z.
std::vector<double> Prefix(const test::Row& row, size_t piece) {
  const size_t n = row.e.size();
  std::vector<double> prefix = {0.0};
  double t = 0.0;
  for (size_t i = 0; i < n; ++i) {
    t += row.e[i];
    if ((i + 1) % piece == 0 || i + 1 == n) prefix.push_back(t);
  }
  return prefix;
}

std::vector<test::Row> Rows(Rng& rng) {
  std::vector<test::Row> rows;
  const size_t lengths[] = {1, 2, 7, 100, 4096, 4097, 50000, 128256, 262144};
  for (size_t n : lengths) {
    for (int k = 0; k < (n > 50000 ? 3 : 12); ++k) {
      test::RowShape shape;
      shape.sigma = k % 3 == 0 ? 0.3 : (k % 3 == 1 ? 1.5 : 6.0);  // flat to peaked
      shape.raised = k % 2 ? 20 : 0;
      shape.divisor = k % 4 == 3 ? 0.7 : 1.0;
      shape.masked = k % 5 == 4 ? 0.9 : 0.0;
      shape.quantum = k % 6 == 5 ? 0.25 : 0.0;  // many equal e: ties
      rows.push_back(test::MakeRow(rng, n, shape));
    }
  }
  return rows;
}

struct Tally {
  size_t decided = 0, declined = 0;
};

// The sums of `prefix` for pieces of `piece` ids.
RowSums Sums(size_t n, const std::vector<double>& prefix, size_t piece) {
  return {RowPieces{n, piece, prefix.size() - 1}, prefix};
}

// Checks one draw on the dispatched target; returns whether it was decided.
bool Check(const test::Row& row, const std::vector<double>& prefix, size_t piece,
           double u) {
  const size_t n = row.e.size();
  const std::optional<size_t> got =
      InverseCdfFromSums(row.e.data(), row.z, u, Sums(n, prefix, piece));
  if (got) {
    EXPECT_EQ(*got, twins::InverseCdf(row.e.data(), n, row.z, u))
        << "n " << n << " piece " << piece << " u " << u;
  }
  return got.has_value();
}

TEST(InverseCdfFromSums, DecidesUniformDrawsAsTheWalk) {
  Rng rng(17);
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  const std::vector<test::Row> rows = Rows(rng);
  test::ForEachTarget([&](int64_t target) {
    SCOPED_TRACE(hwy::TargetName(target));
    Tally tally;
    for (const test::Row& row : rows) {
      const size_t n = row.e.size();
      for (size_t piece : {size_t{4096}, size_t{64}, n}) {
        const std::vector<double> prefix = Prefix(row, piece);
        for (int k = 0; k < 8; ++k) {
          (Check(row, prefix, piece, unit(rng)) ? tally.decided : tally.declined)++;
        }
      }
    }
    // Declining is allowed only within about 2^-34 of a partial sum here.
    EXPECT_GT(tally.decided, 1500u);
    EXPECT_LE(tally.declined, tally.decided / 500);
  });
}

// Draws on a partial sum c_k of the walk and just below it (the walk stops
// at the next positive q, or at k), at and past the last partial sum (the
// fallback), at the ends of [0, 1) and below 2^-60 (not covered).
TEST(InverseCdfFromSums, DeclinesWhatTheBoundDoesNotDecide) {
  Rng rng(23);
  Tally near;
  for (const test::Row& row : Rows(rng)) {
    const size_t n = row.e.size();
    const std::vector<double> prefix = Prefix(row, 4096);
    std::vector<double> partial;
    double c = 0.0;
    for (size_t i = 0; i < n; ++i) {
      c += row.e[i] / row.z;
      if (row.e[i] > 0) partial.push_back(c);
    }
    std::vector<double> draws = {std::nextafter(1.0, 0.0), 1.0 - 0x1p-40};
    if (c < 1.0) draws.push_back(c);
    for (int k = 0; k < 10; ++k) {
      const double ck = partial[rng() % partial.size()];
      if (ck < 1.0) draws.push_back(ck);
      draws.push_back(std::nextafter(ck, 0.0));
    }
    for (double u : draws) (Check(row, prefix, 4096, u) ? near.decided : near.declined)++;
    for (double u : {0.0, 0x1p-1074, 0x1p-61}) {
      EXPECT_FALSE(InverseCdfFromSums(row.e.data(), row.z, u, Sums(n, prefix, 4096)))
          << "u " << u;
    }
  }
  // Most of these sit inside the band the bound leaves open.
  EXPECT_GT(near.declined, near.decided);
}

TEST(InverseCdfFromSums, DeclinesOutsideItsRange) {
  const std::vector<double> e = {0.25, 1.0, 0.5};
  const double z = 1.75;
  const std::vector<double> prefix = {0.0, z};
  EXPECT_EQ(InverseCdfFromSums(e.data(), z, 0.5, Sums(3, prefix, 3)), 1u);
  EXPECT_FALSE(InverseCdfFromSums(e.data(), z, 0.5, Sums(0, prefix, 3)));
  // z far outside [2^-400, 2^400]: the same row scaled.
  for (int scale : {-500, 500}) {
    std::vector<double> scaled = e;
    for (double& v : scaled) v = std::ldexp(v, scale);
    const std::vector<double> p = {0.0, std::ldexp(z, scale)};
    EXPECT_FALSE(InverseCdfFromSums(scaled.data(), p[1], 0.5, Sums(3, p, 3)));
  }
}

}  // namespace
}  // namespace exactsample
