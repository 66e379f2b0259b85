#include <variant>

#include "exactsample/exactsample.hpp"
#include "lib/engine/choose.hpp"
#include "lib/engine/fast_engine.hpp"
#include "lib/engine/workspace.hpp"
#include "scalar_ref/checks.hpp"
#include "scalar_ref/reference.hpp"

namespace exactsample {

Workspace::Workspace() : impl_(detail::WorkspaceAccess::Make()) {}
Workspace::~Workspace() = default;
Workspace::Workspace(Workspace&&) noexcept = default;
Workspace& Workspace::operator=(Workspace&&) noexcept = default;

// The whole sampling path on a scratch generator, the token discarded: the
// checks that only the steps can make (a bias or penalty that overflows, a
// mask that leaves nothing, l / T overflowing) answer exactly as in sample().
// No draw can fail, so the generator's state does not matter. The workspace
// is the thread's own, grown to the largest V it validated.
Result<std::monostate> validate(const Request& request) {
  thread_local Workspace workspace;
  Pcg32 scratch = Pcg32::from_state(0, 1, 0);
  const Result<Token> token = sample(request, scratch, workspace);
  if (!token) return token.error();
  return std::monostate{};
}

Result<Token> detail::SampleChoosing(const Request& request, Pcg32& rng, Workspace& workspace,
                                     const SampleOptions& options,
                                     const scalar_ref::Choose* choose) {
  if (auto e = checks::ParamsAndIds(request, options.generated_checked)) return *e;
  // A chain the fast engine cannot show exact falls back to the reference's.
  const ChainSplit split =
      options.engine == Engine::fast ? ChainSplit::Of(request, options) : ChainSplit{};
  Result<Token> token =
      split.fast ? SampleFast(request, split, rng, detail::WorkspaceAccess::Of(workspace),
                              options, choose)
                 : scalar_ref::Sample(request, rng, options, choose);
  if (!token || options.logprob) return token;
  Token without = *token;
  without.logprob = NAN;
  return without;
}

Result<Token> sample(const Request& request, Pcg32& rng, Workspace& workspace,
                     const SampleOptions& options) {
  return detail::SampleChoosing(request, rng, workspace, options, nullptr);
}

}  // namespace exactsample
