// The fast engine's spec steps, one function each, composed in order by
// SampleFast (lib/engine/fast_engine.cc):
//
//   steps 1 to 3   PenalizedLogits   lib/engine/penalties.cc (with the bias and mask)
//   logprob        LogprobSoftmax    lib/engine/logprob.cc   (step 9 over all V ids)
//   step 4         Greedy            lib/engine/logprob.cc
//   steps 5, 6     TopK              lib/engine/top_k.cc     (t = l / T inside the kernels)
//   step 7         TopP              lib/engine/top_p.cc
//   steps 5 to 7   NucleusFromBounds lib/engine/top_p_bounds.cc (the f32 row without top-k)
//   step 8         MinP              lib/engine/min_p.cc
//   steps 9 to 11  Draw              lib/engine/draw.cc      (step 10's u from the caller)
//   outputs        TokenOf           lib/engine/logprob.cc   (logprobs, top-N)
//   the tail       Tail              lib/engine/tail.cc      (ChainSplit's steps after those)
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "exactsample/exactsample.hpp"
#include "lib/engine/chain_split.hpp"
#include "lib/engine/kept_set.hpp"
#include "lib/engine/row_sums.hpp"
#include "lib/engine/workspace.hpp"
#include "scalar_ref/reference.hpp"
#include "simd/exp_choice.hpp"
#include "simd/exp_sum.hpp"
#include "simd/nucleus.hpp"

namespace exactsample {

// The fast paths one request takes, each decided in Plan::Of and nowhere
// else: what the call asks for, where its passes run, and what its steps can
// share or skip because of those.
struct Plan {
  // What the request and its options ask for.
  struct Asks {
    bool top_k;           // step 6 cuts: 0 < top_k < V
    bool mask;            // a mask is given
    bool bias_or_mask;    // the row changes before step 2: a logit bias or a mask
    size_t top_logprobs;  // Token::top_logprobs entries wanted
    bool rank;            // Token::rank wanted
    bool logprob;         // the logprob's softmax (for the caller, a trace, top-N or rank)
  } asks;
  // Where the passes run and which exp they compute.
  struct Runs {
    int threads;           // SampleOptions::threads, for the passes over all V ids
    simd::ExpVariant exp;  // the exp the kernels replicate in the caller's floating-point mode
    bool default_fp;       // the default floating-point environment (simd::ExpSumBounds's bounds)
  } runs;
  // What the steps share or skip, given the two above.
  struct Path {
    bool one_softmax;  // the logprob's e values are step 9's over K = every id (T = 1, no top-k)
    bool f32_row;      // the passes read the caller's f32 row in place, no f64 row stored
    bool every_finite_logit;  // some pass reads every finite logit (logprob, or K without top-k)
  } path;

  static Plan Of(const Request& request, const SampleOptions& options);
};

// The logits after steps 1 to 3.
struct Logits {
  const float* x;   // the caller's f32 row (null for a 16-bit row)
  const double* l;  // penalised f64 logits; null on the f32-row path
  size_t n;
  double max;       // the largest l
  // Where a mask drops a quarter of the ids or more: l's finite values in
  // id order, and their ids where K has no top-k. A masked-out id's e is
  // +0, which changes no ascending sum, and it never enters K: the softmax
  // over all ids and a K without top-k run over these. (Below 3/4 allowed
  // the copy costs less than the exps it saves; above, less than the exp
  // pass's mispredicted branches on lanes at -inf.) Null otherwise.
  const double* finite_l = nullptr;
  const int32_t* finite_ids = nullptr;
  size_t finite_n = 0;

  // On the f32-row path, the ids steps 2 and 3 changed, ascending, with
  // their logits penalised_l[id]; every other id's logit is x's.
  std::span<const int32_t> penalised_ids{};
  const double* penalised_l = nullptr;
  // FirstKUnpenalised's count once run (its ids in ws.top): by steps 1 to 3
  // or during the logprob's pass.
  static constexpr size_t kNotSelected = SIZE_MAX;
  size_t unpenalised_k = kNotSelected;

  double At(size_t id) const {
    if (l != nullptr) return l[id];
    if (!penalised_ids.empty() &&
        std::binary_search(penalised_ids.begin(), penalised_ids.end(), static_cast<int32_t>(id))) {
      return penalised_l[id];
    }
    return static_cast<double>(x[id]);
  }
  // At(ids[j]) into out[j] for ascending ids, walking the penalised ids alongside
  // (a search per id costs mispredicted branches).
  void AtAscending(const int32_t* ids, size_t count, double* out) const;
  // The row for an exp pass over all V ids.
  simd::ExpSource Source() const {
    if (l != nullptr) return {l};
    return {nullptr, x, penalised_ids.data(), penalised_l, penalised_ids.size()};
  }
};


// Whether steps 2 and 3 can change any logit: a repetition penalty with a
// history, or frequency and presence penalties with generated ids.
bool PenaltiesApply(const Request& request);

// Whether steps 2 and 3 change at most kMaxPenalisedIds ids, known without a
// pass over the row (so not from a Sequence's dense codes).
bool FewPenalisedIds(const Request& request);

// On the f32-row path, the row with its penalised ids as f64 logits (in ws.l),
// for a step that reads every id's logit.
const double* WidenPenalisedRow(const Logits& logits, detail::WorkspaceImpl& ws);

// Steps 1 to 3 with the bias and the mask between steps 1 and 2, and their
// checks: NaN or +inf logits, every logit -inf, a bias to +inf, every id
// masked out, penalties that produce NaN, +inf or nothing finite, a
// temperature that overflows the largest logit.
Result<Logits> PenalizedLogits(const Request& request, const Plan& plan,
                               detail::WorkspaceImpl& ws);

// The reported logprob: log_softmax over all V ids after step 3, computed as
// in step 9. Its e values are left in ws.e when plan.path.one_softmax.
struct LogprobSoftmax {
  double max;  // M: the first maximum in id order (its sign reaches l - M)
  double z;    // Z over all V ids; NaN when not computed
  std::optional<RowSums> sums;  // of the e values left in ws.e
  // Not null when some pieces of those e values are elsewhere (ExpView).
  ScatteredPieces* scattered = nullptr;
  bool stopped = false;  // the pass stopped (ExpView::stopped)

  double At(const Logits& logits, size_t id) const {
    return (logits.At(id) - max) - std::log(z);
  }
  // The token `id` with its logprob (NaN unless plan.asks.logprob), the
  // processed one (`processed`), its top-N logprobs and its rank.
  Token TokenOf(const Logits& logits, size_t id, double processed, const Plan& plan,
                detail::WorkspaceImpl& ws) const;
};
// Steps 5 to 7 from Z's bounds (NucleusFromBounds), once made.
struct BoundedNucleus {
  bool made = false;
  std::optional<KeptSet> kept;  // nullopt: TopK and TopP decide
  simd::Cut cut;
  void Make(const Logits& logits, const SamplingParams& params, const Plan& plan,
            detail::WorkspaceImpl& ws);
};
// On the f32-row path, step 6's selection (with top-k, Logits::unpenalised_k)
// or steps 5 to 7 from Z's bounds (without, `nucleus`) are made during its
// pass.
LogprobSoftmax Logprob(Logits& logits, const Plan& plan, const SamplingParams& params,
                       detail::WorkspaceImpl& ws, BoundedNucleus& nucleus);

// The processed logprob of K's entry j, (t - M_K) - log(Z_K).
double ProcessedLogprob(const Logits& logits, const KeptSet& kept, size_t j,
                        double temperature);

// Step 4: the lowest id holding the largest logit.
size_t Greedy(const Logits& logits);

// Step 6's selection over the f32 row's ids outside `penalised` (ascending):
// their first k in (t desc, id asc) order into ws.top; returns how many
// (fewer where fewer are finite).
size_t FirstKUnpenalised(const float* x, size_t n, std::span<const int32_t> penalised,
                       double temperature, size_t k, detail::WorkspaceImpl& ws);

// Steps 5 and 6: K after top-k, with e = exp(l / T - M / T).
KeptSet TopK(const Logits& logits, const LogprobSoftmax& softmax,
             const SamplingParams& params, const Plan& plan, detail::WorkspaceImpl& ws);

// Step 7. Returns the cut (found false: nothing dropped).
// Over a whole row, the ids below this e hold at most half the mass top-p
// drops: the lowest candidate threshold it tries.
double TopPCandidateThreshold(double z, size_t n, double p);
simd::Cut TopP(KeptSet& kept, const SamplingParams& params, detail::WorkspaceImpl& ws);
// Masses summed in any order are off the walk's running sum by rounding
// only: a candidate set whose mass is below p Z (1 - 2^-20) cannot hold the
// cut, and is not tried.
inline constexpr double kTopPMassMargin = 1 - 0x1p-20;
// Drops the ids after a found cut from K and sums K's Z again.
void CutKept(KeptSet& kept, const simd::Cut& cut, double temperature);

// Steps 5 to 7 on the f32 row without top-k (lib/engine/top_p_bounds.cc): K after
// top-p, compact, with `cut`, decided from an enclosure of Z without the
// exact pass over all V ids; nullopt where that does not decide it (or
// does not apply: an f64 row, top-k, temperature 1 sharing the logprob's
// pass, no top-p, another floating-point environment), and then TopK and
// TopP do.
std::optional<KeptSet> NucleusFromBounds(const Logits& logits, const SamplingParams& params,
                                         const Plan& plan, detail::WorkspaceImpl& ws,
                                         simd::Cut& cut);

// Step 8. Returns Z before the filter and the threshold on q, when it ran.
struct MinPCut {
  double z_before;
  double threshold;  // q = e / z_before stays when q >= threshold
};
std::optional<MinPCut> MinP(KeptSet& kept, double min_p, detail::WorkspaceImpl& ws);

// Steps 9 and 11 for step 10's draw u: the entry of K the inverse CDF
// returns. Decided from K's running sums when they decide it (reading the
// one piece, wherever it is), else by the walk (over K.e gathered).
size_t Draw(const KeptSet& kept, double u);

// The chain's steps after the kernels' (split.Tail()) and the terminal
// (docs/llama-samplers.md), by the reference's own functions over K
// compacted: its members (ids whose e underflowed included) as the ids
// 0..|K|-1 in ascending order, with their l, or t = l / T where the prefix
// held the temperature, then mapped back. An ascending map keeps every sum
// in ascending id order and every tie to the lower id, so the bits are the
// reference's. `cut` and `min_p` are the prefix's top-p and min-p. The
// draws are taken from a copy of rng, committed on success.
Result<Token> Tail(const Request& request, const ChainSplit& split, const Logits& logits,
                   const KeptSet& kept, const simd::Cut& cut,
                   const std::optional<MinPCut>& min_p, const LogprobSoftmax& softmax,
                   const Plan& plan, Pcg32& rng, detail::WorkspaceImpl& ws,
                   const SampleOptions& options, const scalar_ref::Choose* choose);

// SampleOptions::distribution: K's ids with q = e / Z > 0, ascending.
void Distribution(const KeptSet& kept, std::vector<KeptProb>& out);

// A chooser's view of K (scalar_ref::KeptView): q of one id from its entry,
// the whole distribution built into `storage` when first asked (`built`:
// already built there, or null).
class KeptSetView final : public scalar_ref::KeptView {
 public:
  KeptSetView(const KeptSet& kept, const std::vector<KeptProb>* built,
           std::vector<KeptProb>& storage)
      : kept_(kept), built_(built), storage_(storage) {}
  double Q(int32_t id) const override;
  std::span<const KeptProb> All() const override;

 private:
  const KeptSet& kept_;
  mutable const std::vector<KeptProb>* built_;
  std::vector<KeptProb>& storage_;
};

// Step 11 from running sums alone: the entry for e[0..n), z and u (see
// simd::InverseCdf) when error bounds decide it from the sequential sums,
// nullopt when they do not (u within about 4 n 2^-53 of a partial sum of q,
// or u or z out of the range the bounds cover).
// With `scattered`, piece k's e values are scattered->Piece(k) (e is not
// read).
std::optional<size_t> InverseCdfFromSums(const double* e, double z, double u,
                                         const RowSums& sums,
                                         const ScatteredPieces* scattered = nullptr);

}  // namespace exactsample
