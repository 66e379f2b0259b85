// Sequence: a request followed from step to step (exactsample/sequence.hpp).
#include "exactsample/sequence.hpp"

#include <algorithm>
#include <optional>
#include <utility>
#include <string>
#include <utility>

#include "lib/api/sequence_state.hpp"
#include "scalar_ref/checks.hpp"

namespace exactsample {
namespace {

Error IdOutside(const char* field, int64_t id, size_t vocab) {
  return Error{ErrorCode::invalid_ids, field,
               std::string(field) + " = " + std::to_string(id) +
                   ": outside [0, V) with V = " + std::to_string(vocab)};
}

bool Stateful(const SamplingParams& p) { return p.mirostat != 0 || p.adaptive_target >= 0; }

}  // namespace

void Sequence::State::AppendGenerated(int32_t id) {
  drawn.reset();
  const int64_t n = params.penalty_last_n;
  const size_t total = prompt.size() + generated.size();
  counts.Repetition(id, +1);
  if (n > 0 && total + 1 > static_cast<size_t>(n)) {
    counts.Repetition(At(total - static_cast<size_t>(n)), -1);
  }
  counts.Generated(id, +1);
  if (n > 0 && generated.size() + 1 > static_cast<size_t>(n)) {
    counts.Generated(generated[generated.size() - static_cast<size_t>(n)], -1);
  }
  generated.push_back(id);
}

void Sequence::State::PopGenerated() {
  drawn.reset();
  const int64_t n = params.penalty_last_n;
  const int32_t id = generated.back();
  generated.pop_back();
  const size_t total = prompt.size() + generated.size();
  counts.Generated(id, -1);
  if (n > 0 && generated.size() + 1 > static_cast<size_t>(n)) {
    counts.Generated(generated[generated.size() - static_cast<size_t>(n)], +1);
  }
  counts.Repetition(id, -1);
  if (n > 0 && total + 1 > static_cast<size_t>(n)) {
    counts.Repetition(At(total - static_cast<size_t>(n)), +1);
  }
}

void Sequence::State::AppendPrompt(int32_t id) {
  drawn.reset();
  // A prompt id goes before the generated ones: it is in the window only
  // while fewer than n ids were generated, and then pushes the window's
  // oldest prompt id out.
  const int64_t n = params.penalty_last_n;
  const size_t g = generated.size();
  if (n == 0 || g < static_cast<size_t>(n)) {
    counts.Repetition(id, +1);
    if (n > 0 && prompt.size() + g >= static_cast<size_t>(n)) {
      counts.Repetition(prompt[prompt.size() + g - static_cast<size_t>(n)], -1);
    }
  }
  prompt.push_back(id);
}

Sequence::Sequence(std::unique_ptr<State> state) : s_(std::move(state)) {}
Sequence::Sequence(const Sequence& other) : s_(std::make_unique<State>(*other.s_)) {
  s_->OwnBreakers(false);
}
Sequence& Sequence::operator=(const Sequence& other) {
  if (this != &other) {
    s_ = std::make_unique<State>(*other.s_);
    s_->OwnBreakers(false);
  }
  return *this;
}
Sequence::Sequence(Sequence&&) noexcept = default;
Sequence& Sequence::operator=(Sequence&&) noexcept = default;
Sequence::~Sequence() = default;

Result<Sequence> Sequence::create(size_t vocab, const SamplingParams& params, Pcg32 rng,
                                  Constraints extras) {
  if (vocab == 0 || vocab > static_cast<size_t>(INT32_MAX)) {
    return Error{ErrorCode::invalid_logits, "vocab",
                 "vocab = " + std::to_string(vocab) + ": must be in [1, 2^31 - 1]"};
  }
  auto state = std::unique_ptr<State>(
      new State{vocab, params, std::move(extras), rng, rng, {}, {}, detail::HistoryCounts(vocab),
                    {}, {}, {}, {}});
  Request probe;  // the parameters and extras, checked once
  probe.params = params;
  probe.bias = state->extras.bias();
  probe.mask = state->extras.mask();
  if (auto e = checks::ParamsAndExtras(probe, vocab)) return *e;
  state->OwnBreakers(true);
  return Sequence(std::move(state));
}

Result<Request> Sequence::request(const Step& step) const {
  const State& s = *s_;
  Request r;
  r.logits = step.logits;
  r.logits16 = step.logits16;
  r.logits_type = step.logits_type;
  if (r.vocab() != s.vocab) {
    return Error{ErrorCode::invalid_logits, "logits",
                 "logits: V = " + std::to_string(r.vocab()) + " but the sequence's V = " +
                     std::to_string(s.vocab)};
  }
  r.prompt = s.prompt;
  r.generated = s.generated;
  r.params = step.params != nullptr ? *step.params : s.params;
  r.bias = step.bias != nullptr ? *step.bias : s.extras.bias();
  r.mask = step.mask != nullptr ? *step.mask : s.extras.mask();
  // Counts serve only the window they were kept for.
  if (r.params.penalty_last_n == s.params.penalty_last_n) r.history = &s.counts;
  return r;
}

Result<Token> Sequence::sample_with(const Step& step, Workspace& workspace,
                                    const SampleOptions& options, ChainState& chain) {
  const Result<Request> r = request(step);
  if (!r) return r.error();
  SampleOptions o = options;
  o.generated_checked = s_->generated.size();
  o.chain_state = &chain;
  return exactsample::sample(*r, s_->rng, workspace, o);
}

Result<Token> Sequence::sample_only(const Step& step, Workspace& workspace,
                                    const SampleOptions& options) {
  ChainState next = s_->chain;  // only a token the sequence appends moves it
  Result<Token> token = sample_with(step, workspace, options, next);
  if (token) s_->drawn = State::Drawn{token->id, next};
  return token;
}

Result<Token> Sequence::sample(const Step& step, Workspace& workspace,
                               const SampleOptions& options) {
  ChainState next = s_->chain;
  Result<Token> token = sample_with(step, workspace, options, next);
  if (token) {
    s_->AppendGenerated(token->id);
    s_->chain = next;
  }
  return token;
}

Result<std::monostate> Sequence::accept(int32_t id) {
  if (id < 0 || static_cast<size_t>(id) >= s_->vocab) return IdOutside("id", id, s_->vocab);
  // The token sample_only drew: appended as sample appends it.
  const std::optional<State::Drawn> drawn = s_->drawn;
  s_->AppendGenerated(id);
  if (drawn && drawn->id == id) s_->chain = drawn->chain;
  return std::monostate{};
}

Result<std::monostate> Sequence::truncate(size_t length) {
  if (length > s_->generated.size()) {
    return Error{ErrorCode::invalid_parameter, "length",
                 "length = " + std::to_string(length) + ": above the " +
                     std::to_string(s_->generated.size()) + " generated ids"};
  }
  s_->TruncateGenerated(length);
  return std::monostate{};
}

Result<std::monostate> Sequence::accept_prompt(std::span<const int32_t> ids) {
  for (size_t j = 0; j < ids.size(); ++j) {
    if (ids[j] < 0 || static_cast<size_t>(ids[j]) >= s_->vocab) {
      const std::string field = "prompt[" + std::to_string(j) + "]";
      return IdOutside(field.c_str(), ids[j], s_->vocab);
    }
  }
  s_->prompt.reserve(s_->prompt.size() + ids.size());
  for (const int32_t id : ids) s_->AppendPrompt(id);
  return std::monostate{};
}

void Sequence::reset() {
  s_->drawn.reset();
  s_->prompt.clear();
  s_->generated.clear();
  s_->counts.Clear();
  s_->chain = {};
  s_->rng = s_->start;
}

void sample_batch(std::span<Sequence* const> sequences, std::span<const Step> rows,
                  std::vector<Result<Token>>& results, BatchWorkspace& workspace,
                  const SampleOptions& options, int threads, bool accept) {
  // The rows' requests, or the error that keeps a row from being sampled.
  thread_local std::vector<BatchRow> batch;
  thread_local std::vector<std::optional<Error>> refused;
  thread_local std::vector<bool> alone;
  const size_t n = std::min(sequences.size(), rows.size());
  batch.clear();
  refused.assign(n, std::nullopt);
  alone.assign(n, false);
  // A sequence takes one row: a second would share its generator.
  thread_local std::vector<std::pair<const Sequence*, size_t>> order;
  order.clear();
  for (size_t i = 0; i < n; ++i) {
    if (sequences[i] != nullptr) order.emplace_back(sequences[i], i);
  }
  std::sort(order.begin(), order.end());
  for (size_t k = 1; k < order.size(); ++k) {
    if (order[k].first == order[k - 1].first) {
      const size_t first = order[k - 1].second;
      refused[order[k].second] =
          Error{ErrorCode::invalid_parameter, "sequences",
                "sequences[" + std::to_string(order[k].second) + "] is sequences[" +
                    std::to_string(first) + "]: a sequence takes one row of a batch"};
      order[k].second = first;  // name the first row to later repeats too
    }
  }
  for (size_t i = 0; i < n; ++i) {
    if (sequences[i] == nullptr) {
      refused[i] = Error{ErrorCode::invalid_parameter, "sequences",
                         "sequences[" + std::to_string(i) + "] is null"};
      batch.push_back({Request{}, nullptr});
      continue;
    }
    Result<Request> r = sequences[i]->request(rows[i]);
    if (!r && !refused[i]) refused[i] = r.error();
    // Mirostat and adaptive-p carry state from token to token: such a row
    // is sampled on its own below, as Sequence::sample does.
    alone[i] = r && !refused[i] && Stateful(r->params);
    batch.push_back({r && !refused[i] && !alone[i] ? *r : Request{}, &sequences[i]->rng()});
    if (refused[i] || alone[i]) batch.back().rng = nullptr;
  }
  SampleOptions o = options;
  o.generated_checked = 0;  // a sequence's ids were checked as they came
  sample_batch(batch, results, workspace, o, threads);
  thread_local Workspace own;
  for (size_t i = 0; i < n; ++i) {
    if (refused[i]) {
      results[i] = *refused[i];
      continue;
    }
    Sequence& seq = *sequences[i];
    ChainState next = seq.s_->chain;
    if (alone[i]) results[i] = seq.sample_with(rows[i], own, options, next);
    if (accept && results[i]) {
      seq.s_->AppendGenerated(results[i]->id);
      seq.s_->chain = next;
    } else if (results[i]) {
      seq.s_->drawn = Sequence::State::Drawn{results[i]->id, next};
    }
  }
}

size_t Sequence::vocab() const { return s_->vocab; }
const SamplingParams& Sequence::params() const { return s_->params; }
const Constraints& Sequence::constraints() const { return s_->extras; }
std::span<const int32_t> Sequence::prompt() const { return s_->prompt; }
std::span<const int32_t> Sequence::generated() const { return s_->generated; }
Pcg32& Sequence::rng() { return s_->rng; }
const Pcg32& Sequence::rng() const { return s_->rng; }

}  // namespace exactsample
