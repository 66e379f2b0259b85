// Chains from names (docs/llama-samplers.md, Orders).
#include <string>

#include "exactsample/exactsample.hpp"

namespace exactsample {
namespace {

constexpr std::string_view kNames[kChainSteps] = {
    "penalties", "dry", "top_n_sigma", "top_k", "typical", "top_p", "min_p", "xtc",
    "temperature"};

Error ChainError(std::string message) {
  return {ErrorCode::invalid_parameter, "chain", std::move(message)};
}

}  // namespace

std::string_view chain_step_name(ChainStep step) {
  const auto i = static_cast<size_t>(step);
  return i < kChainSteps ? kNames[i] : std::string_view("?");
}

Result<Chain> chain_from_preset(std::string_view name) {
  if (name == "spec") return Chain{};
  if (name == "llama") return Chain::Llama();
  return ChainError("chain = '" + std::string(name) +
                    "': not a preset (spec, llama) or a list of step names");
}

Result<Chain> chain_from_names(std::span<const std::string_view> names) {
  Chain chain{ChainPreset::list, 0, {}, {}};
  for (size_t j = 0; j < names.size(); ++j) {
    size_t i = 0;
    while (i < kChainSteps && kNames[i] != names[j]) ++i;
    if (i == kChainSteps) {
      return ChainError("chain[" + std::to_string(j) + "] = '" + std::string(names[j]) +
                        "': not a step (penalties, dry, top_n_sigma, top_k, typical, top_p, "
                        "min_p, xtc, temperature)");
    }
    if (chain.count < chain.list.size()) chain.list[chain.count++] = static_cast<ChainStep>(i);
  }
  return chain;
}

}  // namespace exactsample
