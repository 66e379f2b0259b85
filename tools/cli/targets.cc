#include <iostream>

#include "exactsample/targets.hpp"
#include "tools/cli/commands.hpp"
#include "tools/lib/platform.hpp"

namespace exactsample::cli {

int Targets(bool supported_only) {
  for (const TargetInfo& t : compiled_targets()) {
    if (supported_only) {
      if (t.supported) std::cout << t.name << "\n";
      continue;
    }
    std::cout << t.name << "\t"
              << (t.supported ? "supported, exp: " + t.exp : "not supported")
              << (t.active ? "\t(used by the fast engine)" : "") << "\n";
  }
  if (!supported_only) {
    std::cout << "process exp: " << exp_choice() << "\n"
              << "architecture: " << platform::Describe() << "\n";
  }
  return 0;
}

}  // namespace exactsample::cli
