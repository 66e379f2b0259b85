#include "scalar_ref/filters.hpp"

#include <algorithm>
#include <cmath>

namespace exactsample::scalar_ref {
namespace {

// Walks `order` adding q; keeps up to and including the first position
// where `reached(s)` and at least min_keep are kept (all of K if none is).
template <class Reached>
Ids Prefix(const Ids& kept, const std::vector<size_t>& order, const std::vector<double>& q,
           int64_t min_keep, Reached reached) {
  std::vector<bool> keep(kept.size(), false);
  double s = 0.0;
  int64_t n = 0;
  for (size_t j : order) {
    keep[j] = true;
    s += q[j];
    ++n;
    if (reached(s) && n >= min_keep) break;
  }
  return Select(kept, keep);
}

}  // namespace

Ids TopK(const Logits& l, const Ids& kept, int64_t k) {
  if (k <= 0 || static_cast<size_t>(k) >= kept.size()) return kept;
  return FirstOf(kept, DescendingOrder(l, kept), static_cast<size_t>(k));
}

Ids TopP(const Logits& l, const Ids& kept, double p, int64_t min_keep) {
  const Softmax sm = SoftmaxOver(l, kept);
  return Prefix(kept, DescendingOrder(l, kept), sm.q, min_keep,
                [p](double s) { return s >= p; });
}

Ids MinP(const Logits& l, const Ids& kept, double m, int64_t min_keep) {
  const Softmax sm = SoftmaxOver(l, kept);
  const double threshold = m * *std::max_element(sm.q.begin(), sm.q.end());
  size_t n = 0;
  for (double q : sm.q) n += q >= threshold;
  return FirstOf(kept, DescendingOrder(l, kept),
                 std::max(n, static_cast<size_t>(min_keep)));
}

Ids TopNSigma(const Logits& l, const Ids& kept, double n) {
  const std::optional<double> t = SigmaThreshold(SigmaSumsOf([&](const auto& f) {
                                                   for (int32_t i : kept) f(l[i]);
                                                 }),
                                                 n);
  if (!t) return kept;
  Ids out;
  for (int32_t i : kept) {
    if (l[i] >= *t) out.push_back(i);
  }
  return out;
}

Ids Typical(const Logits& l, const Ids& kept, double p, int64_t min_keep) {
  const Softmax sm = SoftmaxOver(l, kept);
  const std::vector<double> lp = LogProbs(l, kept, sm);
  const double entropy = Entropy(sm, lp);
  std::vector<double> score(kept.size());
  for (size_t j = 0; j < kept.size(); ++j) score[j] = std::fabs(-lp[j] - entropy);
  std::vector<size_t> order(kept.size());
  for (size_t j = 0; j < order.size(); ++j) order[j] = j;
  std::sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    return score[a] < score[b] || (score[a] == score[b] && kept[a] < kept[b]);
  });
  return Prefix(kept, order, sm.q, min_keep, [p](double s) { return s > p; });
}

Ids Xtc(const Logits& l, const Ids& kept, double u, double probability, double threshold,
        int64_t min_keep) {
  if (!(u < probability)) return kept;
  const Softmax sm = SoftmaxOver(l, kept);
  const std::vector<size_t> order = DescendingOrder(l, kept);
  size_t above = 0;  // the ids with q >= threshold are the first of order K
  while (above < order.size() && sm.q[order[above]] >= threshold) ++above;
  if (above < 2 || static_cast<int64_t>(kept.size() - (above - 1)) < min_keep) return kept;
  std::vector<bool> keep(kept.size(), true);
  for (size_t r = 0; r + 1 < above; ++r) keep[order[r]] = false;
  return Select(kept, keep);
}

}  // namespace exactsample::scalar_ref
