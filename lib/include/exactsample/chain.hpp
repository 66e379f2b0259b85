// The chain (docs/llama-samplers.md): the steps a request runs, in order,
// and the state mirostat and adaptive-p carry from token to token.
#pragma once

#include "exactsample/cxx20.hpp"
#if EXACTSAMPLE_CXX20

#include <array>
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <optional>
#include <span>
#include <string_view>

namespace exactsample {

// The steps a chain may list; each is on or off by its SamplingParams fields.
enum class ChainStep : uint8_t {
  penalties,
  dry,
  top_n_sigma,
  top_k,
  typical,
  top_p,
  min_p,
  xtc,
  temperature,
};
inline constexpr size_t kChainSteps = 9;

// The spec's order (the default) and llama.cpp's common order.
inline constexpr std::array<ChainStep, kChainSteps> kSpecChain = {
    ChainStep::penalties, ChainStep::dry,    ChainStep::temperature,
    ChainStep::top_n_sigma, ChainStep::top_k, ChainStep::typical,
    ChainStep::top_p,     ChainStep::min_p,  ChainStep::xtc};
inline constexpr std::array<ChainStep, kChainSteps> kLlamaChain = {
    ChainStep::penalties, ChainStep::dry,   ChainStep::top_n_sigma,
    ChainStep::top_k,     ChainStep::typical, ChainStep::top_p,
    ChainStep::min_p,     ChainStep::xtc,   ChainStep::temperature};

enum class ChainPreset : uint8_t { spec, llama, list };

// A preset or a list of steps, a value with no allocation. A list holds at
// most kChainSteps + 1 entries: a longer one repeats a step among its first
// kChainSteps + 1, which validation reports as it would for the whole list.
struct Chain {
  ChainPreset preset = ChainPreset::spec;
  uint8_t count = 0;  // of `list`, with ChainPreset::list
  std::array<ChainStep, kChainSteps + 1> list{};
  // A name a reader of names kept to be refused in the page's order (Bad
  // input: after the other fields' checks), not owned: the step at the first
  // list entry past the last ChainStep, or, in a list of no entries, the
  // preset. Empty for every chain built from ChainSteps.
  std::string_view unknown = {};

  static constexpr Chain Llama() { return Chain{ChainPreset::llama, 0, {}, {}}; }
  static constexpr Chain List(std::initializer_list<ChainStep> steps) {
    Chain c{ChainPreset::list, 0, {}, {}};
    for (const ChainStep s : steps) {
      if (c.count == c.list.size()) break;
      c.list[c.count++] = s;
    }
    return c;
  }
  // The steps in order: the preset's, or the list's.
  constexpr std::span<const ChainStep> steps() const {
    switch (preset) {
      case ChainPreset::spec: return kSpecChain;
      case ChainPreset::llama: return kLlamaChain;
      case ChainPreset::list: break;
    }
    return {list.data(), count};
  }
};

// What a sequence carries between tokens: mirostat's mu and adaptive-p's
// running average (weight W and total T_w); unset until the first token
// that uses them, and unset in a stateless call.
struct ChainState {
  struct Average {
    double weight = 0.0;
    double total = 0.0;
    friend bool operator==(const Average&, const Average&) = default;
  };
  std::optional<double> mu;
  std::optional<Average> average;
  friend bool operator==(const ChainState&, const ChainState&) = default;
};

}  // namespace exactsample

#endif  // EXACTSAMPLE_CXX20
