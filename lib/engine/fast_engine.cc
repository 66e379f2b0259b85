#include "lib/engine/fast_engine.hpp"

#include "lib/engine/steps.hpp"
#include "lib/engine/trace_recorder.hpp"
#include "scalar_ref/chain_checks.hpp"

namespace exactsample {
namespace {

// A call whose pass stopped as it asked (ExpView::stopped) returns this,
// which the one who asked does not read.
Error Stopped() { return Error{ErrorCode::invalid_parameter, "stopped", "stopped"}; }

}  // namespace

Plan Plan::Of(const Request& request, const SampleOptions& options) {
  const SamplingParams& p = request.params;
  Plan plan{};
  Asks& asks = plan.asks;
  asks.top_k = p.top_k > 0 && static_cast<size_t>(p.top_k) < request.vocab();
  asks.mask = !request.mask.allowed.empty() || !request.mask.banned.empty() ||
              !request.mask.allowed_bits.empty();
  asks.bias_or_mask = asks.mask || !request.bias.ids.empty();
  asks.top_logprobs = static_cast<size_t>(p.top_logprobs);
  asks.rank = options.rank;
  asks.logprob = options.logprob || options.trace != nullptr || asks.top_logprobs > 0 ||
                 asks.rank;

  plan.runs.threads = options.threads;
  plan.runs.exp = simd::CallerExp();  // this thread's floating-point mode
  plan.runs.default_fp = simd::DefaultEnvironment();

  Path& path = plan.path;
  // At T = 1, t = l and K's softmax over every id is the logprob's.
  path.one_softmax = p.temperature == 1.0 && !asks.top_k;
  // The f32 row is read in place where nothing needs the f64 row: no bias,
  // mask or trace (a 16-bit row is widened in the max pass instead: reading
  // its words in the exp pass costs more, the widening's shuffles competing
  // with the exp's). Then either
  // DRY changes the f64 row after the penalties.
  const bool row_as_given = request.logits_type == LogitType::f32 && options.trace == nullptr &&
                            !asks.bias_or_mask && !scalar_ref::IsOn(ChainStep::dry, p);
  // the one softmax serves everything (no penalty or top-p; min-p reads e
  // alone, and the processed logprob the chosen id's logit),
  const bool softmax_alone = path.one_softmax && p.top_p >= 1.0 && !PenaltiesApply(request);
  // or, at T != 0 without top-N or rank, at most kMaxPenalisedIds window ids
  // take their penalised logits beside the row (Logits::penalised_ids): with
  // top-k, K is compacted from the row, so k must fit a compact K; without,
  // the filters read the logits of the few ids they compact (KeptSet::row),
  // and top-p widens the row only where no candidate set holds its cut.
  const bool few_penalised = p.temperature != 0.0 && asks.top_logprobs == 0 && !asks.rank &&
                             FewPenalisedIds(request);
  const bool k_fits =
      !asks.top_k || static_cast<size_t>(p.top_k) <= CompactCapacity(request.vocab());
  path.f32_row = row_as_given && (softmax_alone || (few_penalised && k_fits));
  path.every_finite_logit = asks.logprob || (!asks.top_k && p.temperature != 0.0);
  return plan;
}

Result<Token> SampleFast(const Request& original, const ChainSplit& split, Pcg32& rng,
                         detail::WorkspaceImpl& ws, const SampleOptions& options,
                         const scalar_ref::Choose* choose) {
  // With a tail, the kernels run the prefix's steps alone (at T = 1 where
  // the tail holds the temperature).
  Request prefix;
  if (split.count > 0) {
    prefix = original;
    prefix.params = split.Prefix(original.params);
  }
  const Request& request = split.count > 0 ? prefix : original;
  const SamplingParams& p = request.params;
  const Plan plan = Plan::Of(request, options);
  TraceRecorder trace(options.trace);
  ws.Reserve(request.vocab());
  ws.helpers.BeginCall(ws.executor.get(), plan.runs.threads, request.vocab());
  // Helpers called now are waiting in the first exp pass when it starts.
  threads::Announcement announced;
  if (plan.asks.logprob || plan.path.one_softmax) {
    announced = ws.AnnounceLogprobPass(plan.runs.threads, request.vocab());
  } else {
    ws.helpers.WakeFor(ws.executor.get(), plan.runs.threads, request.vocab());
  }

  if (options.distribution != nullptr) options.distribution->clear();
  Result<Logits> logits = PenalizedLogits(request, plan, ws);
  if (!logits) return logits.error();
  BoundedNucleus nucleus;
  const LogprobSoftmax softmax = Logprob(logits.value(), plan, p, ws, nucleus);
  if (softmax.stopped) return Stopped();
  trace.Softmax(*logits, softmax);
  if (p.temperature == 0.0) {
    const size_t id = Greedy(*logits);
    if (options.distribution != nullptr) {
      options.distribution->push_back({static_cast<int32_t>(id), 1.0});
    }
    return softmax.TokenOf(*logits, id, 0.0, plan, ws);
  }

  if (!nucleus.made) nucleus.Make(*logits, p, plan, ws);
  simd::Cut cut = nucleus.cut;
  KeptSet kept = nucleus.kept ? *nucleus.kept : TopK(*logits, softmax, p, plan, ws);
  if (kept.stopped) return Stopped();
  trace.TopK(*logits, plan, ws, p.temperature);
  if (!nucleus.kept) cut = TopP(kept, p, ws);
  trace.TopP(kept, cut, p.temperature);
  const std::optional<MinPCut> min_p = MinP(kept, p.min_p, ws);
  trace.MinP(kept, min_p);
  if (split.count > 0) {
    return Tail(original, split, *logits, kept, cut, min_p, softmax, plan, rng, ws, options,
                choose);
  }

  if (options.distribution != nullptr) Distribution(kept, *options.distribution);
  if (choose != nullptr) {
    const KeptSetView view(kept, options.distribution, ws.chosen_from);
    const int32_t id = (*choose)(view);
    return softmax.TokenOf(*logits, static_cast<size_t>(id),
                           ProcessedLogprob(*logits, kept, kept.Entry(id), p.temperature),
                           plan, ws);
  }
  const double u = rng.uniform_f64();  // step 10: exactly one draw
  const size_t chosen = Draw(kept, u);
  trace.Draw(kept, u, chosen);
  return softmax.TokenOf(*logits, static_cast<size_t>(kept.Id(chosen)),
                         ProcessedLogprob(*logits, kept, chosen, p.temperature), plan, ws);
}

}  // namespace exactsample
