#include "scalar_ref/kept.hpp"

#include <algorithm>
#include <cmath>

#include "scalar_ref/order.hpp"

namespace exactsample::scalar_ref {

Softmax SoftmaxOver(const Logits& l, const Ids& kept) {
  Softmax s;
  for (int32_t i : kept) s.max = std::max(s.max, l[i]);
  std::vector<double> e(kept.size());
  for (size_t j = 0; j < kept.size(); ++j) {
    e[j] = std::exp(l[kept[j]] - s.max);
    s.z += e[j];
  }
  s.q.resize(kept.size());
  for (size_t j = 0; j < kept.size(); ++j) s.q[j] = e[j] / s.z;
  return s;
}

std::vector<double> LogProbs(const Logits& l, const Ids& kept, const Softmax& s) {
  const double log_z = std::log(s.z);
  std::vector<double> lp(kept.size());
  for (size_t j = 0; j < kept.size(); ++j) lp[j] = (l[kept[j]] - s.max) - log_z;
  return lp;
}

double Entropy(const Softmax& s, const std::vector<double>& lp) {
  double sum = 0.0;
  for (size_t j = 0; j < lp.size(); ++j) sum += s.q[j] * lp[j];
  return -sum;
}

std::vector<size_t> DescendingOrder(const Logits& l, const Ids& kept) {
  std::vector<size_t> order(kept.size());
  for (size_t j = 0; j < order.size(); ++j) order[j] = j;
  std::sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    return Before(l[kept[a]], kept[a], l[kept[b]], kept[b]);
  });
  return order;
}

Ids Select(const Ids& kept, const std::vector<bool>& keep) {
  Ids out;
  for (size_t j = 0; j < kept.size(); ++j) {
    if (keep[j]) out.push_back(kept[j]);
  }
  return out;
}

Ids FirstOf(const Ids& kept, const std::vector<size_t>& order, size_t n) {
  std::vector<bool> keep(kept.size(), false);
  for (size_t r = 0; r < n && r < order.size(); ++r) keep[order[r]] = true;
  return Select(kept, keep);
}

}  // namespace exactsample::scalar_ref
