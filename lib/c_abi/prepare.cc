#include "lib/c_abi/prepare.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <new>
#include <stdexcept>

#include "exactsample/sequence.hpp"
#include "lib/api/sequence_state.hpp"
#include "lib/c_abi/convert.hpp"

namespace exactsample::c_abi {

namespace {

Problem Bad(std::string message) {
  return {EXACTSAMPLE_INVALID_ARGUMENT, std::move(message)};
}

// The first history or generator field a request on a sequence sets (the
// sequence's own are used), or null.
const char* StatelessFieldSet(const exactsample_request& c) {
  if (c.prompt != nullptr) return "prompt";
  if (c.prompt_len != 0) return "prompt_len";
  if (c.generated != nullptr) return "generated";
  if (c.generated_len != 0) return "generated_len";
  if (c.generated_checked != 0) return "generated_checked";
  if (c.rng != nullptr) return "rng";
  return nullptr;
}

// Where the row's `count` values of `word` bytes start: logits, moved on
// by `row` strides in a batch whose rows share one matrix.
Problem RowStart(const exactsample_request& c, const std::string& prefix, size_t row,
                 bool batch, size_t count, size_t word, const void** start) {
  *start = c.logits;
  if (c.logits == nullptr) {
    if (count == 0) return {};
    return Bad(prefix + "logits is NULL with " +
               (c.candidate_ids != nullptr ? "candidate_count = " : "vocab = ") +
               std::to_string(count));
  }
  if (!batch || c.row_stride == 0) return {};
  if (c.row_stride < count) {
    return Bad(prefix + "row_stride = " + std::to_string(c.row_stride) +
               " is smaller than the row's " + std::to_string(count) + " elements");
  }
  if (row > static_cast<size_t>(PTRDIFF_MAX) / word / c.row_stride) {
    return Bad(prefix + "row_stride = " + std::to_string(c.row_stride) + ": row " +
               std::to_string(row) + " would start beyond the address space");
  }
  *start = static_cast<const unsigned char*>(c.logits) + row * c.row_stride * word;
  return {};
}

// The checks that need no conversion: struct sizes, pointers with lengths,
// fields that do not go with a sequence (or with its absence).
Problem CheckFields(const exactsample_sequence* sequence, const exactsample_request& c,
                    const std::string& prefix) {
  if (sequence != nullptr) {
    if (const char* field = StatelessFieldSet(c)) {
      return Bad(prefix + field +
                 " is set with a sequence, whose history and generator are used: "
                 "leave it NULL / 0");
    }
  } else {
    std::string p = ArrayProblem(c.prompt, c.prompt_len, prefix + "prompt", "prompt_len");
    if (p.empty()) {
      p = ArrayProblem(c.generated, c.generated_len, prefix + "generated", "generated_len");
    }
    if (!p.empty()) return Bad(p);
    if (c.rng == nullptr) return Bad(prefix + "rng is NULL: a stateless request needs its generator");
    if (c.accept != 0) {
      return Bad(prefix + "accept = " + std::to_string(c.accept) +
                 " without a sequence: a stateless request has no history to append to");
    }
  }
  if (c.params != nullptr) {
    if (std::string p = ParamsProblem(*c.params, prefix); !p.empty()) return Bad(p);
  }
  if (c.extras != nullptr) {
    if (std::string p = ExtrasProblem(*c.extras, prefix, true); !p.empty()) {
      return Bad(p);
    }
  }
  if ((c.kept_ids != nullptr || c.kept_probs != nullptr) && c.kept_count == nullptr) {
    return Bad(prefix + "kept_count is NULL while kept_ids or kept_probs is given");
  }
  return {};
}

}  // namespace

Problem Prepare(exactsample_sequence* sequence, const exactsample_request& c,
                const std::string& prefix, size_t row, bool batch, CandidateRow& candidates,
                PreparedRow& out) {
  if (std::string size = StructSizeProblem("exactsample_request", c.struct_size,
                                            sizeof(exactsample_request),
                                            "zero the struct and set it to sizeof");
      !size.empty()) {
    // A batch's row says which; a single call's request is its own argument.
    return Bad(batch && !prefix.empty() ? prefix.substr(0, prefix.size() - 1) + ": " + size
                                        : size);
  }
  const auto type = LogitTypeOf(c.logits_type);
  if (!type) {
    return Bad(prefix + "logits_type = " + std::to_string(c.logits_type) +
               ": EXACTSAMPLE_LOGITS_F32 (0), EXACTSAMPLE_LOGITS_F16 (1) or "
               "EXACTSAMPLE_LOGITS_BF16 (2)");
  }
  const bool has_candidates = c.candidate_ids != nullptr;
  if (!has_candidates && c.candidate_count != 0) {
    return Bad(prefix + "candidate_ids is NULL with candidate_count = " +
               std::to_string(c.candidate_count));
  }
  if (has_candidates && *type != LogitType::f32) {
    return Bad(prefix + "logits_type = " + std::to_string(c.logits_type) +
               " with candidate_ids: candidate logits are f32 (EXACTSAMPLE_LOGITS_F32)");
  }
  if (has_candidates && c.vocab > static_cast<size_t>(std::numeric_limits<int32_t>::max())) {
    return Bad(prefix + "vocab = " + std::to_string(c.vocab) +
               " with candidate_ids: V is at most 2^31 - 1");
  }
  if (sequence != nullptr && c.vocab != sequence->sequence.vocab()) {
    return {EXACTSAMPLE_INVALID_LOGITS, prefix + "vocab = " + std::to_string(c.vocab) +
                                            ": the sequence's V is " +
                                            std::to_string(sequence->sequence.vocab())};
  }
  const size_t count = has_candidates ? c.candidate_count : c.vocab;
  const size_t word = *type == LogitType::f32 ? sizeof(float) : sizeof(uint16_t);
  const void* values = nullptr;
  if (Problem p = RowStart(c, prefix, row, batch, count, word, &values); !p.ok()) return p;
  if (Problem p = CheckFields(sequence, c, prefix); !p.ok()) return p;

  out = PreparedRow{};
  out.sequence = sequence;
  out.c = &c;
  out.wants_logprob = c.logprob != nullptr;
  out.wants_kept = c.kept_count != nullptr;
  out.stateful = false;
  out.wants_rank = c.extras != nullptr && c.extras->rank != nullptr;
  std::span<const float> f32;
  std::span<const uint16_t> words;
  if (has_candidates) {
    std::string p = candidates.Scatter(c.candidate_ids, static_cast<const float*>(values),
                                       count, c.vocab, prefix);
    if (!p.empty()) return {EXACTSAMPLE_INVALID_IDS, std::move(p)};
    out.candidates = &candidates;
    f32 = candidates.row();
  } else if (*type == LogitType::f32) {
    f32 = {static_cast<const float*>(values), c.vocab};
  } else {
    words = {static_cast<const uint16_t*>(values), c.vocab};
  }
  const exactsample_extras* x = c.extras;
  if (x != nullptr) {
    out.bias = {{x->bias_ids, x->bias_len}, {x->bias_values, x->bias_len}};
    out.mask = {{x->allowed_ids, x->allowed_len},
                {x->banned_ids, x->banned_len},
                {x->allowed_bitmask, x->allowed_bitmask_words}};
  }
  if (sequence == nullptr) {
    out.params = c.params != nullptr ? ToParams(*c.params, out.breakers) : SamplingParams{};
    out.params.top_logprobs = x != nullptr ? x->top_logprobs : 0;
    out.request = {f32, {c.prompt, c.prompt_len}, {c.generated, c.generated_len},
                   out.params, out.bias, out.mask};
    out.request.logits16 = words;
    out.request.logits_type = *type;
    out.own_rng = ToPcg(*c.rng);
    out.rng = &out.own_rng;
  } else {
    Sequence& seq = sequence->sequence;
    Step step;
    step.logits = f32;
    step.logits16 = words;
    step.logits_type = *type;
    // C params carry no N: it stays the sequence's unless extras set it.
    if (c.params != nullptr || x != nullptr) {
      out.params = c.params != nullptr ? ToParams(*c.params, out.breakers) : seq.params();
      out.params.top_logprobs = x != nullptr ? x->top_logprobs : seq.params().top_logprobs;
      step.params = &out.params;
    }
    if (x != nullptr) {
      step.bias = &out.bias;
      step.mask = &out.mask;
    }
    const auto request = seq.request(step);
    if (!request) return {StatusOf(request.error().code), request.error().message};
    out.request = *request;
    out.rng = &seq.rng();
    out.chain = detail::SequenceAccess::chain(seq);
    out.stateful = out.request.params.mirostat != 0 || out.request.params.adaptive_target >= 0;
  }
  out.rng_before = *out.rng;
  return {};
}

SampleOptions OptionsFor(PreparedRow& row, Engine engine, int threads,
                         std::vector<KeptProb>* distribution) {
  SampleOptions o;
  o.engine = engine;
  o.threads = threads;
  o.logprob = row.wants_logprob;
  // A sequence's generated ids were checked as they were appended.
  o.generated_checked = row.sequence != nullptr ? std::numeric_limits<size_t>::max()
                                                : row.c->generated_checked;
  o.distribution = row.wants_kept ? distribution : nullptr;
  o.rank = row.wants_rank;
  if (row.sequence != nullptr) o.chain_state = &row.chain;
  return o;
}

Problem Finish(PreparedRow& row, const Token& t, const std::vector<KeptProb>& distribution,
               exactsample_token& out) {
  const exactsample_request& c = *row.c;
  if (row.sequence != nullptr && c.accept != 0) {
    bool no_memory = false;
    try {
      const auto appended = row.sequence->sequence.accept(t.id);
      if (!appended) {
        *row.rng = row.rng_before;
        return {StatusOf(appended.error().code), appended.error().message};
      }
    } catch (const std::bad_alloc&) {
      no_memory = true;
    } catch (const std::length_error&) {
      no_memory = true;
    }
    if (no_memory) {
      *row.rng = row.rng_before;
      return {EXACTSAMPLE_OUT_OF_MEMORY,
              "out of memory appending the token (the sequence is unchanged)"};
    }
    detail::SequenceAccess::chain(row.sequence->sequence) = row.chain;
  } else if (row.sequence != nullptr) {
    detail::SequenceAccess::drew(row.sequence->sequence, t.id, row.chain);
  }
  if (row.sequence == nullptr) FromPcg(row.own_rng, c.rng);
  if (c.logprob != nullptr) *c.logprob = t.logprob;
  if (c.extras != nullptr) WriteExtras(t, *c.extras);
  if (row.wants_kept) {
    const size_t written = std::min(distribution.size(), c.kept_capacity);
    for (size_t j = 0; j < written; ++j) {
      if (c.kept_ids != nullptr) c.kept_ids[j] = distribution[j].id;
      if (c.kept_probs != nullptr) c.kept_probs[j] = distribution[j].q;
    }
    *c.kept_count = distribution.size();
  }
  out = {EXACTSAMPLE_OK, t.id, row.wants_logprob ? t.logprob : NAN};
  return {};
}

}  // namespace exactsample::c_abi
