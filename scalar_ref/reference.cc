#include "scalar_ref/reference.hpp"

#include <algorithm>
#include <cmath>
#include <vector>

#include "scalar_ref/chain.hpp"
#include "scalar_ref/checks.hpp"
#include "scalar_ref/kept.hpp"
#include "scalar_ref/order.hpp"
#include "scalar_ref/twins/half.hpp"

namespace exactsample::scalar_ref {
namespace {

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
  Pcg32 drawn = rng;  // committed once the chain succeeds: XTC draws inside it
  const ChainState before =
      options.chain_state != nullptr ? *options.chain_state : ChainState{};
  Result<Chosen> run = RunChain(std::move(l), request, drawn, before);
  if (!run) return run.error();
  const Chosen& c = *run;
  const LogSoftmax logprob{c.max, c.z};
  if (trace != nullptr) {
    *trace = Trace{};
    trace->penalized = c.at_logprob;
    trace->max_logit = c.max;
    trace->z_all = c.z;
    trace->kept_top_k = c.kept_top_k;
    trace->kept_top_p = c.kept_top_p;
    trace->kept_min_p = c.kept_min_p;
  }

  const auto token = [&](int32_t id, double processed) {
    const Logits& at = c.at_logprob;
    Token out{id, logprob.At(at, id), processed};
    out.top_count = TopLogprobs(at, c.max, c.z, static_cast<size_t>(p.top_logprobs),
                                out.top.data());
    if (options.rank) out.rank = Rank(at, logprob, id);
    return out;
  };
  rng = drawn;  // the chain's draws; the terminal's follows on rng
  const Picked picked = Pick(c.l, c.kept, c.greedy, {}, rng, distribution, choose, trace);
  if (!c.greedy && choose == nullptr && options.chain_state != nullptr) {
    *options.chain_state = After(c, p, picked.id, picked.processed);
  }
  return token(picked.id, picked.processed);
}

Picked Pick(const Logits& l, const Ids& kept, std::optional<int32_t> greedy,
            std::span<const int32_t> row_ids, Pcg32& rng, std::vector<KeptProb>* distribution,
            const Choose* choose, Trace* trace) {
  const auto row_id = [&](int32_t i) { return row_ids.empty() ? i : row_ids[i]; };
  if (greedy) {
    if (distribution != nullptr) distribution->push_back({row_id(*greedy), 1.0});
    return {*greedy, 0.0};
  }
  const Softmax sm = SoftmaxOver(l, kept);  // step 9
  for (size_t j = 0; j < kept.size() && distribution != nullptr; ++j) {
    if (sm.q[j] > 0) distribution->push_back({row_id(kept[j]), sm.q[j]});
  }
  if (choose != nullptr) {
    const int32_t chosen = (*choose)(AllOf(*distribution));
    const int32_t id =
        row_ids.empty() ? chosen
                        : static_cast<int32_t>(std::lower_bound(row_ids.begin(), row_ids.end(),
                                                                chosen) -
                                               row_ids.begin());
    return {id, ProcessedLogprob(l, sm, id)};
  }
  const double u = rng.uniform_f64();  // step 10: the terminal's one draw
  const int32_t id = InverseCdf(kept, sm.q, u);
  if (trace != nullptr) {
    double cdf = 0.0;
    for (size_t j = 0; j < kept.size() && kept[j] <= id; ++j) cdf += sm.q[j];
    trace->z_kept = sm.z;
    trace->u = u;
    trace->cdf_at_choice = cdf;
  }
  return {id, ProcessedLogprob(l, sm, id)};
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
