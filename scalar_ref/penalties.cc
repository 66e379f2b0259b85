#include "scalar_ref/penalties.hpp"

#include <map>
#include <set>

#include "scalar_ref/window.hpp"

namespace exactsample::scalar_ref {
namespace {

// Step 2: over the distinct ids of prompt and generated (of the window).
void RepetitionPenalty(Logits& l, const Request& request) {
  const double r = request.params.repetition_penalty;
  if (r == 1.0) return;
  const PenaltyWindow window = WindowOf(request);
  std::set<int32_t> seen(window.prompt.begin(), window.prompt.end());
  seen.insert(window.generated.begin(), window.generated.end());
  for (int32_t i : seen) l[i] = l[i] > 0 ? l[i] / r : l[i] * r;
}

// Step 3: over the generated ids (of the window), c times each.
void PresenceAndFrequency(Logits& l, const Request& request) {
  const SamplingParams& p = request.params;
  if (p.frequency_penalty == 0.0 && p.presence_penalty == 0.0) return;
  std::map<int32_t, int64_t> count;
  for (int32_t i : WindowOf(request).generated) ++count[i];
  for (const auto& [i, c] : count) {
    l[i] = l[i] - p.frequency_penalty * static_cast<double>(c) - p.presence_penalty;
  }
}

}  // namespace

void Penalties(Logits& l, const Request& request) {
  RepetitionPenalty(l, request);
  PresenceAndFrequency(l, request);
}

}  // namespace exactsample::scalar_ref
