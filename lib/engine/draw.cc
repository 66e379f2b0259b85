// Steps 9 to 11: q = e / Z over K and the inverse CDF for one draw u.
#include "lib/engine/steps.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>

#include "scalar_ref/order.hpp"
#include "simd/cdf.hpp"
#include "simd/exact_sum.hpp"

namespace exactsample {

// The bound. With eps = 2^-53, i < n ids, E_i the exact sum of e[0..i],
// q_j = fl(e_j / z) = (e_j / z)(1 + d_j) + h_j (|d_j| <= eps, |h_j| <=
// 2^-1075 from underflow) and sequential sums of non-negative terms off by
// at most a factor (1 +- eps)^i:
//   T_i in [E_i (1 - eps)^i, E_i (1 + eps)^i],
//   c_i in [Q_i (1 - eps)^i, Q_i (1 + eps)^i], Q_i = sum of q_j,
// so c_i = (T_i / z)(1 + r) + a with |r| <= (2n + 1.01) eps <= beta / 2 and
// |a| <= n 2^-1074 < 2^-1042 (n < 2^31), where beta is the power of two at or
// above (2n + 2) 2^-52. With u >= 2^-60 and u z >= 2^-460, a is below
// u 2^-980 and the thresholds
//   lo = fl(fl(u z) (1 - beta)),  hi = fl(fl(u z) (1 + beta))
// (1 +- beta exact, each product off by a factor 1 +- eps, beta >= 8 eps)
// give: T_i < lo implies c_i <= u, and T_i >= hi implies c_i > u.
// T only grows, so when the first i with T_i >= lo also has T_i >= hi,
// every earlier c is <= u and c_i > u: i is the first id with u < c.
std::optional<size_t> InverseCdfFromSums(const double* e, double z, double u,
                                         const RowSums& sums,
                                         const ScatteredPieces* scattered) {
  const size_t n = sums.pieces.n;
  if (n == 0 || n >= (size_t{1} << 31) || !(u >= 0x1p-60) ||
      !(z >= 0x1p-400 && z <= 0x1p400)) {
    return std::nullopt;
  }
  const double beta = std::ldexp(1.0, static_cast<int>(std::bit_width(2 * n + 1)) - 52);
  const double lo = (u * z) * (1.0 - beta);
  const double hi = (u * z) * (1.0 + beta);
  // The piece where T first reaches lo, then the id inside it.
  const auto reach = std::lower_bound(sums.at.begin() + 1, sums.at.end(), lo);
  if (reach == sums.at.end()) return std::nullopt;
  const size_t k = static_cast<size_t>(reach - sums.at.begin()) - 1;
  const size_t begin = sums.pieces.Begin(k);
  const size_t length = sums.pieces.Length(k);
  double t = sums.at[k];
  const double* const piece = scattered != nullptr ? scattered->Piece(k) : e + begin;
  const size_t i = simd::AccumulateUntil(t, piece, length, lo);
  if (i == length || t < hi) return std::nullopt;
  return begin + i;
}

double ProcessedLogprob(const Logits& logits, const KeptSet& kept, size_t j,
                        double temperature) {
  // M_K is the largest t: the largest logit's, which every filter keeps.
  const double max_t = scalar_ref::Tempered(logits.max, temperature) + 0.0;
  return (scalar_ref::Tempered(logits.At(static_cast<size_t>(kept.Id(j))), temperature) -
          max_t) -
         std::log(kept.z);
}

size_t Draw(const KeptSet& kept, double u) {
  if (kept.sums) {
    if (const auto hit = InverseCdfFromSums(kept.e, kept.z, u, *kept.sums, kept.scattered)) {
      return *hit;
    }
  }
  const double* const e = kept.scattered != nullptr ? kept.scattered->Gather() : kept.e;
  return simd::InverseCdf(e, kept.n, kept.z, u);
}

}  // namespace exactsample

namespace exactsample {

void Distribution(const KeptSet& kept, std::vector<KeptProb>& out) {
  const double* const e = kept.scattered != nullptr ? kept.scattered->Gather() : kept.e;
  for (size_t j = 0; j < kept.n; ++j) {
    const double q = e[j] / kept.z;  // 0 where e is (outside K) or underflows
    if (q > 0) out.push_back({kept.Id(j), q});
  }
}

double KeptSetView::Q(int32_t id) const {
  if (kept_.scattered != nullptr) return scalar_ref::ProbabilityOf(All(), id);
  size_t j = static_cast<size_t>(id);
  if (kept_.id_of != nullptr) {
    j = kept_.Entry(id);
    if (j == kept_.n || kept_.id_of[j] != id) return 0.0;
  } else if (id < 0 || j >= kept_.n) {
    return 0.0;
  }
  return kept_.e[j] / kept_.z;
}

std::span<const KeptProb> KeptSetView::All() const {
  if (built_ == nullptr) {
    storage_.clear();
    Distribution(kept_, storage_);
    built_ = &storage_;
  }
  return *built_;
}

}  // namespace exactsample
