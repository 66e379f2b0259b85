#include "scalar_ref/reference.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <vector>

#include "scalar_ref/checks.hpp"
#include "scalar_ref/order.hpp"
#include "scalar_ref/twins/half.hpp"
#include "scalar_ref/window.hpp"

namespace exactsample::scalar_ref {
namespace {

using Logits = std::vector<double>;  // indexed by id
using Ids = std::vector<int32_t>;    // a kept set, ascending ids

// Step 1 (a 16-bit row widened to f32 first: exact).
Logits Widen(twins::Row x, size_t n) {
  Logits l(n);
  for (size_t i = 0; i < n; ++i) l[i] = static_cast<double>(x[i]);
  return l;
}

// Ours, after step 1 and before step 2: the logit bias, added in f64 in the
// order given, then the mask: a masked-out id's logit becomes -inf.
void BiasAndMask(Logits& l, const Request& request) {
  const LogitBias& bias = request.bias;
  for (size_t j = 0; j < bias.ids.size(); ++j) l[bias.ids[j]] += bias.values[j];
  const TokenMask& mask = request.mask;
  std::vector<bool> allowed(l.size(), mask.allowed.empty());
  for (int32_t i : mask.allowed) allowed[i] = true;
  for (int32_t i : mask.banned) allowed[i] = false;
  for (size_t i = 0; i < l.size(); ++i) {
    const bool bit = mask.allowed_bits.empty() || ((mask.allowed_bits[i / 32] >> (i % 32)) & 1) != 0;
    if (!allowed[i] || !bit) l[i] = -INFINITY;
  }
}

// Step 2: over the distinct ids of prompt and generated (of the window).
void RepetitionPenalty(Logits& l, const Request& request) {
  const double r = request.params.repetition_penalty;
  if (r == 1.0) return;
  const PenaltyWindow window = WindowOf(request);
  std::set<int32_t> seen(window.prompt.begin(), window.prompt.end());
  seen.insert(window.generated.begin(), window.generated.end());
  for (int32_t i : seen) l[i] = l[i] > 0 ? l[i] / r : l[i] * r;
}

// Step 3: over the generated ids (of the window), c times each.
void PresenceAndFrequency(Logits& l, const Request& request) {
  const SamplingParams& p = request.params;
  if (p.frequency_penalty == 0.0 && p.presence_penalty == 0.0) return;
  std::map<int32_t, int64_t> count;
  for (int32_t i : WindowOf(request).generated) ++count[i];
  for (const auto& [i, c] : count) {
    l[i] = l[i] - p.frequency_penalty * static_cast<double>(c) - p.presence_penalty;
  }
}

// Step 9 over K (ascending ids): M, Z and q.
struct Softmax {
  double max = -INFINITY;
  double z = 0.0;
  std::vector<double> q;  // q[j] for the id K[j]
};

Softmax SoftmaxOver(const Logits& t, const Ids& kept) {
  Softmax s;
  for (int32_t i : kept) s.max = std::max(s.max, t[i]);
  std::vector<double> e(kept.size());
  for (size_t j = 0; j < kept.size(); ++j) {
    e[j] = std::exp(t[kept[j]] - s.max);
    s.z += e[j];
  }
  s.q.resize(kept.size());
  for (size_t j = 0; j < kept.size(); ++j) s.q[j] = e[j] / s.z;
  return s;
}

// The reported logprob: log_softmax over all V ids after step 3, computed
// as in step 9, before temperature and filtering.
struct LogSoftmax {
  double max;
  double z;
  double At(const Logits& l, int32_t id) const { return (l[id] - max) - std::log(z); }
};

// Token::rank: 1 + the ids before `id` in (logprob desc, id asc) order,
// the order of top_logprobs, over all V ids (-inf ones included).
int64_t Rank(const Logits& l, const LogSoftmax& logprob, int32_t id) {
  const double mine = logprob.At(l, id);
  int64_t rank = 1;
  for (size_t i = 0; i < l.size(); ++i) {
    rank += Before(logprob.At(l, static_cast<int32_t>(i)), static_cast<int64_t>(i), mine, id);
  }
  return rank;
}

// The processed logprob of id in K: log_softmax over K of t, as step 9
// computes it, with a zero M_K taken as +0.0.
double ProcessedLogprob(const Logits& t, const Softmax& kept, int32_t id) {
  return (t[id] - (kept.max + 0.0)) - std::log(kept.z);
}

// Step 4: the largest l, ties to the lowest id.
int32_t Greedy(const Logits& l, const Ids& all) {
  int32_t best = all.front();
  for (int32_t i : all) {
    if (l[i] > l[best]) best = i;
  }
  return best;
}

// Step 5.
Logits Temper(const Logits& l, double temperature) {
  Logits t(l.size());
  for (size_t i = 0; i < l.size(); ++i) t[i] = Tempered(l[i], temperature);
  return t;
}

// Positions of `kept` in (t desc, id asc) order.
std::vector<size_t> DescendingOrder(const Logits& t, const Ids& kept) {
  std::vector<size_t> order(kept.size());
  for (size_t j = 0; j < order.size(); ++j) order[j] = j;
  std::sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    return Before(t[kept[a]], kept[a], t[kept[b]], kept[b]);
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

// Step 6: the first k ids in (t desc, id asc) order.
Ids TopK(const Logits& t, const Ids& kept, int64_t k) {
  if (k <= 0 || static_cast<size_t>(k) >= kept.size()) return kept;
  const std::vector<size_t> order = DescendingOrder(t, kept);
  std::vector<bool> keep(kept.size(), false);
  for (int64_t r = 0; r < k; ++r) keep[order[r]] = true;
  return Select(kept, keep);
}

// Step 7: walk (t desc, id asc) adding q; keep up to and including the first
// id where the running sum reaches p.
Ids TopP(const Logits& t, const Ids& kept, double p) {
  if (p >= 1.0) return kept;
  const Softmax sm = SoftmaxOver(t, kept);
  std::vector<bool> keep(kept.size(), false);
  double s = 0.0;
  for (size_t j : DescendingOrder(t, kept)) {
    keep[j] = true;
    s += sm.q[j];
    if (s >= p) break;
  }
  return Select(kept, keep);
}

// Step 8: keep q >= m * max(q).
Ids MinP(const Logits& t, const Ids& kept, double m) {
  if (m == 0.0) return kept;
  const Softmax sm = SoftmaxOver(t, kept);
  const double threshold = m * *std::max_element(sm.q.begin(), sm.q.end());
  std::vector<bool> keep(kept.size());
  for (size_t j = 0; j < kept.size(); ++j) keep[j] = sm.q[j] >= threshold;
  return Select(kept, keep);
}

// The reference's view of step 9: the distribution built in full.
class AllOf final : public KeptView {
 public:
  explicit AllOf(std::span<const KeptProb> all) : all_(all) {}
  double Q(int32_t id) const override { return ProbabilityOf(all_, id); }
  std::span<const KeptProb> All() const override { return all_; }

 private:
  std::span<const KeptProb> all_;
};

}  // namespace

double ProbabilityOf(std::span<const KeptProb> distribution, int32_t id) {
  const auto it = std::lower_bound(distribution.begin(), distribution.end(), id,
                                   [](const KeptProb& k, int32_t i) { return k.id < i; });
  return it != distribution.end() && it->id == id ? it->q : 0.0;
}

Result<Token> Sample(const Request& request, Pcg32& rng, const SampleOptions& options,
                     const Choose* choose) {
  Trace* const trace = options.trace;
  std::vector<KeptProb>* distribution = options.distribution;
  std::vector<KeptProb> chosen_from;
  if (distribution == nullptr && choose != nullptr) distribution = &chosen_from;
  if (distribution != nullptr) distribution->clear();
  if (auto e = checks::LogitValues(request)) return *e;
  const SamplingParams& p = request.params;
  const size_t vocab = request.vocab();

  Logits l = Widen(twins::Row::Of(request), vocab);
  BiasAndMask(l, request);
  for (size_t i = 0; i < vocab; ++i) {
    if (l[i] == INFINITY) return checks::BiasedToInfinity(static_cast<int32_t>(i));
  }
  if (*std::max_element(l.begin(), l.end()) == -INFINITY) return checks::AllMaskedOut();
  RepetitionPenalty(l, request);
  PresenceAndFrequency(l, request);
  for (size_t i = 0; i < vocab; ++i) {
    if (auto e = checks::Penalized(l[i], static_cast<int32_t>(i), p)) return *e;
  }
  const double max_logit = *std::max_element(l.begin(), l.end());
  if (auto e = checks::MaxAfterPenalties(max_logit, p)) return *e;

  // K starts as every id whose logit is not -inf: those never enter K.
  Ids kept;
  for (size_t i = 0; i < vocab; ++i) {
    if (l[i] != -INFINITY) kept.push_back(static_cast<int32_t>(i));
  }
  const Softmax all = SoftmaxOver(l, kept);
  const LogSoftmax logprob{all.max, all.z};
  if (trace != nullptr) {
    *trace = Trace{};
    trace->penalized = l;
    trace->max_logit = all.max;
    trace->z_all = all.z;
  }

  const auto token = [&](int32_t id, double processed) {
    Token out{id, logprob.At(l, id), processed};
    out.top_count = TopLogprobs(l, all.max, all.z, static_cast<size_t>(p.top_logprobs),
                                out.top.data());
    if (options.rank) out.rank = Rank(l, logprob, id);
    return out;
  };
  if (p.temperature == 0.0) {
    const int32_t id = Greedy(l, kept);
    if (distribution != nullptr) distribution->push_back({id, 1.0});
    return token(id, 0.0);
  }
  const Logits t = Temper(l, p.temperature);
  kept = TopK(t, kept, p.top_k);
  if (trace != nullptr) trace->kept_top_k = kept;
  kept = TopP(t, kept, p.top_p);
  if (trace != nullptr) trace->kept_top_p = kept;
  kept = MinP(t, kept, p.min_p);
  if (trace != nullptr) trace->kept_min_p = kept;
  const Softmax sm = SoftmaxOver(t, kept);  // step 9
  for (size_t j = 0; j < kept.size() && distribution != nullptr; ++j) {
    if (sm.q[j] > 0) distribution->push_back({kept[j], sm.q[j]});
  }
  if (choose != nullptr) {
    const int32_t id = (*choose)(AllOf(*distribution));
    return token(id, ProcessedLogprob(t, sm, id));
  }
  const double u = rng.uniform_f64();       // step 10: exactly one draw
  const int32_t id = InverseCdf(kept, sm.q, u);
  if (trace != nullptr) {
    double c = 0.0;
    for (size_t j = 0; j < kept.size() && kept[j] <= id; ++j) c += sm.q[j];
    trace->z_kept = sm.z;
    trace->u = u;
    trace->cdf_at_choice = c;
  }
  return token(id, ProcessedLogprob(t, sm, id));
}

size_t TopLogprobs(std::span<const double> l, double max, double z, size_t count,
                   TopLogprob* out) {
  if (count == 0) return 0;
  const double log_z = std::log(z);  // the same value for every id
  std::vector<TopLogprob> all;
  for (size_t i = 0; i < l.size(); ++i) {
    // -inf ones are left out: a -inf logit, and a finite one so far below M
    // that l - M overflows.
    const double logprob = (l[i] - max) - log_z;
    if (logprob != -INFINITY) all.push_back({static_cast<int32_t>(i), logprob});
  }
  count = std::min(count, all.size());
  std::partial_sort(all.begin(), all.begin() + static_cast<std::ptrdiff_t>(count), all.end(),
                    [](const TopLogprob& a, const TopLogprob& b) {
                      return scalar_ref::Before(a.logprob, a.id, b.logprob, b.id);
                    });
  std::copy(all.begin(), all.begin() + static_cast<std::ptrdiff_t>(count), out);
  return count;
}

// Step 11.
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
