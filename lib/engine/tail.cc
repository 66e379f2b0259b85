// The chain's tail over the kept set the kernels left (Tail in steps.hpp).
#include <cmath>
#include <optional>
#include <span>

#include "lib/engine/steps.hpp"
#include "scalar_ref/chain.hpp"
#include "scalar_ref/filters.hpp"
#include "scalar_ref/order.hpp"
#include "simd/filter.hpp"

namespace exactsample {

Result<Token> Tail(const Request& request, const ChainSplit& split, const Logits& logits,
                   const KeptSet& kept, const simd::Cut& cut,
                   const std::optional<MinPCut>& min_p, const LogprobSoftmax& softmax,
                   const Plan& plan, Pcg32& rng, detail::WorkspaceImpl& ws,
                   const SampleOptions& options, const scalar_ref::Choose* choose) {
  const double divisor = split.tempered ? request.params.temperature : 1.0;
  // K's members as the reference holds them, ids whose e underflowed to 0
  // included: the entries whose t is finite (an id whose t is -inf has left
  // K). Where top-p cut, or min-p's threshold is above 0, they are exactly
  // the entries with e > 0: each keeps a prefix of (t desc, id asc) order
  // that ends at an id with e > 0 and zeroes every other e. Else no entry
  // is outside K: top-k's K is compact there (ChainSplit::Of).
  const bool by_e = cut.found || (min_p && min_p->threshold > 0);
  ws.tail_l.clear();
  ws.tail_ids.clear();
  for (size_t j = 0; j < kept.n; ++j) {
    const double t =
        scalar_ref::Tempered(kept.l != nullptr ? kept.l[j] : logits.At(kept.Id(j)), divisor);
    if (t == -INFINITY || (by_e && !(kept.e[j] > 0))) continue;
    ws.tail_l.push_back(t);
    ws.tail_ids.push_back(kept.Id(j));
  }
  std::optional<double> sigma_cut;
  if (split.sigma_over_row) {
    // Over every finite t of the row: K at a top-n-sigma step that no filter
    // precedes.
    // (The caller's f32 row as it is where no id is penalised.)
    const scalar_ref::SigmaSums sums =
        logits.l == nullptr && logits.penalised_ids.empty()
            ? simd::SigmaSumsOfRow(logits.x, divisor, logits.n)
            : simd::SigmaSumsOfRow(logits.l != nullptr ? logits.l : WidenPenalisedRow(logits, ws),
                                   divisor, logits.n);
    sigma_cut = scalar_ref::SigmaThreshold(sums, request.params.top_n_sigma);
  }
  scalar_ref::Ids& members = ws.tail_kept;
  members.clear();
  for (size_t j = 0; j < ws.tail_ids.size(); ++j) {
    if (!sigma_cut || ws.tail_l[j] >= *sigma_cut) members.push_back(static_cast<int32_t>(j));
  }
  const std::span<const ChainStep> steps =
      split.sigma_over_row ? split.Tail().subspan(1) : split.Tail();

  Pcg32 drawn = rng;
  scalar_ref::Chosen chosen;
  if (auto e = scalar_ref::RunSteps(steps, ws.tail_l, members, request, drawn, chosen)) {
    return *e;
  }
  std::vector<KeptProb>* distribution = options.distribution;
  if (distribution == nullptr && choose != nullptr) {
    ws.chosen_from.clear();
    distribution = &ws.chosen_from;
  }
  // The steps' draws stand once they succeeded; the terminal's (or a
  // chooser's, on the caller's generator) follow them on rng itself.
  rng = drawn;
  const scalar_ref::Picked picked = scalar_ref::Pick(ws.tail_l, members, chosen.greedy, ws.tail_ids,
                                                     rng, distribution, choose, nullptr);
  const auto id = static_cast<size_t>(ws.tail_ids[static_cast<size_t>(picked.id)]);
  return softmax.TokenOf(logits, id, picked.processed, plan, ws);
}

}  // namespace exactsample
