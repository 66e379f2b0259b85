// The logprob's softmax over all V ids (step 3's logprob, computed as step 9)
// and step 4, which reads the same row.
#include <algorithm>
#include <array>
#include <cmath>

#include "lib/threads/row_passes.hpp"
#include "lib/engine/steps.hpp"
#include "scalar_ref/order.hpp"
#include "scalar_ref/reference.hpp"
#include "simd/max.hpp"
#include "simd/rank.hpp"
#include "simd/topk.hpp"

namespace exactsample {

namespace {

// Work over the f32 row that needs only the row and its maximum, made
// while the logprob's pass runs: split across threads, it overlaps the
// helpers' pieces instead of following the pass. With top-k, step 6's
// selection (FirstKUnpenalised); without, steps 5 to 7 from Z's bounds.
struct EarlySteps {
  Logits* logits;
  const SamplingParams* params;
  const Plan* plan;
  detail::WorkspaceImpl* ws;
  BoundedNucleus* nucleus;

  static void Run(void* arg) {
    const EarlySteps& s = *static_cast<const EarlySteps*>(arg);
    Logits& l = *s.logits;
    if (s.plan->asks.top_k) {
      l.unpenalised_k = FirstKUnpenalised(l.x, l.n, l.penalised_ids, s.params->temperature,
                                      static_cast<size_t>(s.params->top_k), *s.ws);
    } else {
      s.nucleus->Make(l, *s.params, *s.plan, *s.ws);
    }
  }
};

}  // namespace

LogprobSoftmax Logprob(Logits& logits, const Plan& plan, const SamplingParams& params,
                       detail::WorkspaceImpl& ws, BoundedNucleus& nucleus) {
  LogprobSoftmax out{logits.max, NAN, std::nullopt};
  if (!plan.asks.logprob && !plan.path.one_softmax) return out;
  // The spec's M is the first maximum in id order; for a zero its sign
  // reaches the logprob through l[c] - M.
  if (out.max == 0.0 && plan.asks.logprob) {
    size_t first = 0;
    if (logits.l != nullptr) {
      first = simd::FindFirst(logits.l, logits.n, 0.0);
    } else {
      while (logits.At(first) != 0.0) ++first;
    }
    out.max = logits.At(first);
  }
  const simd::ExpSource src =
      logits.finite_l != nullptr ? simd::ExpSource{logits.finite_l} : logits.Source();
  const size_t n = logits.finite_l != nullptr ? logits.finite_n : logits.n;
  // Over a masked row's finite logits where they are compacted (e then
  // follows their order, K's). e is stored where steps 6 to 9 reuse it.
  // Split across threads, helpers store e where nothing else of this call
  // writes, and read the f32 row only through their copies of its pieces.
  double* e = plan.path.one_softmax ? ws.e.data() : nullptr;
  RowThreads threads = ws.ForPass(plan.runs.threads, n, threads::RowHelpers::kLogprob);
  threads.keep_e = plan.path.one_softmax;
  EarlySteps early{&logits, &params, &plan, &ws, &nucleus};
  if (plan.path.f32_row && (plan.asks.top_k ? logits.unpenalised_k == Logits::kNotSelected
                                   : params.top_p < 1.0)) {
    threads.meanwhile = &EarlySteps::Run;
    threads.meanwhile_arg = &early;
  }
  if (threads.Helped()) {
    if (src.l == nullptr) threads.x_copy = ws.GrownToVocab(ws.x_copy);
    if (e == nullptr) e = ws.GrownToVocab(ws.e_logprob);
  }
  const ExpView pass = ExpSumPass(src, n, 1.0, out.max, e, plan.runs.exp, threads, ws.sums);
  out.z = pass.z;
  out.stopped = pass.stopped;
  if (plan.path.one_softmax) {
    out.sums = pass.sums;
    out.scattered = pass.scattered;
  }
  return out;
}

namespace {

// Token::top_logprobs by selection: the first count + 1 ids of (l desc, id
// asc) order (simd::TopK, over the f32 row on the f32-row path); the first
// `count`, ordered by (logprob desc, id asc), are the answer when the next
// id's logprob is below the count-th's. Otherwise (a tie in l across the
// boundary, or rounding that gives both one logprob) the scalar definition
// decides, over the f64 row (widened into ws.l on the f32-row path).
size_t TopLogprobs(const Logits& logits, const LogprobSoftmax& softmax, size_t count,
                   detail::WorkspaceImpl& ws, TopLogprob* out) {
  if (count == 0) return 0;
  std::array<int32_t, kMaxTopLogprobs + 1> ids;
  const std::span<int32_t> scratch = ws.TopKScratch(logits.n);
  const size_t found =
      logits.l != nullptr
          ? simd::TopK(logits.l, 1.0, logits.n, count + 1, ids.data(), scratch)
          : simd::TopK(logits.x, 1.0, logits.n, count + 1, ids.data(), scratch);
  const size_t kept = std::min(found, count);
  for (size_t j = 0; j < kept; ++j) out[j] = {ids[j], softmax.At(logits, ids[j])};
  if (found > count) {
    // Every id outside has l <= l_next, so a logprob below the count-th's
    // there (hence a lower l) leaves them all below every one inside.
    const bool apart = logits.At(ids[count]) < logits.At(ids[count - 1]) &&
                       softmax.At(logits, ids[count]) < out[count - 1].logprob;
    if (!apart) {
      const double* l = logits.l;
      if (l == nullptr) {
        simd::WidenMax(logits.x, logits.n, ws.l.data());
        l = ws.l.data();
      }
      return scalar_ref::TopLogprobs({l, logits.n}, softmax.max, softmax.z, count, out);
    }
  }
  std::sort(out, out + kept, [](const TopLogprob& a, const TopLogprob& b) {
    return scalar_ref::Before(a.logprob, a.id, b.logprob, b.id);
  });
  // -inf ones (a finite l so far below M that l - M overflows) are left
  // out, as unwritten entries; sorted by logprob, they are the last.
  size_t finite = kept;
  while (finite > 0 && out[finite - 1].logprob == -INFINITY) out[--finite] = TopLogprob{};
  return finite;
}

// Token::rank: the ids before `id` in (logprob desc, id asc) order, counted
// over the row as it is held (f64, or the caller's f32 row on that path).
int64_t Rank(const Logits& logits, const LogprobSoftmax& softmax, size_t id) {
  const double log_z = std::log(softmax.z);
  const double logprob = softmax.At(logits, id);
  const double above = std::nextafter(logprob, INFINITY);
  const auto count = [&](const auto* row) {
    return simd::CountLogprobsAtLeast(row, id, softmax.max, log_z, logprob) +
           simd::CountLogprobsAtLeast(row + id + 1, logits.n - id - 1, softmax.max, log_z,
                                      above);
  };
  return 1 + static_cast<int64_t>(logits.l != nullptr ? count(logits.l) : count(logits.x));
}

}  // namespace

Token LogprobSoftmax::TokenOf(const Logits& logits, size_t id, double processed,
                              const Plan& plan, detail::WorkspaceImpl& ws) const {
  Token token{static_cast<int32_t>(id), plan.asks.logprob ? At(logits, id) : NAN, processed};
  token.top_count = TopLogprobs(logits, *this, plan.asks.top_logprobs, ws, token.top.data());
  if (plan.asks.rank) token.rank = Rank(logits, *this, id);
  return token;
}

size_t Greedy(const Logits& logits) {
  return simd::FindFirst(logits.l, logits.n, logits.max);
}

}  // namespace exactsample
