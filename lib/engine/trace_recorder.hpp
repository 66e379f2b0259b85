// Fills SampleOptions::trace from the fast engine's steps. Each call is one
// inline null check when no trace was asked for; the work happens out of
// line, only for a trace.
#pragma once

#include <optional>

#include "exactsample/exactsample.hpp"
#include "lib/engine/steps.hpp"

namespace exactsample {

class TraceRecorder {
 public:
  explicit TraceRecorder(Trace* trace) : trace_(trace) {}
  bool on() const { return trace_ != nullptr; }

  void Softmax(const Logits& logits, const LogprobSoftmax& softmax) {
    if (on()) RecordSoftmax(logits, softmax);
  }
  void TopK(const Logits& logits, const Plan& plan, const detail::WorkspaceImpl& ws,
            double temperature) {
    if (on()) RecordTopK(logits, plan, ws, temperature);
  }
  void TopP(const KeptSet& kept, const simd::Cut& cut, double temperature) {
    if (on()) RecordTopP(kept, cut, temperature);
  }
  void MinP(const KeptSet& kept, const std::optional<MinPCut>& cut) {
    if (on()) RecordMinP(kept, cut);
  }
  void Draw(const KeptSet& kept, double u, size_t chosen) {
    if (on()) RecordDraw(kept, u, chosen);
  }

 private:
  void RecordSoftmax(const Logits& logits, const LogprobSoftmax& softmax);
  void RecordTopK(const Logits& logits, const Plan& plan, const detail::WorkspaceImpl& ws,
                  double temperature);
  void RecordTopP(const KeptSet& kept, const simd::Cut& cut, double temperature);
  void RecordMinP(const KeptSet& kept, const std::optional<MinPCut>& cut);
  void RecordDraw(const KeptSet& kept, double u, size_t chosen);

  Trace* trace_;
};

}  // namespace exactsample
