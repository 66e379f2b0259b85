#include <iostream>
#include <nlohmann/json.hpp>

#include "exactsample/targets.hpp"
#include "exactsample/testing.hpp"
#include "tools/cli/commands.hpp"
#include "tools/cli/replay_format.hpp"
#include "tools/cli/verification_case.hpp"

namespace exactsample::cli {
namespace {

// rng = stream(seed, sample) once, then `steps` tokens, each appended to
// the generated ids before the next.
Result<std::vector<Token>> RunCase(const ReplayCase& c, Workspace& ws,
                                   const SampleOptions& options) {
  Pcg32 rng = stream(c.seed, Purpose::sample);
  std::vector<int32_t> generated;
  std::vector<Token> tokens;
  SampleOptions checked = options;
  ChainState state;  // mirostat's mu and adaptive-p's average, step to step
  checked.chain_state = &state;
  for (int64_t step = 0; step < c.steps; ++step) {
    const Request req = c.lists.With({c.logits, c.prompt, generated, c.params});
    const auto t = sample(req, rng, ws, checked);
    if (!t) return t.error();
    tokens.push_back(*t);
    generated.push_back(t->id);
    checked.generated_checked = generated.size();  // only new ids are checked
  }
  return tokens;
}

}  // namespace

int Replay(const std::string& path, const EngineChoice& choice) {
  const auto bad = [](const std::string& message) { return UsageError("replay", message); };
  if (choice.engine == Engine::reference && !choice.target.empty()) {
    return bad("--target " + choice.target +
               " applies to the fast engine only, not to --engine reference");
  }
  const auto cases = ReadCaseFile(path);
  if (!cases) return bad(cases.error().message);
  if (auto r = testing::force_target(choice.target); !r) return bad(r.error().message);
  Workspace ws;
  const SampleOptions options{choice.engine};
  int status = 0;
  for (size_t i = 0; i < cases->size(); ++i) {
    const nlohmann::json& j = (*cases)[i];
    const std::string name = CaseName(j, i);
    if (IsVerification(j)) {
      const auto c = ParseVerification(j);
      const auto v = c ? RunVerification(*c, ws, options) : Result<Verified>(c.error());
      if (v) {
        std::cout << VerificationLine(name, *v, c->params.top_logprobs > 0) << std::endl;
      } else {
        std::cout << ErrorLine(name, v.error().message) << std::endl;
        status = 1;
      }
      continue;
    }
    const auto c = ParseCase(j);
    const auto tokens =
        c ? RunCase(*c, ws, options) : Result<std::vector<Token>>(c.error());
    if (tokens) {
      // flushed: kept if killed later
      std::cout << ResultLine(name, *tokens, c->params.top_logprobs > 0) << std::endl;
    } else {
      std::cout << ErrorLine(name, tokens.error().message) << std::endl;
      status = 1;
    }
  }
  return status;
}

}  // namespace exactsample::cli
