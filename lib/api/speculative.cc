// The spec's speculative decoding (docs/spec.md, "Speculative decoding"):
// dist() and the verification of draft tokens, each step in the page's
// order. Target and draft rows go through the engines with steps 10 and 11
// replaced by the page's acceptance test (detail::SampleChoosing), so a row
// costs what sampling it costs.
#include "exactsample/speculative.hpp"

#include <algorithm>
#include <optional>
#include <string>

#include "lib/engine/choose.hpp"
#include "lib/api/sequence_state.hpp"
#include "lib/engine/workspace.hpp"
#include "scalar_ref/chain_checks.hpp"

namespace exactsample {
namespace {

// Steps B.4 and B.5 after a rejection: the normalised residual of P over Q
// (P itself when rounding left it all zero) and one draw from it.
int32_t DrawResidual(std::span<const KeptProb> p, std::span<const KeptProb> q, Pcg32& rng,
                     std::vector<KeptProb>& residual) {
  residual.clear();
  // Only ids with P > 0 can have P - Q > 0; the others' R is 0. Both lists
  // ascend: Q's entry for each id of P is found walking along.
  size_t i = 0;
  for (const KeptProb& k : p) {
    while (i < q.size() && q[i].id < k.id) ++i;
    const double r = k.q - (i < q.size() && q[i].id == k.id ? q[i].q : 0.0);
    if (r > 0) residual.push_back({k.id, r});
  }
  if (residual.empty()) residual.assign(p.begin(), p.end());
  double z = 0.0;
  for (const KeptProb& k : residual) z += k.q;
  const double u = rng.uniform_f64();
  double c = 0.0;
  for (const KeptProb& k : residual) {
    c += k.q / z;
    if (u < c) return k.id;
  }
  return residual.back().id;
}

// dist(): the distribution `r` makes, into `out`.
std::optional<Error> DistributionInto(const Request& r, Workspace& ws,
                                      const SampleOptions& options, std::vector<KeptProb>& out) {
  SampleOptions o = options;
  o.distribution = &out;
  // The chooser ends the call before any draw; the generator is not read.
  const scalar_ref::Choose first = [](const scalar_ref::KeptView& d) {
    return d.All().front().id;
  };
  Pcg32 unused = Pcg32::from_state(0, 1, 0);
  const Result<Token> token = detail::SampleChoosing(r, unused, ws, o, &first);
  if (!token) return token.error();
  return std::nullopt;
}

// Path A's target: the temperature 0 with no dynamic temperature, where
// every row's chain ends greedy. Another chain can end greedy on some rows
// (a dynamic temperature T' = 0): such a row is, in path B, the one id of
// its token with q = 1.
bool GreedyTarget(const SamplingParams& p) {
  return p.temperature == 0.0 && p.dynatemp_range == 0.0;
}

// Q(id) of the distribution `r` makes, from one pass over its row (the
// whole distribution is not built).
Result<double> ProbabilityIn(const Request& r, int32_t id, Workspace& ws,
                             const SampleOptions& options) {
  double q = 0.0;
  bool looked = false;
  const scalar_ref::Choose look = [&](const scalar_ref::KeptView& d) {
    looked = true;
    q = d.Q(id);
    return q > 0 ? id : d.All().front().id;  // a held id; the token is not used
  };
  Pcg32 unused = Pcg32::from_state(0, 1, 0);
  const Result<Token> token = detail::SampleChoosing(r, unused, ws, options, &look);
  if (!token) return token.error();
  // A chain that ends greedy shows no chooser: one id with q = 1.
  return looked ? q : (token->id == id ? 1.0 : 0.0);
}

// Where the history h_j of each position comes from.
class Positions {
 public:
  // The request for `row` at position j (history h_j: the history before
  // the drafts, then drafts 0 .. j-1) with `params`; target rows take the
  // request's bias and mask, draft rows none.
  virtual Result<Request> At(size_t j, std::span<const float> row, const SamplingParams& params,
                             bool draft) = 0;

 protected:
  ~Positions() = default;
};

Error Bad(ErrorCode code, const std::string& field, const std::string& message) {
  return Error{code, field, field + message};
}

std::optional<Error> CheckShape(const Drafts& d, bool greedy, size_t vocab) {
  const size_t gamma = d.draft_ids.size();
  if (gamma == 0) {
    return Bad(ErrorCode::invalid_parameter, "draft_ids",
               ": empty; verification needs at least one draft token");
  }
  if (d.target_rows.size() != gamma + 1) {
    return Bad(ErrorCode::invalid_logits, "target_logits",
               ": " + std::to_string(d.target_rows.size()) + " rows for " +
                   std::to_string(gamma) + " drafts; " + std::to_string(gamma + 1) +
                   " (one more than the drafts) are needed");
  }
  if (!greedy && d.draft_rows.size() != gamma) {
    return Bad(ErrorCode::invalid_logits, "draft_logits",
               ": " + std::to_string(d.draft_rows.size()) + " rows for " +
                   std::to_string(gamma) + " drafts; a sampled target needs one per draft");
  }
  const auto length = [&](const char* field, std::span<const std::span<const float>> rows)
      -> std::optional<Error> {
    for (size_t j = 0; j < rows.size(); ++j) {
      if (rows[j].size() != vocab) {
        return Bad(ErrorCode::invalid_logits, std::string(field) + "[" + std::to_string(j) + "]",
                   ": " + std::to_string(rows[j].size()) + " logits, but V = " +
                       std::to_string(vocab) + " (every row has one length)");
      }
    }
    return std::nullopt;
  };
  if (auto e = length("target_logits", d.target_rows)) return e;
  if (!greedy) {
    if (auto e = length("draft_logits", d.draft_rows)) return e;
  }
  for (size_t j = 0; j < gamma; ++j) {
    const int32_t id = d.draft_ids[j];
    if (id < 0 || static_cast<size_t>(id) >= vocab) {
      return Bad(ErrorCode::invalid_ids, "draft_ids[" + std::to_string(j) + "]",
                 " = " + std::to_string(id) + ": outside [0, V) with V = " +
                     std::to_string(vocab));
    }
  }
  return std::nullopt;
}

// The page's steps A and B over `positions`; the generator is advanced only
// when the verification succeeds.
Result<Verified> Verify(Positions& positions, const Drafts& d, const SamplingParams& target,
                        size_t vocab, Pcg32& rng, Workspace& ws, const SampleOptions& options) {
  const bool greedy = GreedyTarget(target);
  if (auto e = CheckShape(d, greedy, vocab)) return *e;
  if (auto e = checks::FixedDistribution(target)) return *e;
  if (auto e = checks::FixedDistribution(d.draft_params.value_or(target))) return *e;
  const size_t gamma = d.draft_ids.size();
  Verified out;
  Pcg32 g = rng;
  SampleOptions o = options;
  o.distribution = nullptr;
  const auto emit = [&](const Result<Token>& token) -> std::optional<Error> {
    if (!token) return token.error();
    out.tokens.push_back(*token);
    return std::nullopt;
  };

  if (greedy) {  // A: no draw; the first mismatch is replaced and ends it
    for (size_t j = 0; j <= gamma; ++j) {
      const Result<Request> r = positions.At(j, d.target_rows[j], target, false);
      if (!r) return r.error();
      if (auto e = emit(sample(*r, g, ws, o))) return *e;
      if (j == gamma || out.tokens.back().id != d.draft_ids[j]) break;
      ++out.accepted;
    }
    rng = g;
    return out;
  }

  // B: every draft's q of its own id first (h_j depends on the drafts
  // alone); a draft's whole distribution is built only where it is rejected.
  const SamplingParams draft = d.draft_params.value_or(target);
  SampleOptions draft_options = o;  // no draft token is emitted
  draft_options.logprob = false;
  draft_options.rank = false;
  std::vector<double> q(gamma);
  for (size_t j = 0; j < gamma; ++j) {
    const Result<Request> r = positions.At(j, d.draft_rows[j], draft, true);
    if (!r) return r.error();
    const Result<double> qj = ProbabilityIn(*r, d.draft_ids[j], ws, draft_options);
    if (!qj) return qj.error();
    if (*qj == 0.0) {
      return Bad(ErrorCode::invalid_parameter, "draft_ids[" + std::to_string(j) + "]",
                 " = " + std::to_string(d.draft_ids[j]) +
                     ": its draft probability is 0 (the draft distribution does not hold it)");
    }
    q[j] = *qj;
  }
  detail::WorkspaceImpl& w = detail::WorkspaceAccess::Of(ws);
  for (size_t j = 0; j < gamma; ++j) {
    const int32_t draft_id = d.draft_ids[j];
    bool accepted = false;
    bool tested = false;
    const scalar_ref::Choose test = [&](const scalar_ref::KeptView& p) {
      tested = true;
      ++out.draws;
      if (g.uniform_f64() < p.Q(draft_id) / q[j]) {
        accepted = true;
        return draft_id;
      }
      const std::span<const KeptProb> all = p.All();
      w.rejected_p.assign(all.begin(), all.end());
      return all.front().id;  // a held id: the residual's token replaces it below
    };
    const Result<Request> r = positions.At(j, d.target_rows[j], target, false);
    if (!r) return r.error();
    const Result<Token> token = detail::SampleChoosing(*r, g, ws, o, &test);
    if (!token) return token.error();
    if (!tested) {  // the row's chain ended greedy: p is one id with q = 1
      ++out.draws;
      accepted = g.uniform_f64() < (token->id == draft_id ? 1.0 : 0.0) / q[j];
      if (!accepted) w.rejected_p.assign(1, KeptProb{token->id, 1.0});
    }
    if (accepted) {
      out.tokens.push_back(*token);
      ++out.accepted;
      continue;
    }
    // The draft's distribution in full, the residual's draw, and that
    // token from the target row again (the same row: the same values).
    const Result<Request> rd = positions.At(j, d.draft_rows[j], draft, true);
    if (!rd) return rd.error();
    if (auto e = DistributionInto(*rd, ws, draft_options, w.rejected_q)) return *e;
    ++out.draws;
    const int32_t id = DrawResidual(w.rejected_p, w.rejected_q, g, w.residual);
    const scalar_ref::Choose replaced = [id](const scalar_ref::KeptView&) { return id; };
    const Result<Request> rt = positions.At(j, d.target_rows[j], target, false);
    if (!rt) return rt.error();
    if (auto e = emit(detail::SampleChoosing(*rt, g, ws, o, &replaced))) return *e;
    rng = g;
    return out;
  }
  // Every draft accepted: the bonus token, one draw.
  const Result<Request> r = positions.At(gamma, d.target_rows[gamma], target, false);
  if (!r) return r.error();
  if (auto e = emit(sample(*r, g, ws, o))) return *e;
  ++out.draws;
  rng = g;
  return out;
}

// h_j as a prefix of the history followed by the drafts.
class StatelessPositions final : public Positions {
 public:
  StatelessPositions(const Request& request, std::span<const int32_t> drafts)
      : request_(request), history_(request.generated.begin(), request.generated.end()) {
    history_.insert(history_.end(), drafts.begin(), drafts.end());
  }
  Result<Request> At(size_t j, std::span<const float> row, const SamplingParams& params,
                     bool draft) override {
    Request r = request_;
    r.logits = row;
    r.logits16 = {};
    r.logits_type = LogitType::f32;
    r.generated = std::span(history_).first(request_.generated.size() + j);
    r.params = params;
    if (draft) {
      r.bias = {};
      r.mask = {};
    }
    return r;
  }

 private:
  const Request& request_;
  std::vector<int32_t> history_;
};

// h_j on the sequence itself: drafts appended and popped as j moves, so the
// penalties read its counts.
class SequencePositions final : public Positions {
 public:
  SequencePositions(Sequence& seq, Sequence::State& state, std::span<const int32_t> drafts)
      : seq_(seq), state_(state), drafts_(drafts), base_(state.generated.size()) {}
  ~SequencePositions() { state_.TruncateGenerated(base_); }

  Result<Request> At(size_t j, std::span<const float> row, const SamplingParams& params,
                     bool draft) override {
    state_.TruncateGenerated(std::min(state_.generated.size(), base_ + j));
    while (state_.generated.size() < base_ + j) {
      state_.AppendGenerated(drafts_[state_.generated.size() - base_]);
    }
    static const LogitBias kNoBias{};
    static const TokenMask kNoMask{};
    return seq_.request({.logits = row,
                         .params = &params,
                         .bias = draft ? &kNoBias : nullptr,
                         .mask = draft ? &kNoMask : nullptr});
  }

 private:
  Sequence& seq_;
  Sequence::State& state_;
  std::span<const int32_t> drafts_;
  size_t base_;
};

}  // namespace

Result<std::vector<KeptProb>> distribution(const Request& request, Workspace& workspace,
                                           const SampleOptions& options) {
  std::vector<KeptProb> out;
  if (auto e = checks::FixedDistribution(request.params)) return *e;
  if (auto e = DistributionInto(request, workspace, options, out)) return *e;
  return out;
}

Result<Verified> verify(const Request& request, const Drafts& drafts, Pcg32& rng,
                        Workspace& workspace, const SampleOptions& options) {
  if (drafts.target_rows.empty()) {
    return CheckShape(drafts, GreedyTarget(request.params), 0).value();
  }
  StatelessPositions positions(request, drafts.draft_ids);
  return Verify(positions, drafts, request.params, drafts.target_rows[0].size(), rng, workspace,
                options);
}

void verify_batch(std::span<const Verification> verifications,
                  std::vector<Result<Verified>>& results, Workspace& workspace,
                  const SampleOptions& options) {
  results.clear();
  results.reserve(verifications.size());
  for (size_t i = 0; i < verifications.size(); ++i) {
    const Verification& v = verifications[i];
    if (v.rng == nullptr) {
      results.emplace_back(Error{ErrorCode::invalid_parameter, "rng",
                                 "rng: verification " + std::to_string(i) + " has no generator"});
      continue;
    }
    results.push_back(verify(v.request, v.drafts, *v.rng, workspace, options));
  }
}

Result<Verified> verify(Sequence& sequence, const Drafts& drafts, Workspace& workspace,
                        const SampleOptions& options) {
  Sequence::State& state = *sequence.s_;
  Result<Verified> out = [&] {
    SequencePositions positions(sequence, state, drafts.draft_ids);
    return Verify(positions, drafts, state.params, state.vocab, state.rng, workspace, options);
  }();  // the drafts popped again
  if (out) {
    for (const Token& t : out->tokens) state.AppendGenerated(t.id);
  }
  return out;
}

}  // namespace exactsample
