#include "lib/fast_engine.hpp"

#include <algorithm>
#include <cmath>

#include "lib/cdf_from_sums.hpp"
#include "lib/checks.hpp"
#include "lib/penalties.hpp"
#include "lib/row_threads.hpp"
#include "simd/cdf.hpp"
#include "simd/compact.hpp"
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
// id_of is null), with penalised logit l[j] and e[j] = exp(l[j] / T - M / T);
// ids outside K have e[j] == 0 exactly, which leaves every ascending sum and
// the inverse CDF as the spec computes them over K.
struct KeptSet {
  const double* l;
  double* e;
  size_t n;
  const int32_t* id_of;
  double z;  // sum of e in ascending id order
  // ExpSumThreads' running sums of e, while e is its output unchanged.
  const double* prefix = nullptr;
  int32_t Id(size_t j) const {
    return id_of != nullptr ? id_of[j] : static_cast<int32_t>(j);
  }
};

// Steps 9 to 11 for draw u: from the running sums of e when they decide it,
// else by the walk.
size_t Draw(const KeptSet& kept, double u) {
  if (kept.prefix != nullptr) {
    if (const auto hit = InverseCdfFromSums(kept.e, kept.n, kept.z, u, kept.prefix,
                                            RowPieceLength(kept.n))) {
      return *hit;
    }
  }
  return simd::InverseCdf(kept.e, kept.n, kept.z, u);
}

// The most ids a compact K holds: beyond it, compaction would cost more
// than it saves and push the workspace past ~24 bytes per vocabulary entry.
size_t CompactCapacity(size_t vocab) { return std::max<size_t>(1024, vocab / 16); }

// Step 6 for k below V; ws.top holds the first k ids (order unspecified).
// Up to CompactCapacity ids are compacted into ascending id order; more
// stay in place, with e zeroed after the k-th id of (t desc, id asc).
KeptSet TopKSet(const double* l, size_t vocab, const SamplingParams& p,
                double max_tempered, simd::ExpVariant variant, int threads,
                Workspace::Impl& ws) {
  const size_t k = static_cast<size_t>(p.top_k);
  ws.top.resize(k);
  const size_t count =
      simd::TopK(l, p.temperature, vocab, k, ws.top.data(), ws.TopKScratch(vocab));
  if (count > CompactCapacity(vocab)) {
    const int32_t last = ws.top[count - 1];
    ws.top.resize(count);
    KeptSet kept{l, ws.e.data(), vocab, nullptr, 0.0};
    ExpSumThreads({l}, vocab, p.temperature, max_tempered, kept.e, variant, threads,
                  ws.prefix.data());
    simd::ZeroAfter(l, p.temperature, kept.e, vocab, l[last] / p.temperature, last);
    kept.z = simd::ExactSum(kept.e, vocab);
    return kept;
  }
  ws.top.resize(count);
  std::sort(ws.top.begin(), ws.top.end());
  ws.top_l.resize(count);
  for (size_t j = 0; j < count; ++j) ws.top_l[j] = l[ws.top[j]];
  KeptSet kept{ws.top_l.data(), ws.e.data(), count, ws.top.data(), 0.0};
  kept.z = simd::ExpSum(kept.l, count, p.temperature, max_tempered, kept.e, variant);
  return kept;
}

// Filters whose kept set is a prefix of (t desc, id asc) order continue on
// a compact K when it is small: the ids with e >= threshold (a prefix too,
// since e does not decrease as t grows) move, in ascending id order, to the
// compact buffers; Z is unchanged. Returns false, leaving K whole, when more
// than CompactCapacity ids qualify.
bool CompactPrefix(KeptSet& kept, double threshold, Workspace::Impl& ws) {
  const size_t capacity = CompactCapacity(kept.n);
  const size_t count = simd::CompactAtLeast(kept.e, kept.n, threshold,
                                            ws.ids.data(), capacity);
  if (count > capacity) return false;
  ws.top.resize(count);
  ws.top_l.resize(count);
  ws.top_e.resize(count);
  for (size_t j = 0; j < count; ++j) {
    const uint32_t i = ws.ids[j];
    ws.top[j] = kept.Id(i);
    ws.top_l[j] = kept.l[i];
    ws.top_e[j] = kept.e[i];
  }
  kept = {ws.top_l.data(), ws.top_e.data(), count, ws.top.data(), kept.z};
  return true;
}

// The smallest e with e / z >= threshold: division is monotone, so min-p
// keeps exactly the ids whose e reaches it.
double SmallestKeptE(double z, double threshold) {
  double y = threshold * z;
  while (y / z < threshold) y = std::nextafter(y, INFINITY);
  while (y > 0 && std::nextafter(y, 0.0) / z >= threshold) {
    y = std::nextafter(y, 0.0);
  }
  return y;
}

// K as ids, for the trace: entries of `kept` that pass `in`.
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

Result<Token> SampleFast(const Request& request, Pcg32& rng, Workspace::Impl& ws,
                         const SampleOptions& options) {
  Trace* const trace = options.trace;
  const SamplingParams& p = request.params;
  const size_t vocab = request.logits.size();
  ws.Reserve(vocab);
  double* const l = ws.l.data();
  const float* const x = request.logits.data();
  const bool top_k = p.top_k > 0 && static_cast<size_t>(p.top_k) < vocab;
  const bool reuse_e = p.temperature == 1.0 && !top_k;
  // At temperature 1 without penalties, filters or a trace, only the
  // softmax over all V ids reads every logit: the max and exp passes read
  // the f32 row and the f64 row is never stored.
  const bool f32_only = reuse_e && p.top_p >= 1.0 && p.min_p == 0.0 &&
                        trace == nullptr && !PenaltiesApply(request);
  const auto logit = [&](size_t id) {
    return f32_only ? static_cast<double>(x[id]) : l[id];
  };

  // Step 1, checking the row and finding its maximum in the same pass.
  const int threads = options.threads;
  const simd::WidenResult widened =
      WidenMaxThreads(x, vocab, f32_only ? nullptr : l, threads);
  if (widened.bad || widened.max == -INFINITY) {
    return *checks::LogitValues(request.logits);
  }

  // Steps 2 and 3 touch only history ids (none when f32_only).
  const auto penalized = ApplyPenalties(request, {l, vocab}, widened.max, ws.history);
  if (!penalized) return penalized.error();
  double max_logit = penalized->max_stale ? simd::Max(l, vocab) : penalized->max_logit;
  if (auto e = checks::MaxAfterPenalties(max_logit, p)) return *e;
  // The spec's M is the first maximum in id order; for a zero its sign
  // reaches the logprob through l[c] - M.
  const bool logprob = options.logprob || trace != nullptr;
  if (max_logit == 0.0 && logprob) {
    size_t first = 0;
    if (f32_only) {
      while (x[first] != 0.0f) ++first;
    } else {
      first = simd::FindFirst(l, vocab, 0.0);
    }
    max_logit = logit(first);
  }

  // The reported logprob's softmax over all V ids, before temperature. At
  // temperature 1 without top-k its e values also serve steps 7 to 9; else,
  // without the logprob, nothing needs it.
  const simd::ExpVariant variant = simd::ProcessExp().variant;
  const double z_all =
      logprob || reuse_e
          ? ExpSumThreads(f32_only ? simd::ExpSource{nullptr, x} : simd::ExpSource{l},
                          vocab, 1.0, max_logit,
                          reuse_e || threads > 1 ? ws.e.data() : nullptr, variant,
                          threads, ws.prefix.data())
          : NAN;
  const double log_z_all = logprob ? std::log(z_all) : NAN;
  const auto token = [&](size_t id) {
    return Token{static_cast<int32_t>(id),
                 logprob ? (logit(id) - max_logit) - log_z_all : NAN};
  };
  if (trace != nullptr) {
    *trace = Trace{};
    trace->penalized.assign(l, l + vocab);
    trace->max_logit = max_logit;
    trace->z_all = z_all;
  }

  // Step 4. Greedy: no draw.
  if (p.temperature == 0.0) return token(simd::FindFirst(l, vocab, max_logit));

  // Step 5 happens inside the kernels (t = l / T, never l * (1 / T)); the
  // largest tempered logit is M / T because division is monotone.
  const double max_tempered = max_logit / p.temperature;

  // Step 6.
  KeptSet kept{l, ws.e.data(), vocab, nullptr, z_all};
  if (top_k) {
    kept = TopKSet(l, vocab, p, max_tempered, variant, threads, ws);
  } else {
    kept.z = reuse_e ? z_all
                     : ExpSumThreads({l}, vocab, p.temperature, max_tempered, kept.e,
                                     variant, threads, ws.prefix.data());
    kept.prefix = ws.prefix.data();
  }
  if (trace != nullptr && top_k) {
    trace->kept_top_k = ws.top;
    std::sort(trace->kept_top_k.begin(), trace->kept_top_k.end());
  } else if (trace != nullptr) {
    for (size_t j = 0; j < vocab; ++j) {
      if (l[j] != -INFINITY) trace->kept_top_k.push_back(static_cast<int32_t>(j));
    }
  }

  // Step 7. The first id in (t desc, id asc) order whose running sum of q
  // reaches p stays; everything after it goes.
  simd::Cut cut;
  if (p.top_p < 1.0) {
    // Candidates first: the ids below x = (1 - p) Z / 2V hold at most half
    // the mass top-p drops, so on a peaked row the walk crosses p among the
    // few ids above x, with the same cut as over all of K.
    KeptSet whole = kept;
    if (kept.id_of == nullptr &&
        CompactPrefix(kept, (1.0 - p.top_p) * kept.z / (2.0 * static_cast<double>(vocab)), ws)) {
      cut = simd::NucleusCut(kept.l, p.temperature, kept.e, kept.n, kept.z,
                             p.top_p, ws.ids);
      if (!cut.found) kept = whole;
    }
    if (!cut.found) {
      cut = simd::NucleusCut(kept.l, p.temperature, kept.e, kept.n, kept.z,
                             p.top_p, ws.ids);
    }
    if (cut.found) {
      simd::ZeroAfter(kept.l, p.temperature, kept.e, kept.n, cut.t,
                      static_cast<int32_t>(cut.id));
      kept.z = simd::ExactSum(kept.e, kept.n);
      kept.prefix = nullptr;
    }
  }
  if (trace != nullptr) {
    trace->kept_top_p = Ids(kept, trace->kept_top_k, [&](size_t j) {
      const double t = kept.l[j] / p.temperature;
      return !cut.found || t > cut.t || (t == cut.t && j <= cut.id);
    });
  }

  // Step 8. max(q) is q of the largest logit, which every filter keeps:
  // e = exp(0) = 1, so max(q) = 1 / Z.
  if (p.min_p != 0.0) {
    const double z_before = kept.z;
    const double threshold = p.min_p * (1.0 / z_before);
    if (kept.id_of == nullptr) {
      CompactPrefix(kept, SmallestKeptE(z_before, threshold), ws);
    }
    simd::MinPFilter(kept.e, kept.n, z_before, threshold);
    kept.z = simd::ExactSum(kept.e, kept.n);
    kept.prefix = nullptr;
    if (trace != nullptr) {
      trace->kept_min_p = Ids(kept, trace->kept_top_p, [&](size_t j) {
        return kept.e[j] / z_before >= threshold;
      });
    }
  } else if (trace != nullptr) {
    trace->kept_min_p = trace->kept_top_p;
  }

  // Steps 9 to 11: q = e / Z inside the walk, one draw.
  const double u = rng.uniform_f64();
  const size_t chosen = Draw(kept, u);
  if (trace != nullptr) {
    double c = 0.0;
    for (size_t j = 0; j <= chosen; ++j) c += kept.e[j] / kept.z;
    trace->z_kept = kept.z;
    trace->u = u;
    trace->cdf_at_choice = c;
  }
  return token(static_cast<size_t>(kept.Id(chosen)));
}

}  // namespace exactsample
