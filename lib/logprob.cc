// The logprob's softmax over all V ids (step 3's logprob, computed as step 9)
// and step 4, which reads the same row.
#include <cmath>

#include "lib/row_passes.hpp"
#include "lib/steps.hpp"
#include "simd/max.hpp"

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
  // e is stored where steps 6 to 9 reuse it. Split across threads, helpers
  // store e where nothing else of this call writes, and read the f32 row
  // only through their copies of its pieces.
  double* e = plan.shared_softmax ? ws.e.data() : nullptr;
  RowThreads threads = ws.ForPass(plan.threads, logits.n, ws.logprob_job);
  if (threads.job != nullptr) {
    if (src.l == nullptr) threads.x_copy = ws.XCopy();
    if (e == nullptr) e = ws.LogprobE();
  }
  const ExpSumResult pass =
      ExpSumPass(src, logits.n, 1.0, out.max, e, plan.exp, threads, ws.sums);
  out.z = pass.z;
  if (plan.shared_softmax) {
    out.sums = pass.sums;
    out.patch = pass.patch;
  }
  return out;
}

Token LogprobSoftmax::TokenOf(const Logits& logits, size_t id, bool logprob) const {
  return Token{static_cast<int32_t>(id),
               logprob ? (logits.At(id) - max) - std::log(z) : NAN};
}

size_t Greedy(const Logits& logits) {
  return simd::FindFirst(logits.l, logits.n, logits.max);
}

}  // namespace exactsample
