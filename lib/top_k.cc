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
  // Without top-k, K is every id with a finite logit: the compacted ones
  // where a mask left them (Logits::finite_l), else the row, whose -inf
  // entries have e = +0.
  const bool finite = logits.finite_l != nullptr;
  const double* const kept_l = finite ? logits.finite_l : l;
  const size_t kept_n = finite ? logits.finite_n : n;
  const auto exp_sum_pass = [&](const double* src, size_t count, double* e) {
    return ExpSumPass({src}, count, temperature, max_tempered, e, plan.exp,
                      ws.ForPass(plan.threads, count, ws.kept_job), ws.sums);
  };
  // K's e values as one array, unless only Draw reads them (f32_row without
  // min-p: no top-p or trace either), which reads the one piece it needs as
  // it is.
  const bool only_draw_reads_e = plan.f32_row && params.min_p == 0.0;
  const auto kept_set = [&](double* e, double z, std::optional<RowSums> sums,
                            RowJob* patch) {
    KeptSet kept{kept_l, e, kept_n, logits.finite_ids, z, sums, patch};
    if (patch != nullptr && !only_draw_reads_e) {
      kept.e = patch->Contiguous();
      kept.patch = nullptr;
    }
    return kept;
  };
  if (!plan.top_k) {
    if (plan.shared_softmax) {
      return kept_set(ws.e.data(), softmax.z, softmax.sums, softmax.patch);
    }
    const ExpSumResult pass = exp_sum_pass(kept_l, kept_n, ws.e.data());
    return kept_set(ws.e.data(), pass.z, pass.sums, pass.patch);
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
    const ExpSumResult pass = exp_sum_pass(l, n, ws.e.data());
    double* const e = pass.patch != nullptr ? pass.patch->Contiguous() : ws.e.data();
    simd::ZeroAfter(l, temperature, e, n, scalar_ref::Tempered(l[last], temperature), last);
    return {l, e, n, nullptr, simd::ExactSum(e, n), std::nullopt, nullptr};
  }
  std::sort(ws.top.begin(), ws.top.end());
  ws.top_l.resize(count);
  for (size_t j = 0; j < count; ++j) ws.top_l[j] = l[ws.top[j]];
  const double z = simd::ExpSum(ws.top_l.data(), count, temperature, max_tempered,
                                ws.e.data(), plan.exp);
  return {ws.top_l.data(), ws.e.data(), count, ws.top.data(), z, std::nullopt, nullptr};
}

}  // namespace exactsample
