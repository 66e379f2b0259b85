// The logprob's softmax over all V ids (step 3's logprob, computed as step 9)
// and step 4, which reads the same row.
#include <algorithm>
#include <array>
#include <cmath>

#include "lib/row_passes.hpp"
#include "lib/steps.hpp"
#include "scalar_ref/order.hpp"
#include "scalar_ref/reference.hpp"
#include "simd/max.hpp"
#include "simd/topk.hpp"

namespace exactsample {

LogprobSoftmax Logprob(const Logits& logits, const Plan& plan, detail::WorkspaceImpl& ws) {
  LogprobSoftmax out{logits.max, NAN, std::nullopt};
  if (!plan.logprob && !plan.shared_softmax) return out;
  // The spec's M is the first maximum in id order; for a zero its sign
  // reaches the logprob through l[c] - M.
  if (out.max == 0.0 && plan.logprob) {
    size_t first = 0;
    if (logits.l != nullptr) {
      first = simd::FindFirst(logits.l, logits.n, 0.0);
    } else {
      while (logits.x[first] != 0.0f) ++first;
    }
    out.max = logits.At(first);
  }
  const simd::ExpSource src = logits.l != nullptr ? simd::ExpSource{logits.l}
                                                  : simd::ExpSource{nullptr, logits.x};
  // e is stored where steps 6 to 9 reuse it, and where helper threads hand
  // their pieces over.
  double* const e = plan.shared_softmax || plan.threads > 1 ? ws.e.data() : nullptr;
  const ExpSumResult pass =
      ExpSumPass(src, logits.n, 1.0, out.max, e, plan.exp, plan.threads, ws.sums);
  out.z = pass.z;
  if (plan.shared_softmax) out.sums = pass.sums;
  return out;
}

namespace {

// Token::top_logprobs by selection: the first `count` ids of (l desc, id
// asc) order (simd::TopK), ordered by (logprob desc, id asc). That is the
// answer unless rounding gives the count-th logprob to an id outside them:
// to one with a lower l (the next double below the count-th l shares its
// logprob), or to one with a higher l (then the equal-logprob ids are no
// longer ordered by l). Those rows go to the scalar definition.
size_t TopLogprobs(const Logits& logits, const LogprobSoftmax& softmax, size_t count,
                   detail::WorkspaceImpl& ws, TopLogprob* out) {
  if (count == 0) return 0;
  std::array<int32_t, kMaxTopLogprobs> ids;
  const size_t found =
      simd::TopK(logits.l, 1.0, logits.n, count, ids.data(), ws.TopKScratch(logits.n));
  for (size_t j = 0; j < found; ++j) out[j] = {ids[j], softmax.At(logits, ids[j])};
  if (found == count) {
    const double l_last = logits.l[ids[found - 1]];
    const double lp_last = out[found - 1].logprob;
    bool exact = (std::nextafter(l_last, -INFINITY) - softmax.max) - std::log(softmax.z) < lp_last;
    for (size_t j = 0; j < found; ++j) {
      exact &= out[j].logprob != lp_last || logits.l[ids[j]] == l_last;
    }
    if (!exact) {
      return scalar_ref::TopLogprobs({logits.l, logits.n}, softmax.max, softmax.z, count, out);
    }
  }
  std::sort(out, out + found, [](const TopLogprob& a, const TopLogprob& b) {
    return scalar_ref::Before(a.logprob, a.id, b.logprob, b.id);
  });
  return found;
}

}  // namespace

Token LogprobSoftmax::TokenOf(const Logits& logits, size_t id, double processed,
                              const Plan& plan, detail::WorkspaceImpl& ws) const {
  Token token{static_cast<int32_t>(id), plan.logprob ? At(logits, id) : NAN, processed};
  token.top_count = TopLogprobs(logits, *this, plan.top_logprobs, ws, token.top.data());
  return token;
}

size_t Greedy(const Logits& logits) {
  return simd::FindFirst(logits.l, logits.n, logits.max);
}

}  // namespace exactsample
