#include "scalar_ref/reference.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <vector>

#include "lib/checks.hpp"

namespace exactsample::scalar_ref {
namespace {

using Ids = std::vector<int32_t>;  // a kept set, ascending ids

// Step 9: softmax over the kept set K (ascending ids).
struct Softmax {
  double max = -INFINITY;
  double z = 0.0;
  std::vector<double> q;  // q[j] for the id K[j]
};

Softmax SoftmaxOver(const std::vector<double>& t, const Ids& kept) {
  Softmax s;
  for (int32_t i : kept) s.max = std::max(s.max, t[i]);
  std::vector<double> e(kept.size());
  double z = 0.0;
  for (size_t j = 0; j < kept.size(); ++j) {
    e[j] = std::exp(t[kept[j]] - s.max);
    z += e[j];
  }
  s.z = z;
  s.q.resize(kept.size());
  for (size_t j = 0; j < kept.size(); ++j) s.q[j] = e[j] / z;
  return s;
}

// Positions of `kept` in (t desc, id asc) order.
std::vector<size_t> DescendingOrder(const std::vector<double>& t,
                                    const Ids& kept) {
  std::vector<size_t> order(kept.size());
  for (size_t j = 0; j < order.size(); ++j) order[j] = j;
  std::sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    if (t[kept[a]] != t[kept[b]]) return t[kept[a]] > t[kept[b]];
    return kept[a] < kept[b];
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

}  // namespace

Result<Token> Sample(const Request& request, Pcg32& rng, Trace* trace) {
  if (auto e = checks::LogitValues(request.logits)) return *e;
  const SamplingParams& p = request.params;
  const size_t vocab = request.logits.size();

  // Step 1. Widen.
  std::vector<double> l(vocab);
  for (size_t i = 0; i < vocab; ++i) l[i] = static_cast<double>(request.logits[i]);

  // Step 2. Repetition penalty over the distinct ids of prompt and out.
  if (p.repetition_penalty != 1.0) {
    std::set<int32_t> seen(request.prompt.begin(), request.prompt.end());
    seen.insert(request.generated.begin(), request.generated.end());
    for (int32_t i : seen) {
      l[i] = l[i] > 0 ? l[i] / p.repetition_penalty
                      : l[i] * p.repetition_penalty;
    }
  }

  // Step 3. Presence and frequency over the generated ids.
  if (p.frequency_penalty != 0.0 || p.presence_penalty != 0.0) {
    std::map<int32_t, int64_t> count;
    for (int32_t i : request.generated) ++count[i];
    for (const auto& [i, c] : count) {
      l[i] = l[i] - p.frequency_penalty * static_cast<double>(c) -
             p.presence_penalty;
    }
  }
  for (size_t i = 0; i < vocab; ++i) {
    if (auto e = checks::Penalized(l[i], static_cast<int32_t>(i), p)) return *e;
  }
  double max_logit = -INFINITY;
  for (double v : l) max_logit = std::max(max_logit, v);
  if (auto e = checks::MaxAfterPenalties(max_logit, p)) return *e;

  // The reported logprob: log_softmax over all V ids at this point (step 9's
  // M and Z), before temperature and filtering.
  Ids all;
  for (size_t i = 0; i < vocab; ++i) {
    if (l[i] != -INFINITY) all.push_back(static_cast<int32_t>(i));
  }
  double z_all = 0.0;
  for (int32_t i : all) z_all += std::exp(l[i] - max_logit);
  auto logprob_of = [&](int32_t id) {
    return (l[id] - max_logit) - std::log(z_all);
  };
  if (trace != nullptr) {
    *trace = Trace{};
    trace->penalized = l;
    trace->max_logit = max_logit;
    trace->z_all = z_all;
  }

  // Step 4. Greedy: the largest l, ties to the lowest id; no draw.
  if (p.temperature == 0.0) {
    int32_t best = all.front();
    for (int32_t i : all) {
      if (l[i] > l[best]) best = i;
    }
    return Token{best, logprob_of(best)};
  }

  // Step 5. Temperature.
  std::vector<double> t(vocab);
  for (size_t i = 0; i < vocab; ++i) t[i] = l[i] / p.temperature;

  // K starts as every id whose logit is not -inf: those never enter K.
  Ids kept = all;

  // Step 6. Top-k: the first k ids in (l desc, id asc) order.
  if (p.top_k > 0 && static_cast<size_t>(p.top_k) < kept.size()) {
    const std::vector<size_t> order = DescendingOrder(t, kept);
    std::vector<bool> keep(kept.size(), false);
    for (int64_t r = 0; r < p.top_k; ++r) keep[order[r]] = true;
    kept = Select(kept, keep);
  }
  if (trace != nullptr) trace->kept_top_k = kept;

  // Step 7. Top-p: walk (l desc, id asc) adding q; keep up to and including
  // the first id where the running sum reaches p.
  if (p.top_p < 1.0) {
    const Softmax sm = SoftmaxOver(t, kept);
    const std::vector<size_t> order = DescendingOrder(t, kept);
    std::vector<bool> keep(kept.size(), false);
    double s = 0.0;
    for (size_t j : order) {
      keep[j] = true;
      s += sm.q[j];
      if (s >= p.top_p) break;
    }
    kept = Select(kept, keep);
  }
  if (trace != nullptr) trace->kept_top_p = kept;

  // Step 8. Min-p: keep q >= m * max(q).
  if (p.min_p != 0.0) {
    const Softmax sm = SoftmaxOver(t, kept);
    const double q_max = *std::max_element(sm.q.begin(), sm.q.end());
    const double threshold = p.min_p * q_max;
    std::vector<bool> keep(kept.size());
    for (size_t j = 0; j < kept.size(); ++j) keep[j] = sm.q[j] >= threshold;
    kept = Select(kept, keep);
  }
  if (trace != nullptr) trace->kept_min_p = kept;

  // Step 9. Softmax over the final kept set.
  const Softmax sm = SoftmaxOver(t, kept);

  // Step 10. Exactly one draw per sampled token.
  const double u = rng.uniform_f64();

  // Step 11.
  const int32_t id = InverseCdf(kept, sm.q, u);
  if (trace != nullptr) {
    double c = 0.0;
    for (size_t j = 0; j < kept.size() && kept[j] <= id; ++j) c += sm.q[j];
    trace->z_kept = sm.z;
    trace->u = u;
    trace->cdf_at_choice = c;
  }
  return Token{id, logprob_of(id)};
}

int32_t InverseCdf(std::span<const int32_t> kept, std::span<const double> q,
                   double u) {
  // Walk K in ascending id order; the first id with u < c.
  double c = 0.0;
  for (size_t j = 0; j < kept.size(); ++j) {
    c += q[j];
    if (u < c) return kept[j];
  }
  // Rounding left c below u: the largest id in K with q > 0 (the largest
  // logit has q = 1/Z > 0, so the loop stops).
  size_t j = kept.size() - 1;
  while (q[j] == 0) --j;
  return kept[j];
}

}  // namespace exactsample::scalar_ref
