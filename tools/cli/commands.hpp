// The subcommands of the exactsample program.
#pragma once

#include <string>

#include "exactsample/exactsample.hpp"

namespace exactsample::cli {

struct EngineChoice {
  Engine engine = Engine::fast;
  std::string target;  // "" = best supported
};

// Exit status: 0 all cases sampled, 1 some case failed, 2 unreadable file.
int Replay(const std::string& path, const EngineChoice& choice);
int Demo();
int Targets(bool supported_only);

}  // namespace exactsample::cli
