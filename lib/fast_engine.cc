#include "lib/fast_engine.hpp"

#include <algorithm>
#include <cmath>

#include "lib/checks.hpp"
#include "lib/penalties.hpp"
#include "simd/exact_sum.hpp"
#include "simd/exp_sum.hpp"
#include "simd/exp_variant.hpp"
#include "simd/filter.hpp"
#include "simd/max.hpp"
#include "simd/nucleus.hpp"
#include "simd/topk.hpp"

namespace exactsample {
namespace {

// The kept set K as a dense array: entry j is the id id_of[j] (or j when
// id_of is null), with penalised logit l[j] and, once computed, e[j] =
// exp(l[j] / T - M / T); ids outside K have e[j] == 0 exactly, which leaves
// every ascending sum and the inverse CDF as the spec computes them over K.
struct KeptSet {
  const double* l;
  double* e;
  size_t n;
  const int32_t* id_of;
  double z;  // sum of e in ascending id order
  int32_t Id(size_t j) const {
    return id_of != nullptr ? id_of[j] : static_cast<int32_t>(j);
  }
};

// Step 6 for k below V: the k ids compacted into ascending id order.
KeptSet TopKSet(const double* l, size_t vocab, const SamplingParams& p,
                double max_tempered, simd::ExpVariant variant,
                Workspace::Impl& ws) {
  ws.top.resize(static_cast<size_t>(p.top_k));
  const size_t count = simd::TopK(l, p.temperature, vocab,
                                  static_cast<size_t>(p.top_k), ws.top.data(),
                                  ws.ids);
  std::sort(ws.top.begin(), ws.top.begin() + static_cast<std::ptrdiff_t>(count));
  ws.top_l.resize(count);
  for (size_t j = 0; j < count; ++j) ws.top_l[j] = l[ws.top[j]];
  KeptSet k{ws.top_l.data(), ws.e.data(), count, ws.top.data(), 0.0};
  k.z = simd::ExpSum(k.l, count, p.temperature, max_tempered, k.e, variant);
  return k;
}

}  // namespace

Result<Token> SampleFast(const Request& request, Pcg32& rng,
                         Workspace::Impl& ws) {
  const SamplingParams& p = request.params;
  const size_t vocab = request.logits.size();
  ws.Reserve(vocab);
  double* const l = ws.l.data();

  // Step 1, checking the row and finding its maximum in the same pass.
  const simd::WidenResult widened =
      simd::WidenMax(request.logits.data(), vocab, l);
  if (widened.bad || widened.max == -INFINITY) {
    return *checks::LogitValues(request.logits);
  }

  // Steps 2 and 3 touch only history ids.
  const auto penalized = ApplyPenalties(request, {l, vocab}, widened.max, ws.history);
  if (!penalized) return penalized.error();
  const double max_logit = penalized->max_stale ? simd::Max(l, vocab)
                                                : penalized->max_logit;
  if (auto e = checks::MaxAfterPenalties(max_logit, p)) return *e;

  // The reported logprob's softmax over all V ids, before temperature. At
  // temperature 1 without top-k its e values are also steps 7 to 9's.
  const simd::ExpVariant variant = simd::ProcessExp().variant;
  const bool top_k = p.top_k > 0 && static_cast<size_t>(p.top_k) < vocab;
  const bool reuse_e = p.temperature == 1.0 && !top_k;
  const double z_all = simd::ExpSum(l, vocab, 1.0, max_logit,
                                    reuse_e ? ws.e.data() : nullptr, variant);
  const double log_z_all = std::log(z_all);
  const auto token = [&](int32_t id) {
    return Token{id, (l[id] - max_logit) - log_z_all};
  };

  // Step 4. Greedy: no draw.
  if (p.temperature == 0.0) {
    return token(static_cast<int32_t>(simd::Argmax(l, vocab)));
  }

  // Step 5 happens inside the kernels (t = l / T, never l * (1 / T)); the
  // largest tempered logit is M / T because division is monotone.
  const double max_tempered = max_logit / p.temperature;

  // Step 6.
  KeptSet kept{l, ws.e.data(), vocab, nullptr, z_all};
  if (top_k) {
    kept = TopKSet(l, vocab, p, max_tempered, variant, ws);
  } else if (!reuse_e) {
    kept.z = simd::ExpSum(l, vocab, p.temperature, max_tempered, kept.e, variant);
  }

  // Step 7. The first id in (t desc, id asc) order whose running sum of q
  // reaches p stays; everything after it goes.
  if (p.top_p < 1.0) {
    const simd::Cut cut = simd::NucleusCut(kept.l, p.temperature, kept.e,
                                           kept.n, kept.z, p.top_p, ws.ids);
    if (cut.found) {
      simd::ZeroAfter(kept.l, p.temperature, kept.e, kept.n, cut.t, cut.index);
      kept.z = simd::ExactSum(kept.e, kept.n);
    }
  }

  // Step 8. max(q) is q of the largest logit, which every filter keeps:
  // e = exp(0) = 1, so max(q) = 1 / Z.
  if (p.min_p != 0.0) {
    simd::MinPFilter(kept.e, kept.n, kept.z, p.min_p * (1.0 / kept.z));
    kept.z = simd::ExactSum(kept.e, kept.n);
  }

  // Steps 9 to 11: q = e / Z inside the walk, one draw.
  const double u = rng.uniform_f64();
  return token(kept.Id(simd::InverseCdf(kept.e, kept.n, kept.z, u)));
}

}  // namespace exactsample
