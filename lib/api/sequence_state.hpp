// What a Sequence holds (exactsample/sequence.hpp), and the window
// bookkeeping that keeps its counts equal to those of its ids.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "exactsample/sequence.hpp"
#include "lib/api/sequence_counts.hpp"

namespace exactsample {

struct Sequence::State {
  size_t vocab;
  SamplingParams params;
  Constraints extras;
  Pcg32 start;  // where reset() puts the generator
  Pcg32 rng;
  std::vector<int32_t> prompt, generated;
  detail::HistoryCounts counts;  // of the window params.penalty_last_n makes
  ChainState chain;  // mirostat's mu and adaptive-p's average; unset at reset
  // The last token sample_only drew and the chain state it leads to: an
  // accept of that id next appends it as sample would have; anything else
  // that changes the ids drops it.
  struct Drawn {
    int32_t id;
    ChainState chain;
  };
  std::optional<Drawn> drawn;
  // params.dry_sequence_breakers' ids, owned here (the caller's may go).
  std::vector<std::vector<int32_t>> breakers;
  std::vector<std::span<const int32_t>> breaker_views;

  // Copies params' breakers into `breakers`, or (from none) points params
  // at this state's own again, as after a copy of the state.
  void OwnBreakers(bool copy) {
    if (copy) {
      breakers.clear();
      for (const std::span<const int32_t> b : params.dry_sequence_breakers) {
        breakers.emplace_back(b.begin(), b.end());
      }
    }
    breaker_views.assign(breakers.begin(), breakers.end());
    params.dry_sequence_breakers = breaker_views;
  }

  // Appends one id (checked) and slides the windows: with n > 0, the
  // repetition window holds the last n ids of prompt followed by generated,
  // the generated window the last n generated ids.
  void AppendGenerated(int32_t id);
  void AppendPrompt(int32_t id);
  // Undoes the last AppendGenerated (the window slides back).
  void PopGenerated();
  // Pops generated ids until `length` are left.
  void TruncateGenerated(size_t length) {
    while (generated.size() > length) PopGenerated();
  }
  int32_t At(size_t i) const {  // id i of prompt followed by generated
    return i < prompt.size() ? prompt[i] : generated[i - prompt.size()];
  }
};

// For the C ABI, which samples a sequence's request itself: the state
// mirostat and adaptive-p carry, read before a token and written when the
// sequence appends it, as Sequence::sample and sample_only do.
struct detail::SequenceAccess {
  static ChainState& chain(Sequence& s) { return s.s_->chain; }
  // A token drawn without appending it, as Sequence::sample_only records it.
  static void drew(Sequence& s, int32_t id, const ChainState& next) {
    s.s_->drawn = Sequence::State::Drawn{id, next};
  }
};

}  // namespace exactsample
