// Steps 1 to 3. Penalties touch only the window's ids, in O(window) work, or
// a Sequence's distinct ids alone; a Sequence with many (its dense counts)
// has them applied by the pass that widens the row, so the vocabulary is
// never read again for them, nor the history.
#include <algorithm>
#include <cassert>
#include <cmath>
#include <optional>
#include <utility>
#include <vector>

#include "lib/api/sequence_counts.hpp"
#include "lib/threads/row_passes.hpp"
#include "lib/engine/steps.hpp"
#include "scalar_ref/chain_checks.hpp"
#include "scalar_ref/checks.hpp"
#include "scalar_ref/dry.hpp"
#include "scalar_ref/window.hpp"
#include "simd/compact.hpp"
#include "simd/max.hpp"
#include "simd/penalty.hpp"
#include "simd/topk_order.hpp"

namespace exactsample {
namespace {

struct PenaltyOutcome {
  double max_logit;  // the largest logit after penalties, unless max_stale
  bool max_stale;    // a penalty lowered an id that held the maximum
};

// Steps 2 and 3 on one distinct id of the window at a time, in any order:
// the outcome and the error (checks::Penalized's for the lowest offending
// id, as the reference's walk in id order finds it) do not depend on it.
// A long history visits thousands of ids, so a visit has no data-dependent
// branch: a NaN or +inf is only noted (and located afterwards), and the
// maximum alternates between two running values.
class PenaltyVisit {
 public:
  PenaltyVisit(const SamplingParams& p, double* l, double max_before)
      : l_(l),
        max_before_(max_before),
        p_{p.repetition_penalty, p.frequency_penalty, p.presence_penalty} {}

  // An id of the window (so of the repetition penalty's ids: the generated
  // window ends the window) with `count` occurrences in its generated ids
  // (0 when presence and frequency are off).
  void operator()(int32_t id, uint64_t count) {
    double& slot = l_[id];
    const double v = slot;
    const double w = twins::Penalized(v, count, p_);
    slot = w;
    stale_ |= v == max_before_ && w < v;
    bad_ |= !(w < INFINITY);  // NaN or +inf
    double& max = max_[id & 1];
    max = std::max(max, w);
  }

  // `ids` calls its argument with every visited id again, for the error's
  // lowest offending id.
  template <class Ids>
  Result<PenaltyOutcome> Outcome(const SamplingParams& p, const Ids& ids) const {
    if (bad_) {
      int32_t lowest = INT32_MAX;
      ids([&](int32_t id) {
        if (!(l_[id] < INFINITY) && id < lowest) lowest = id;
      });
      return *checks::Penalized(l_[lowest], lowest, p);
    }
    return PenaltyOutcome{std::max({max_before_, max_[0], max_[1]}), stale_};
  }

 private:
  double* l_;
  double max_before_;
  twins::Penalties p_;
  bool stale_ = false;
  bool bad_ = false;
  double max_[2] = {-INFINITY, -INFINITY};
};

// The error of penalties that made some l[0, n) NaN or +inf (one is): its
// lowest id's.
Error PenalizedError(const double* l, size_t n, const SamplingParams& p) {
  const size_t i = static_cast<size_t>(
      std::find_if(l, l + n, [](double v) { return !(v < INFINITY); }) - l);
  return *checks::Penalized(l[i], static_cast<int32_t>(i), p);
}

// A Sequence's dense counts as the kernels' codes, when penalties apply.
std::optional<twins::PenaltyCodes> CodesOf(const Request& request) {
  const detail::HistoryCounts* counts = request.history;
  if (counts == nullptr || counts->codes() == nullptr || !PenaltiesApply(request)) {
    return std::nullopt;
  }
  const SamplingParams& p = request.params;
  const bool additive = p.frequency_penalty != 0.0 || p.presence_penalty != 0.0;
  return twins::PenaltyCodes{counts->codes(),
                             {p.repetition_penalty, additive ? p.frequency_penalty : 0.0,
                              additive ? p.presence_penalty : 0.0}};
}

// Applies the repetition, presence and frequency penalties to l (the widened
// logits, whose maximum is max_before) in place. From a Sequence's codes
// (CodesOf) in one pass, from its other counts in what its distinct ids
// cost; otherwise in O(window) from the ids, with
// `counts` (zero on entry, left zero) holding per id twice its generated
// count plus one when it is in the prompt, each distinct id visited once.
Result<PenaltyOutcome> ApplyPenalties(const Request& request, double* l, double max_before,
                                      const twins::PenaltyCodes* codes,
                                      std::vector<uint64_t>& counts) {
  const SamplingParams& p = request.params;
  const bool repetition = p.repetition_penalty != 1.0;
  const bool additive = p.frequency_penalty != 0.0 || p.presence_penalty != 0.0;
  if (!PenaltiesApply(request)) return PenaltyOutcome{max_before, false};
  if (codes != nullptr) {
    const simd::PenaltyResult r = simd::Penalize(l, request.vocab(), *codes);
    if (r.bad) return PenalizedError(l, request.vocab(), p);
    return PenaltyOutcome{r.max, false};
  }
  PenaltyVisit visit(p, l, max_before);
  if (const detail::HistoryCounts* counts = request.history) {
    const auto each = [&](auto&& f) {
      counts->ForEach([&](int32_t id, uint32_t, uint32_t generated) {
        if (repetition || generated > 0) f(id, additive ? generated : 0);
      });
    };
    each(visit);
    return visit.Outcome(p, [&](const auto& f) { each([&](int32_t id, uint32_t) { f(id); }); });
  }
  const scalar_ref::PenaltyWindow window = scalar_ref::WindowOf(request);
  if (counts.size() < request.vocab()) counts.resize(request.vocab());
  for (const int32_t id : window.generated) counts[static_cast<size_t>(id)] += 2;
  if (repetition) {
    for (const int32_t id : window.prompt) counts[static_cast<size_t>(id)] |= 1;
  }
  const auto visit_once = [&](int32_t id) {
    uint64_t& c = counts[static_cast<size_t>(id)];
    if (c == 0) return;  // visited already
    const uint64_t count = c >> 1;
    c = 0;
    visit(id, additive ? count : 0);
  };
  for (const int32_t id : window.generated) visit_once(id);
  if (repetition) {
    for (const int32_t id : window.prompt) visit_once(id);
  }
  return visit.Outcome(p, [&](const auto& f) {
    for (const int32_t id : window.generated) f(id);
    if (repetition) {
      for (const int32_t id : window.prompt) f(id);
    }
  });
}

// The mask's allowed ids as a bitmask of ceil(n / 32) words: the caller's
// own when it is the only form given, else built into `scratch`.
const uint32_t* AllowedBits(const TokenMask& mask, size_t n, std::vector<uint32_t>& scratch) {
  if (mask.allowed.empty() && mask.banned.empty()) return mask.allowed_bits.data();
  const size_t words = (n + 31) / 32;
  scratch.assign(words, mask.allowed.empty() ? ~uint32_t{0} : 0);
  for (int32_t i : mask.allowed) scratch[i / 32] |= uint32_t{1} << (i % 32);
  for (size_t w = 0; w < words && !mask.allowed_bits.empty(); ++w) {
    scratch[w] &= mask.allowed_bits[w];
  }
  for (int32_t i : mask.banned) scratch[i / 32] &= ~(uint32_t{1} << (i % 32));
  return scratch.data();
}

// The bias on l (widened and masked, largest value max_before) in place;
// returns the largest logit after it. Error: a bias to +inf (the lowest
// such id). A masked-out id stays -inf.
Result<double> ApplyBias(const LogitBias& bias, double* l, size_t n, double max_before) {
  double max = max_before;
  bool stale = false;
  for (size_t j = 0; j < bias.ids.size(); ++j) {
    double& v = l[bias.ids[j]];
    stale |= (v == max);
    v += bias.values[j];
  }
  int32_t infinite = -1;
  for (int32_t i : bias.ids) {
    if (l[i] == INFINITY && (infinite < 0 || i < infinite)) infinite = i;
    max = std::max(max, l[i]);
  }
  if (infinite >= 0) return checks::BiasedToInfinity(infinite);
  if (stale) max = simd::Max(l, n);
  if (max == -INFINITY) return checks::AllMaskedOut();
  return max;
}

// fn(begin, end) for each run of ids in [0, n) between penalised ones.
template <typename F>
void ForEachGap(std::span<const int32_t> penalised, size_t n, F&& fn) {
  size_t begin = 0;
  for (size_t j = 0; j <= penalised.size(); ++j) {
    const size_t end = j < penalised.size() ? static_cast<size_t>(penalised[j]) : n;
    if (end > begin) fn(begin, end);
    begin = end + 1;
  }
}

// Steps 2 and 3 on the f32-row path: the window's distinct ids get their
// penalised logits in ws.l and are listed ascending in logits.penalised_ids;
// returns the largest logit after them, the row's largest being max_x.
Result<double> PenaliseWindowIds(const Request& request, const Plan& plan, double max_x,
                              detail::WorkspaceImpl& ws, Logits& logits) {
  const float* const x = logits.x;
  int32_t* const ids = ws.PenalisedIds();
  double* const l = ws.l.data();
  size_t count = 0;
  const auto note = [&](int32_t id) {
    ids[count++] = id;
    l[id] = static_cast<double>(x[id]);
  };
  if (const detail::HistoryCounts* counts = request.history) {
    counts->ForEach([&](int32_t id, uint32_t, uint32_t) { note(id); });
  } else {
    const scalar_ref::PenaltyWindow window = scalar_ref::WindowOf(request);
    for (const int32_t id : window.prompt) note(id);
    for (const int32_t id : window.generated) note(id);
  }
  std::sort(ids, ids + count);
  count = static_cast<size_t>(std::unique(ids, ids + count) - ids);
  const std::span<const int32_t> penalised{ids, count};
  logits.penalised_ids = penalised;
  logits.penalised_l = l;
  if (const Result<PenaltyOutcome> penalized =
          ApplyPenalties(request, l, -INFINITY, nullptr, ws.penalty_counts);
      !penalized) {
    return penalized.error();
  }
  // The largest unchanged logit is max_x unless a changed id held it. Then
  // it is that of the first id of step 6's selection over the unchanged
  // ids, made now, where there is top-k and t orders them as l does; else
  // the gaps between changed ids are read again.
  const bool held = std::any_of(penalised.begin(), penalised.end(),
                                [&](int32_t id) { return x[id] == max_x; });
  double max = max_x;
  const double temperature = request.params.temperature;
  if (held && plan.asks.top_k && simd::topk::F32OrderIsLs(temperature)) {
    logits.unpenalised_k = FirstKUnpenalised(x, request.vocab(), penalised, temperature,
                                         static_cast<size_t>(request.params.top_k), ws);
    max = logits.unpenalised_k > 0 ? static_cast<double>(x[ws.top[0]]) : -INFINITY;
  } else if (held) {
    max = -INFINITY;
    ForEachGap(penalised, request.vocab(), [&](size_t begin, size_t end) {
      max = std::max(max, simd::CheckedMax(x + begin, end - begin).max);
    });
  }
  // Every listed id's logit, changed or not (one the penalties skip keeps x's).
  for (const int32_t id : penalised) max = std::max(max, l[id]);
  return max;
}

}  // namespace

void Logits::AtAscending(const int32_t* ids, size_t count, double* out) const {
  size_t next = 0;  // the first penalised id not below ids[j]
  for (size_t j = 0; j < count; ++j) {
    const int32_t id = ids[j];
    if (l != nullptr) {
      out[j] = l[id];
      continue;
    }
    while (next < penalised_ids.size() && penalised_ids[next] < id) ++next;
    out[j] = next < penalised_ids.size() && penalised_ids[next] == id ? penalised_l[id]
                                                              : static_cast<double>(x[id]);
  }
}

const double* WidenPenalisedRow(const Logits& logits, detail::WorkspaceImpl& ws) {
  double* const l = ws.l.data();  // already holds the penalised ids' logits
  ForEachGap(logits.penalised_ids, logits.n, [&](size_t begin, size_t end) {
    simd::WidenMax(logits.x + begin, end - begin, l + begin);
  });
  return l;
}

bool FewPenalisedIds(const Request& request) {
  if (!PenaltiesApply(request)) return true;
  if (const detail::HistoryCounts* counts = request.history) {
    return counts->codes() == nullptr && counts->distinct() <= kMaxPenalisedIds;
  }
  const scalar_ref::PenaltyWindow window = scalar_ref::WindowOf(request);
  return window.prompt.size() + window.generated.size() <= kMaxPenalisedIds;
}

bool PenaltiesApply(const Request& request) {
  const SamplingParams& p = request.params;
  // A window of n >= 1 tokens is empty only when the history is.
  const detail::HistoryCounts* counts = request.history;
  const bool history = counts != nullptr ? !counts->empty()
                                         : !request.prompt.empty() || !request.generated.empty();
  const bool generated =
      counts != nullptr ? counts->generated_total() > 0 : !request.generated.empty();
  return (p.repetition_penalty != 1.0 && history) ||
         ((p.frequency_penalty != 0.0 || p.presence_penalty != 0.0) && generated);
}

Result<Logits> PenalizedLogits(const Request& request, const Plan& plan,
                               detail::WorkspaceImpl& ws) {
  const size_t n = request.vocab();
  const simd::Row x = simd::Row::Of(request);
  double* const l = plan.path.f32_row ? nullptr : ws.l.data();
  // Step 1 and the mask, checking the row and finding the largest logit
  // after the mask in the same pass, with the helpers called for the
  // logprob's pass.
  const uint32_t* bits = plan.asks.mask ? AllowedBits(request.mask, n, ws.mask_bits) : nullptr;
  const auto checked = std::exchange(ws.checked_row, {});
  const threads::WaitingHelpers helpers = ws.helpers.AnnouncedLogprobPass();
  MaxPassBuffers buffers;
  if (helpers) {
    if (l == nullptr) {
      buffers.x_copy = ws.GrownToVocab(ws.x_copy);
    } else {
      buffers.stage = ws.GrownToVocab(ws.l_stage);
    }
  }
  // A Sequence's dense counts with no bias between: steps 2 and 3 in the
  // same pass, its maximum the penalised one.
  const std::optional<twins::PenaltyCodes> codes = CodesOf(request);
  const bool fused = codes && request.bias.ids.empty();
  // Step 1's check and maximum, found while a batch helper copied this row.
  const bool row_checked = l == nullptr && checked.x == request.logits.data() && checked.n == n;
  simd::WidenResult widened;
  if (fused) {
    widened = WidenMaxPass(x, n, l, {bits}, helpers, buffers, &*codes);
  } else if (row_checked) {
    widened = checked.result;
  } else {
    widened = WidenMaxPass(x, n, l, {bits}, helpers, buffers);
  }
  if (widened.bad) {
    // A NaN or +inf in the row, which step 1's check names; else one the
    // penalties made, which only a fused pass (into the f64 row) can.
    if (const std::optional<Error> e = checks::LogitValues(request)) return *e;
    assert(fused && l != nullptr);
    return PenalizedError(l, n, request.params);
  }
  if (fused && widened.max == -INFINITY) {  // every id masked, or penalties
    widened = simd::WidenMax(x, n, l, {bits});
    if (widened.max != -INFINITY) return *checks::MaxAfterPenalties(-INFINITY, request.params);
  }
  if (widened.max == -INFINITY) {  // a finite bias leaves -inf logits -inf
    if (auto e = checks::LogitValues(request)) return *e;
    return checks::AllMaskedOut();
  }
  double max = widened.max;
  Logits logits{request.logits_type == LogitType::f32 ? request.logits.data() : nullptr, l, n,
                max};
  if (l == nullptr && PenaltiesApply(request)) {  // steps 2 and 3 on the f32-row path
    const Result<double> penalized = PenaliseWindowIds(request, plan, max, ws, logits);
    if (!penalized) return penalized.error();
    max = *penalized;
  }
  if (!request.bias.ids.empty()) {
    const Result<double> biased = ApplyBias(request.bias, l, n, max);
    if (!biased) return biased.error();
    max = *biased;
  }
  if (l != nullptr && !fused) {  // steps 2 and 3
    const auto penalized =
        ApplyPenalties(request, l, max, codes ? &*codes : nullptr, ws.penalty_counts);
    if (!penalized) return penalized.error();
    max = penalized->max_stale ? simd::Max(l, n) : penalized->max_logit;
  }
  if (scalar_ref::IsOn(ChainStep::dry, request.params)) {
    // The reference's order: the penalties' error first, then DRY, which
    // only lowers finite logits (Plan::Of keeps the f64 row for it).
    if (max == -INFINITY) return *checks::MaxAfterPenalties(max, request.params);
    for (const auto& [id, amount] : scalar_ref::DryAmounts(request)) {
      if (l[id] != -INFINITY) l[id] = l[id] - amount;
    }
    max = simd::Max(l, n);
    if (max == -INFINITY) return checks::DryEmptied(request.params);
  }
  if (auto e = checks::MaxAfterPenalties(max, request.params)) return *e;
  logits.max = max;
  if (bits != nullptr && plan.path.every_finite_logit && simd::CountAllowed(bits, n) <= n / 4 * 3) {
    double* const finite = ws.GrownToVocab(ws.l_finite);
    // The ids are read by K alone.
    int32_t* const ids = plan.asks.top_k ? nullptr : ws.GrownToVocab(ws.ids_finite);
    logits.finite_n = simd::CompactFinite(l, n, finite, ids);
    logits.finite_l = finite;
    logits.finite_ids = ids;
  }
  return logits;
}

}  // namespace exactsample
