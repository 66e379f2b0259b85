// The reference engine: the spec's steps 1 to 11 (docs/spec.md), one visible piece
// of code per step, in f64, with ascending-id sums and std::exp/std::log.
// It is the oracle every other path is checked against, so it is plain
// rather than fast.
#pragma once

#include <functional>
#include <optional>
#include <span>
#include <vector>

#include "exactsample/exactsample.hpp"
#include "scalar_ref/kept.hpp"

namespace exactsample::scalar_ref {

// q of `id` in a distribution (ascending ids), 0 when it does not hold it.
double ProbabilityOf(std::span<const KeptProb> distribution, int32_t id);

// What a chooser is shown of step 9's distribution: q of one id (0 for an
// id it does not hold), and the whole of it (the ids with q > 0, ascending,
// as SampleOptions::distribution), which an engine may build only when
// asked: the acceptance test of a draft reads one q of a row of V.
class KeptView {
 public:
  virtual double Q(int32_t id) const = 0;
  virtual std::span<const KeptProb> All() const = 0;

 protected:
  ~KeptView() = default;
};

// `request` must have passed checks::ParamsAndIds. Fills *options.trace
// and *options.distribution when given, Token::rank with options.rank (the
// engine is not read: this is the reference).
// With `choose`, steps 10 and 11 are its answer to the distribution (one of
// its ids): no draw is taken (the speculative page's tests draw instead).
using Choose = std::function<int32_t(const class KeptView& distribution)>;
Result<Token> Sample(const Request& request, Pcg32& rng, const SampleOptions& options,
                     const Choose* choose = nullptr);

// The terminal's token once the chain has run, over the l and K it left
// (RunChain's, or the fast engine's tail over its K compacted, where the
// id j stands for the row's id row_ids[j]; empty: they are the row's):
// `greedy` when the chain made it, else step 9 over K, then the chooser's
// answer or step 10's draw from rng and step 11. Fills distribution (the
// row's ids) and the trace's z_kept, u and cdf_at_choice. Its id is the
// chain's, with the processed logprob (0 for a greedy token).
struct Picked {
  int32_t id;
  double processed;
};
Picked Pick(const Logits& l, const Ids& kept, std::optional<int32_t> greedy,
            std::span<const int32_t> row_ids, Pcg32& rng, std::vector<KeptProb>* distribution,
            const Choose* choose, Trace* trace);

// Token::top_logprobs: the first `count` finite ids of (logprob desc, id
// asc) order, logprob = (l[i] - max) - log(z), into out; returns how many.
size_t TopLogprobs(std::span<const double> l, double max, double z, size_t count,
                   TopLogprob* out);

// Step 11 on its own (so its fallback can be tested with a chosen u): q[j]
// belongs to kept[j], ids ascending.
int32_t InverseCdf(std::span<const int32_t> kept, std::span<const double> q,
                   double u);

}  // namespace exactsample::scalar_ref
