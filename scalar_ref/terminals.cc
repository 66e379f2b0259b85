#include "scalar_ref/terminals.hpp"

#include <algorithm>
#include <cmath>

namespace exactsample::scalar_ref {

std::optional<double> DynamicTemperature(const Logits& l, const Ids& kept, double t,
                                         double range, double exponent) {
  if (kept.size() == 1) return std::nullopt;
  const Softmax sm = SoftmaxOver(l, kept);
  const double eta =
      Entropy(sm, LogProbs(l, kept, sm)) / std::log(static_cast<double>(kept.size()));
  const double w = exponent == 0 ? 1.0 : eta == 0 ? 0.0 : std::exp(exponent * std::log(eta));
  const double t_min = std::max(0.0, t - range);
  const double t_max = t + range;
  return t_min + (t_max - t_min) * w;
}

Ids MirostatV1(const Logits& l, const Ids& kept, double mu, int64_t m, size_t vocab) {
  const std::vector<size_t> order = DescendingOrder(l, kept);
  const size_t terms = std::min(static_cast<size_t>(m - 1), kept.size() - 1);
  size_t k = 1;
  if (terms > 0) {
    double s_tb = 0.0;
    double s_tt = 0.0;
    for (size_t j = 0; j < terms; ++j) {
      const double t = std::log(static_cast<double>(j + 2) / static_cast<double>(j + 1));
      const double b = l[kept[order[j]]] - l[kept[order[j + 1]]];
      s_tb += t * b;
      s_tt += t * t;
    }
    const double s = s_tb / s_tt;
    const double eps = s - 1;
    const double two_mu = std::exp(mu * kLn2);
    const double log_v = std::log(static_cast<double>(vocab));
    // eps = 0: the limit of eps / (1 - V^-eps), 1 / log(V).
    const double y = eps != 0 ? (eps * two_mu) / (1 - std::exp(-eps * log_v)) : two_mu / log_v;
    const double kf = std::exp((1.0 / s) * std::log(y));
    k = std::isnan(kf) || kf < 1                    ? 1
        : kf >= static_cast<double>(kept.size()) ? kept.size()
                                                  : static_cast<size_t>(std::floor(kf));
  }
  return FirstOf(kept, order, k);
}

Ids MirostatV2(const Logits& l, const Ids& kept, double mu) {
  const std::vector<double> lp = LogProbs(l, kept, SoftmaxOver(l, kept));
  Ids out;
  for (size_t j = 0; j < kept.size(); ++j) {
    if (-lp[j] / kLn2 <= mu) out.push_back(kept[j]);
  }
  return out.empty() ? FirstOf(kept, DescendingOrder(l, kept), 1) : out;
}

Logits AdaptiveLogits(const Logits& l, const Ids& kept, const Softmax& q, double alpha) {
  Logits t = l;
  for (size_t j = 0; j < kept.size(); ++j) {
    const double d = std::fabs(q.q[j] - alpha) / 0.3;
    t[kept[j]] = 5 - ((10 * d) * d) / (1 + d);
  }
  return t;
}

}  // namespace exactsample::scalar_ref
