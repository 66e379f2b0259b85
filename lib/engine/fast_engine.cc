#include "lib/engine/fast_engine.hpp"

#include "lib/engine/steps.hpp"
#include "lib/engine/trace_recorder.hpp"

namespace exactsample {
namespace {

// A call whose pass stopped as it asked (ExpView::stopped) returns this,
// which the one who asked does not read.
Error Stopped() { return Error{ErrorCode::invalid_parameter, "stopped", "stopped"}; }

}  // namespace

Plan Plan::Of(const Request& request, const SampleOptions& options) {
  const SamplingParams& p = request.params;
  Plan plan{};
  plan.threads = options.threads;
  plan.exp = simd::CallerExp();  // this thread's floating-point mode
  plan.default_fp = simd::DefaultEnvironment();
  plan.top_k = p.top_k > 0 && static_cast<size_t>(p.top_k) < request.vocab();
  plan.mask = !request.mask.allowed.empty() || !request.mask.banned.empty() ||
              !request.mask.allowed_bits.empty();
  plan.adjust = plan.mask || !request.bias.ids.empty();
  plan.top_logprobs = static_cast<size_t>(p.top_logprobs);
  plan.rank = options.rank;
  plan.logprob = options.logprob || options.trace != nullptr || plan.top_logprobs > 0 ||
                 plan.rank;
  plan.shared_softmax = p.temperature == 1.0 && !plan.top_k;
  const bool row_as_given =
      request.logits_type == LogitType::f32 && options.trace == nullptr && !plan.adjust;
  const bool shared_row = plan.shared_softmax && p.top_p >= 1.0 && !PenaltiesApply(request);
  const bool patched_row = p.temperature != 0.0 && plan.top_logprobs == 0 && !plan.rank &&
                           FewPenalisedIds(request);
  const bool k_fits =
      !plan.top_k || static_cast<size_t>(p.top_k) <= CompactCapacity(request.vocab());
  plan.f32_row = row_as_given && (shared_row || (patched_row && k_fits));
  plan.finite_pass = plan.logprob || (!plan.top_k && p.temperature != 0.0);
  return plan;
}

Result<Token> SampleFast(const Request& request, Pcg32& rng, detail::WorkspaceImpl& ws,
                         const SampleOptions& options, const scalar_ref::Choose* choose) {
  const SamplingParams& p = request.params;
  const Plan plan = Plan::Of(request, options);
  TraceRecorder trace(options.trace);
  ws.Reserve(request.vocab());
  // Helpers called now are waiting in the first exp pass when it starts.
  struct Announced {
    RowJob* job;
    ~Announced() {
      if (job != nullptr) job->Cancel();
    }
  } announced{nullptr};
  if (plan.logprob || plan.shared_softmax) {
    announced.job = ws.AnnounceLogprobPass(plan.threads, request.vocab());
  } else if (RowTeam(request.vocab(), plan.threads) > 1) {
    threads::WakeHelpers(ws.executor.get());
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
  trace.TopK(*logits, plan, ws);
  if (!nucleus.kept) cut = TopP(kept, p, ws);
  trace.TopP(kept, cut, p.temperature);
  const std::optional<MinPCut> min_p = MinP(kept, p.min_p, ws);
  trace.MinP(kept, min_p);

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
