#include <variant>

#include "exactsample/exactsample.hpp"
#include "lib/choose.hpp"
#include "lib/fast_engine.hpp"
#include "lib/workspace.hpp"
#include "scalar_ref/checks.hpp"
#include "scalar_ref/reference.hpp"

namespace exactsample {

Workspace::Workspace() : impl_(detail::WorkspaceAccess::Make()) {}
Workspace::~Workspace() = default;
Workspace::Workspace(Workspace&&) noexcept = default;
Workspace& Workspace::operator=(Workspace&&) noexcept = default;

Result<std::monostate> validate(const Request& request) {
  if (auto e = checks::ParamsAndIds(request)) return *e;
  if (auto e = checks::LogitValues(request)) return *e;
  return std::monostate{};
}

Result<Token> detail::SampleChoosing(const Request& request, Pcg32& rng, Workspace& workspace,
                                     const SampleOptions& options,
                                     const scalar_ref::Choose* choose) {
  if (auto e = checks::ParamsAndIds(request, options.generated_checked)) return *e;
  Result<Token> token =
      options.engine == Engine::fast
          ? SampleFast(request, rng, detail::WorkspaceAccess::Of(workspace), options, choose)
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
