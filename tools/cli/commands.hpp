// The subcommands of the exactsample program.
#pragma once

#include <iostream>
#include <string>
#include <string_view>

#include "exactsample/exactsample.hpp"

namespace exactsample::cli {

struct EngineChoice {
  Engine engine = Engine::fast;
  std::string target;  // "" = best supported
};

// Prints "exactsample <command>: <message>" on standard error and returns 2,
// every command's exit status for input it cannot use.
inline int UsageError(std::string_view command, const std::string& message) {
  std::cerr << "exactsample " << command << ": " << message << "\n";
  return 2;
}

// Exit status: 0 all cases sampled, 1 some case failed, 2 unreadable file.
int Replay(const std::string& path, const EngineChoice& choice);
int Demo();
int Targets(bool supported_only);

}  // namespace exactsample::cli
