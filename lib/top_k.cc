// Steps 5 and 6: K after top-k with its e values. t = l / T happens inside
// the kernels (never l * (1 / T)); the largest t is M / T because division
// is monotone.
#include <algorithm>

#include "lib/row_passes.hpp"
#include "lib/steps.hpp"
#include "scalar_ref/order.hpp"
#include "simd/exact_sum.hpp"
#include "simd/exp_sum.hpp"
#include "simd/filter.hpp"
#include "simd/topk.hpp"

namespace exactsample {

KeptSet TopK(const Logits& logits, const LogprobSoftmax& softmax,
             const SamplingParams& params, const Plan& plan, detail::WorkspaceImpl& ws) {
  const double* const l = logits.l;
  const size_t n = logits.n;
  const double temperature = params.temperature;
  const double max_tempered = scalar_ref::Tempered(logits.max, temperature);
  const auto exp_sum_pass = [&](double* e) {
    return ExpSumPass({l}, n, temperature, max_tempered, e, plan.exp, plan.threads,
                      ws.sums);
  };
  if (!plan.top_k) {  // K is every id with a finite logit
    if (plan.shared_softmax) return {l, ws.e.data(), n, nullptr, softmax.z, softmax.sums};
    const ExpSumResult pass = exp_sum_pass(ws.e.data());
    return {l, ws.e.data(), n, nullptr, pass.z, pass.sums};
  }
  // ws.top receives the first k ids of (t desc, id asc), in no set order.
  const size_t k = static_cast<size_t>(params.top_k);
  ws.top.resize(k);
  const size_t count =
      simd::TopK(l, temperature, n, k, ws.top.data(), ws.TopKScratch(n));
  ws.top.resize(count);
  if (count > CompactCapacity(n)) {
    // Too many to compact: K stays in place, e zeroed after the k-th id.
    const int32_t last = ws.top[count - 1];
    double* const e = ws.e.data();
    exp_sum_pass(e);
    simd::ZeroAfter(l, temperature, e, n, scalar_ref::Tempered(l[last], temperature), last);
    return {l, e, n, nullptr, simd::ExactSum(e, n), std::nullopt};
  }
  std::sort(ws.top.begin(), ws.top.end());
  ws.top_l.resize(count);
  for (size_t j = 0; j < count; ++j) ws.top_l[j] = l[ws.top[j]];
  const double z = simd::ExpSum(ws.top_l.data(), count, temperature, max_tempered,
                                ws.e.data(), plan.exp);
  return {ws.top_l.data(), ws.e.data(), count, ws.top.data(), z, std::nullopt};
}

}  // namespace exactsample
