#include "tools/cli/bench_history.hpp"

#include <memory>
#include <vector>

#include "exactsample/sequence.hpp"
#include "tools/lib/standard_inputs.hpp"

namespace exactsample::cli {

Result<std::function<void()>> SequenceCall(const Request& request, size_t history,
                                           const SampleOptions& options) {
  const LogitBias& b = request.bias;
  const TokenMask& m = request.mask;
  exactsample::Constraints extras{{b.ids.begin(), b.ids.end()},
                             {b.values.begin(), b.values.end()},
                             {m.allowed.begin(), m.allowed.end()},
                             {m.banned.begin(), m.banned.end()},
                             {m.allowed_bits.begin(), m.allowed_bits.end()}};
  auto created = Sequence::create(request.vocab(), request.params, stream(1, Purpose::sample),
                                  std::move(extras));
  if (!created) return created.error();
  auto seq = std::make_shared<Sequence>(std::move(created.value()));
  const std::vector<int32_t> ids = ZipfHistory(request.vocab(), history);
  const std::span<const int32_t> all(ids);
  if (auto r = seq->accept_prompt(all.first(history / 2)); !r) return r.error();
  for (const int32_t id : all.subspan(history / 2)) {
    if (auto r = seq->accept(id); !r) return r.error();
  }
  const Step step{request.logits, request.logits16, request.logits_type};
  return std::function<void()>([seq, step, options, ws = std::make_shared<Workspace>()] {
    seq->sample_only(step, *ws, options);
  });
}

}  // namespace exactsample::cli
