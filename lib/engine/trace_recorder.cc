#include "lib/engine/trace_recorder.hpp"

#include <algorithm>
#include <cmath>
#include <vector>

#include "scalar_ref/order.hpp"

namespace exactsample {
namespace {

// K as ascending ids: the entries of `kept` that were in `before` and pass
// `in`.
template <class Pred>
std::vector<int32_t> Ids(const KeptSet& kept, const std::vector<int32_t>& before,
                         Pred in) {
  std::vector<int32_t> out;
  for (size_t j = 0; j < kept.n; ++j) {
    const int32_t id = kept.Id(j);
    if (std::binary_search(before.begin(), before.end(), id) && in(j)) {
      out.push_back(id);
    }
  }
  return out;
}

}  // namespace

void TraceRecorder::RecordSoftmax(const Logits& logits, const LogprobSoftmax& softmax) {
  *trace_ = Trace{};
  trace_->penalized.assign(logits.l, logits.l + logits.n);
  trace_->max_logit = softmax.max;
  trace_->z_all = softmax.z;
}

// An id whose l / T is -inf has left K (docs/llama-samplers.md); the
// kernels keep it with e = 0, which changes no result.
void TraceRecorder::RecordTopK(const Logits& logits, const Plan& plan,
                               const detail::WorkspaceImpl& ws, double temperature) {
  std::vector<int32_t>& ids = trace_->kept_top_k;
  const auto in_k = [&](size_t id) {
    return scalar_ref::Tempered(logits.At(id), temperature) != -INFINITY;
  };
  if (plan.asks.top_k) {
    for (const int32_t id : ws.top) {
      if (in_k(static_cast<size_t>(id))) ids.push_back(id);
    }
    std::sort(ids.begin(), ids.end());
    return;
  }
  for (size_t j = 0; j < logits.n; ++j) {
    if (in_k(j)) ids.push_back(static_cast<int32_t>(j));
  }
}

void TraceRecorder::RecordTopP(const KeptSet& kept, const simd::Cut& cut,
                               double temperature) {
  trace_->kept_top_p = Ids(kept, trace_->kept_top_k, [&](size_t j) {
    const double t = scalar_ref::Tempered(kept.l[j], temperature);
    return !cut.found || !scalar_ref::Before(cut.t, cut.id, t, static_cast<int64_t>(j));
  });
}

void TraceRecorder::RecordMinP(const KeptSet& kept, const std::optional<MinPCut>& cut) {
  if (!cut) {
    trace_->kept_min_p = trace_->kept_top_p;
    return;
  }
  trace_->kept_min_p = Ids(kept, trace_->kept_top_p, [&](size_t j) {
    return kept.e[j] / cut->z_before >= cut->threshold;
  });
}

void TraceRecorder::RecordDraw(const KeptSet& kept, double u, size_t chosen) {
  double c = 0.0;
  for (size_t j = 0; j <= chosen; ++j) c += kept.e[j] / kept.z;
  trace_->z_kept = kept.z;
  trace_->u = u;
  trace_->cdf_at_choice = c;
}

}  // namespace exactsample
