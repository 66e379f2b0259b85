#include <iostream>
#include <nlohmann/json.hpp>

#include "exactsample/targets.hpp"
#include "exactsample/testing.hpp"
#include "tools/cli/commands.hpp"
#include "tools/cli/replay_format.hpp"

namespace exactsample::cli {
namespace {

// rng = stream(seed, sample) once, then `steps` tokens, each appended to
// the generated ids before the next.
Result<std::vector<Token>> RunCase(const ReplayCase& c, Workspace& ws,
                                   const SampleOptions& options) {
  Pcg32 rng = stream(c.seed, Purpose::sample);
  std::vector<int32_t> generated;
  std::vector<Token> tokens;
  for (int64_t step = 0; step < c.steps; ++step) {
    const Request req = c.lists.With({c.logits, c.prompt, generated, c.params});
    const auto t = sample(req, rng, ws, options);
    if (!t) return t.error();
    tokens.push_back(*t);
    generated.push_back(t->id);
  }
  return tokens;
}

}  // namespace

int Replay(const std::string& path, const EngineChoice& choice) {
  const auto cases = ReadCaseFile(path);
  if (!cases) {
    std::cerr << "exactsample replay: " << cases.error().message << "\n";
    return 2;
  }
  if (auto r = testing::force_target(choice.target); !r) {
    std::cerr << "exactsample replay: " << r.error().message << "\n";
    return 2;
  }
  Workspace ws;
  const SampleOptions options{choice.engine};
  int status = 0;
  for (size_t i = 0; i < cases->size(); ++i) {
    const nlohmann::json& j = (*cases)[i];
    const auto c = ParseCase(j);
    const std::string name = CaseName(j, i);
    const auto tokens =
        c ? RunCase(*c, ws, options) : Result<std::vector<Token>>(c.error());
    if (tokens) {
      std::cout << ResultLine(name, *tokens, c->params.top_logprobs > 0) << "\n";
    } else {
      std::cout << ErrorLine(name, tokens.error().message) << "\n";
      status = 1;
    }
  }
  return status;
}

}  // namespace exactsample::cli
