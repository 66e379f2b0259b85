// Steps 5 and 6: K after top-k with its e values. t = l / T happens inside
// the kernels (never l * (1 / T)); the largest t is M / T because division
// is monotone.
#include <algorithm>

#include "lib/threads/row_passes.hpp"
#include "lib/engine/steps.hpp"
#include "scalar_ref/order.hpp"
#include "simd/exact_sum.hpp"
#include "simd/exp_sum.hpp"
#include "simd/filter.hpp"
#include "simd/topk.hpp"

namespace exactsample {
namespace {

// Step 6 on the f32 row into ws.top: the first k unpenalised ids
// (FirstKUnpenalised), and the penalised ones at their own logits, hold the
// first k of the row; an id at -inf never enters, as in simd::TopK.
void FirstKOfRow(const Logits& logits, double temperature, size_t k,
                 detail::WorkspaceImpl& ws) {
  const std::span<const int32_t> penalised = logits.penalised_ids;
  const size_t found = logits.unpenalised_k != Logits::kNotSelected
                           ? logits.unpenalised_k
                           : FirstKUnpenalised(logits.x, logits.n, penalised, temperature, k, ws);
  auto end = ws.top.begin() + static_cast<ptrdiff_t>(found);
  for (const int32_t id : penalised) {
    if (logits.penalised_l[id] != -INFINITY) *end++ = id;
  }
  if (end == ws.top.begin() + static_cast<ptrdiff_t>(found)) {
    ws.top.resize(found);
    return;
  }
  ws.top_t.clear();  // each id with its t, computed once
  for (auto it = ws.top.begin(); it != end; ++it) {
    ws.top_t.emplace_back(scalar_ref::Tempered(logits.At(*it), temperature), *it);
  }
  const size_t kept = std::min(k, ws.top_t.size());
  std::partial_sort(ws.top_t.begin(), ws.top_t.begin() + static_cast<ptrdiff_t>(kept),
                    ws.top_t.end(), [](const auto& a, const auto& b) {
                      return scalar_ref::Before(a.first, a.second, b.first, b.second);
                    });
  for (size_t j = 0; j < kept; ++j) ws.top[j] = ws.top_t[j].second;
  ws.top.resize(kept);
}

}  // namespace

size_t FirstKUnpenalised(const float* x, size_t n, std::span<const int32_t> penalised,
                       double temperature, size_t k, detail::WorkspaceImpl& ws) {
  ws.top.resize(k + penalised.size());  // room for the penalised ones after
  // Everything that allocates comes before the bits are set.
  const std::span<int32_t> scratch = ws.TopKScratch(n);
  uint64_t* const skip = penalised.empty() ? nullptr : ws.PenalisedBits();
  for (const int32_t id : penalised) skip[id / 64] |= uint64_t{1} << (id % 64);
  const size_t found = simd::TopK(x, temperature, n, k, ws.top.data(), scratch, skip);
  for (const int32_t id : penalised) skip[id / 64] = 0;  // zero between calls
  return found;
}

KeptSet TopK(const Logits& logits, const LogprobSoftmax& softmax,
             const SamplingParams& params, const Plan& plan, detail::WorkspaceImpl& ws) {
  const double* const l = logits.l;
  const size_t n = logits.n;
  const double temperature = params.temperature;
  const double max_tempered = scalar_ref::Tempered(logits.max, temperature);
  // Without top-k, K is every id with a finite logit: the compacted ones
  // where a mask left them (Logits::finite_l), else the row, whose -inf
  // entries have e = +0 (on the f32-row path, read as it is).
  const bool finite = logits.finite_l != nullptr;
  const double* const kept_l = finite ? logits.finite_l : l;
  const size_t kept_n = finite ? logits.finite_n : n;
  const auto exp_sum_pass = [&](simd::ExpSource src, size_t count, double* e) {
    RowThreads threads = ws.ForPass(plan.runs.threads, count, threads::RowHelpers::kKept);
    if (threads.Helped() && src.l == nullptr) {
      threads.x_copy = ws.GrownToVocab(ws.x_copy_kept);
    }
    return ExpSumPass(src, count, temperature, max_tempered, e, plan.runs.exp, threads, ws.sums);
  };
  // K's e values as one array, unless only Draw reads them (f32_row without
  // top-p or min-p: no trace either), which reads the one piece it needs as
  // it is.
  const bool only_draw_reads_e = plan.path.f32_row && params.top_p >= 1.0 && params.min_p == 0.0;
  const auto kept_set = [&](double* e, double z, std::optional<RowSums> sums,
                            ScatteredPieces* scattered) {
    KeptSet kept{kept_l, e, kept_n, logits.finite_ids, z, sums, scattered,
                 kept_l == nullptr ? &logits : nullptr};
    if (scattered != nullptr && !only_draw_reads_e) {
      kept.e = scattered->Gather();
      kept.scattered = nullptr;
    }
    return kept;
  };
  const auto stopped = [&] {
    KeptSet kept{kept_l, ws.e.data(), kept_n, nullptr, NAN, std::nullopt, nullptr, nullptr};
    kept.stopped = true;
    return kept;
  };
  if (!plan.asks.top_k) {
    if (plan.path.one_softmax) {
      return kept_set(ws.e.data(), softmax.z, softmax.sums, softmax.scattered);
    }
    const ExpView pass =
        exp_sum_pass(finite ? simd::ExpSource{kept_l} : logits.Source(), kept_n, ws.e.data());
    if (pass.stopped) return stopped();
    return kept_set(ws.e.data(), pass.z, pass.sums, pass.scattered);
  }
  // ws.top receives the first k ids of (t desc, id asc), in no set order.
  const size_t k = static_cast<size_t>(params.top_k);
  if (l == nullptr) {  // the f32 row: Plan::Path::f32_row has k <= CompactCapacity(n)
    FirstKOfRow(logits, temperature, k, ws);
  } else {
    ws.top.resize(k);
    ws.top.resize(simd::TopK(l, temperature, n, k, ws.top.data(), ws.TopKScratch(n)));
  }
  const size_t count = ws.top.size();
  if (count > CompactCapacity(n)) {
    // Too many to compact: K stays in place, e zeroed after the k-th id.
    const int32_t last = ws.top[count - 1];
    const ExpView pass = exp_sum_pass({l}, n, ws.e.data());
    if (pass.stopped) return stopped();
    double* const e = pass.scattered != nullptr ? pass.scattered->Gather() : ws.e.data();
    simd::ZeroAfter(l, temperature, e, n, scalar_ref::Tempered(l[last], temperature), last);
    return {l, e, n, nullptr, simd::ExactSum(e, n), std::nullopt, nullptr};
  }
  std::sort(ws.top.begin(), ws.top.end());
  ws.top_l.resize(count);
  logits.AtAscending(ws.top.data(), count, ws.top_l.data());
  const double z = simd::ExpSum(ws.top_l.data(), count, temperature, max_tempered,
                                ws.e.data(), plan.runs.exp);
  return {ws.top_l.data(), ws.e.data(), count, ws.top.data(), z, std::nullopt, nullptr};
}

}  // namespace exactsample
