// The C ABI of speculative decoding (docs/spec.md, "Speculative decoding"):
// dist() of a row, the verification of draft tokens, and a batch of
// verifications, over exactsample/speculative.hpp.
#include <span>
#include <string>
#include <vector>

#include "exactsample.h"
#include "exactsample/sequence.hpp"
#include "exactsample/speculative.hpp"
#include "lib/c_abi/convert.hpp"

namespace {

using namespace exactsample::c_abi;  // NOLINT: the C ABI's shared helpers

exactsample_status Bad(exactsample_sampler* s, std::string message) {
  return Fail(s, EXACTSAMPLE_INVALID_ARGUMENT, std::move(message));
}

// A null pointer is only valid for an empty id list.
bool IdsOk(const int32_t* ids, size_t len) { return ids != nullptr || len == 0; }

// "" or what is wrong with parameters given as `name` (a pointer argument).
std::string ParamsArgumentProblem(const exactsample_params* p, const std::string& name) {
  if (p == nullptr) return name + " is NULL";
  const std::string problem = ParamsProblem(*p, "");
  return problem.empty() ? problem : name + ": " + problem;
}

// The target request's history, params and extras (its bias, mask and N;
// the extras' output pointers are not read); "" or what is wrong.
std::string RequestProblem(const int32_t* prompt, size_t prompt_len, const int32_t* generated,
                           size_t generated_len, const exactsample_params* params,
                           const exactsample_extras* extras) {
  if (!IdsOk(prompt, prompt_len)) return "prompt is NULL with prompt_len > 0";
  if (!IdsOk(generated, generated_len)) return "generated is NULL with generated_len > 0";
  if (std::string p = ParamsArgumentProblem(params, "params"); !p.empty()) return p;
  if (extras == nullptr) return {};
  return ExtrasProblem(*extras, "", /*outputs=*/false);  // its outputs are not these calls'
}

exactsample::Request TargetRequest(const int32_t* prompt, size_t prompt_len,
                                   const int32_t* generated, size_t generated_len,
                                   const exactsample_params& params,
                                   const exactsample_extras* extras, BreakerViews& breakers) {
  exactsample::Request r{{}, {prompt, prompt_len}, {generated, generated_len},
                         ToParams(params, breakers)};
  if (extras != nullptr) {
    const exactsample_extras& x = *extras;
    r.params.top_logprobs = x.top_logprobs;
    r.bias = {{x.bias_ids, x.bias_len}, {x.bias_values, x.bias_len}};
    r.mask = {{x.allowed_ids, x.allowed_len},
              {x.banned_ids, x.banned_len},
              {x.allowed_bitmask, x.allowed_bitmask_words}};
  }
  return r;
}

// Rows of a drafts struct as spans: pointers, or a matrix with a stride.
std::string Rows(const char* field, const float* const* rows, const float* matrix, size_t stride,
                 size_t n, size_t vocab, std::vector<std::span<const float>>& out) {
  out.clear();
  if (rows != nullptr && matrix != nullptr) {
    return std::string(field) + ": give the row pointers or the matrix, not both";
  }
  if (matrix != nullptr && stride < vocab) {
    return std::string(field) + ": stride " + std::to_string(stride) + " < vocab " +
           std::to_string(vocab);
  }
  for (size_t j = 0; (rows != nullptr || matrix != nullptr) && j < n; ++j) {
    const float* row = rows != nullptr ? rows[j] : matrix + j * stride;
    if (row == nullptr && vocab != 0) {
      return std::string(field) + "[" + std::to_string(j) + "] is NULL";
    }
    out.emplace_back(row, vocab);
  }
  return {};
}

// What the verification reads of `d`: the ids and rows as spans (kept in
// `spans`), or what is wrong.
struct DraftViews {
  std::vector<std::span<const float>> target, draft;
  BreakerViews target_breakers, draft_breakers;
  exactsample::Drafts drafts;
};

std::string View(const exactsample_drafts* d, DraftViews& v) {
  if (d == nullptr) return "drafts is NULL";
  if (d->struct_size != sizeof(exactsample_drafts)) {
    return "drafts.struct_size = " + std::to_string(d->struct_size) + ", expected " +
           std::to_string(sizeof(exactsample_drafts)) +
           " (sizeof(exactsample_drafts) in this version)";
  }
  if (!IdsOk(d->draft_ids, d->gamma)) return "drafts.draft_ids is NULL with gamma > 0";
  if (d->gamma > SIZE_MAX / 2) return "drafts.gamma = " + std::to_string(d->gamma) + ": too large";
  if (std::string p = Rows("drafts.target_rows", d->target_rows, d->target_logits,
                           d->target_stride, d->gamma + 1, d->vocab, v.target);
      !p.empty()) {
    return p;
  }
  if (std::string p = Rows("drafts.draft_rows", d->draft_rows, d->draft_logits,
                           d->draft_stride, d->gamma, d->vocab, v.draft);
      !p.empty()) {
    return p;
  }
  if (d->draft_params != nullptr) {
    if (std::string p = ParamsArgumentProblem(d->draft_params, "drafts.draft_params");
        !p.empty()) {
      return p;
    }
  }
  v.drafts = {v.target, v.draft, {d->draft_ids, d->gamma},
              d->draft_params != nullptr ? std::optional(ToParams(*d->draft_params, v.draft_breakers))
                                         : std::nullopt};
  return {};
}

// `top_n` tokens' top-N wanted, as `top_field` names it.
std::string OutputsProblem(const exactsample_verified* out, size_t top_n,
                           const std::string& top_field) {
  if (out == nullptr) return "out is NULL";
  if (out->struct_size != sizeof(exactsample_verified)) {
    return "out.struct_size = " + std::to_string(out->struct_size) + ", expected " +
           std::to_string(sizeof(exactsample_verified)) +
           " (sizeof(exactsample_verified) in this version)";
  }
  if (out->ids == nullptr) return "out.ids is NULL";
  if (top_n > 0 && (out->top_ids == nullptr || out->top_logprob_values == nullptr)) {
    return top_field + " = " + std::to_string(top_n) +
           " needs out.top_ids and out.top_logprob_values (one is NULL)";
  }
  return {};
}

void Write(const exactsample::Verified& v, size_t n, exactsample_verified* out) {
  for (size_t t = 0; t < v.tokens.size(); ++t) {
    const exactsample::Token& token = v.tokens[t];
    out->ids[t] = token.id;
    if (out->logprobs != nullptr) out->logprobs[t] = token.logprob;
    if (out->processed_logprobs != nullptr) out->processed_logprobs[t] = token.processed_logprob;
    if (out->top_counts != nullptr) out->top_counts[t] = token.top_count;
    for (size_t k = 0; k < token.top_count; ++k) {
      out->top_ids[t * n + k] = token.top[k].id;
      out->top_logprob_values[t * n + k] = token.top[k].logprob;
    }
  }
  out->count = v.tokens.size();
  out->accepted = v.accepted;
  out->draws = v.draws;
}

// A verification's arguments checked and viewed as the C++ API takes
// them, with a copy of its generator.
struct Prepared {
  DraftViews views;
  exactsample::Pcg32 rng = exactsample::Pcg32::from_state(0, 1, 0);
  size_t top_n = 0;
};

// exactsample_verify's checks: "" (and `p` filled) or what is wrong.
std::string Prepare(const exactsample_verification& a, Prepared& p) {
  if (a.rng == nullptr) return "rng is NULL";
  if (std::string e =
          RequestProblem(a.prompt, a.prompt_len, a.generated, a.generated_len, a.params, a.extras);
      !e.empty()) {
    return e;
  }
  p.top_n = a.extras != nullptr ? static_cast<size_t>(a.extras->top_logprobs) : 0;
  if (std::string e = OutputsProblem(a.out, p.top_n, "extras.top_logprobs"); !e.empty()) {
    return e;
  }
  if (std::string e = View(a.drafts, p.views); !e.empty()) return e;
  p.rng = ToPcg(*a.rng);
  return {};
}

exactsample::Verification ToVerification(const exactsample_verification& a, Prepared& p) {
  return {TargetRequest(a.prompt, a.prompt_len, a.generated, a.generated_len, *a.params, a.extras,
                        p.views.target_breakers),
          p.views.drafts, &p.rng};
}

// A verification's outcome into the caller's memory: the tokens and the
// generator on success, else the error as a status and `message`.
exactsample_status Finish(const exactsample::Result<exactsample::Verified>& v,
                          const exactsample_verification& a, const Prepared& p,
                          std::string& message) {
  if (!v) {
    message = v.error().message;
    return StatusOf(v.error().code);
  }
  Write(*v, p.top_n, a.out);
  FromPcg(p.rng, a.rng);
  return EXACTSAMPLE_OK;
}

}  // namespace

extern "C" {

exactsample_status exactsample_distribution(exactsample_sampler* s, const float* logits,
                                            size_t vocab, const int32_t* prompt,
                                            size_t prompt_len, const int32_t* generated,
                                            size_t generated_len,
                                            const exactsample_params* params,
                                            const exactsample_extras* extras, int32_t* ids,
                                            double* probs, size_t capacity, size_t* count) {
  if (s == nullptr) return EXACTSAMPLE_INVALID_ARGUMENT;
  s->last_error.clear();
  if (logits == nullptr && vocab != 0) return Bad(s, "logits is NULL with vocab > 0");
  if (count == nullptr) return Bad(s, "count is NULL");
  if (capacity > 0 && (ids == nullptr || probs == nullptr)) {
    return Bad(s, "ids or probs is NULL with capacity = " + std::to_string(capacity));
  }
  if (std::string p = RequestProblem(prompt, prompt_len, generated, generated_len, params, extras);
      !p.empty()) {
    return Bad(s, p);
  }
  return Guard(s, [&] {
    BreakerViews breakers;
    exactsample::Request r =
        TargetRequest(prompt, prompt_len, generated, generated_len, *params, extras, breakers);
    r.logits = {logits, vocab};
    const auto d = exactsample::distribution(r, s->workspace,
                                             {.engine = s->engine, .threads = s->threads});
    if (!d) return Fail(s, StatusOf(d.error().code), d.error().message);
    for (size_t j = 0; j < d->size() && j < capacity; ++j) {
      ids[j] = (*d)[j].id;
      probs[j] = (*d)[j].q;
    }
    *count = d->size();
    return EXACTSAMPLE_OK;
  });
}

exactsample_status exactsample_verify(exactsample_sampler* s, const exactsample_drafts* drafts,
                                      const int32_t* prompt, size_t prompt_len,
                                      const int32_t* generated, size_t generated_len,
                                      const exactsample_params* params,
                                      const exactsample_extras* extras, exactsample_rng* rng,
                                      exactsample_verified* out) {
  if (s == nullptr) return EXACTSAMPLE_INVALID_ARGUMENT;
  s->last_error.clear();
  const exactsample_verification a{drafts, prompt, prompt_len, generated, generated_len,
                                   params, extras, rng,        out};
  return Guard(s, [&] {
    Prepared p;
    if (std::string e = Prepare(a, p); !e.empty()) return Bad(s, e);
    const exactsample::Verification v = ToVerification(a, p);
    return Finish(exactsample::verify(v.request, v.drafts, *v.rng, s->workspace,
                                      {.engine = s->engine, .threads = s->threads}),
                  a, p, s->last_error);
  });
}

exactsample_status exactsample_sequence_verify(exactsample_sampler* s,
                                               exactsample_sequence* sequence,
                                               const exactsample_drafts* drafts,
                                               exactsample_verified* out) {
  if (s == nullptr) return EXACTSAMPLE_INVALID_ARGUMENT;
  s->last_error.clear();
  if (sequence == nullptr) return Bad(s, "sequence is NULL");
  exactsample::Sequence& seq = sequence->sequence;
  const auto top_n = static_cast<size_t>(seq.params().top_logprobs);
  if (std::string p = OutputsProblem(out, top_n, "the sequence's top_logprobs"); !p.empty()) {
    return Bad(s, p);
  }
  return Guard(s, [&] {
    DraftViews views;
    if (std::string p = View(drafts, views); !p.empty()) return Bad(s, p);
    const auto v = exactsample::verify(seq, views.drafts, s->workspace,
                                       {.engine = s->engine, .threads = s->threads});
    if (!v) return Fail(s, StatusOf(v.error().code), v.error().message);
    Write(*v, top_n, out);
    return EXACTSAMPLE_OK;
  });
}

exactsample_status exactsample_verify_batch(exactsample_sampler* s,
                                            const exactsample_verification* verifications,
                                            size_t count, exactsample_status* statuses) {
  if (s == nullptr) return EXACTSAMPLE_INVALID_ARGUMENT;
  s->last_error.clear();
  if (count == 0) return EXACTSAMPLE_OK;
  if (verifications == nullptr || statuses == nullptr) {
    return Bad(s, "verifications or statuses is NULL");
  }
  return Guard(s, [&] {
    s->row_errors.assign(count, std::string());
    std::vector<Prepared> prepared(count);  // not resized: the views point into it
    std::vector<exactsample::Verification> batch;
    std::vector<size_t> index;  // which verification each of batch is
    for (size_t i = 0; i < count; ++i) {
      s->row_errors[i] = Prepare(verifications[i], prepared[i]);
      statuses[i] = s->row_errors[i].empty() ? EXACTSAMPLE_OK : EXACTSAMPLE_INVALID_ARGUMENT;
      if (statuses[i] != EXACTSAMPLE_OK) continue;
      batch.push_back(ToVerification(verifications[i], prepared[i]));
      index.push_back(i);
    }
    std::vector<exactsample::Result<exactsample::Verified>> results;
    exactsample::verify_batch(batch, results, s->workspace,
                              {.engine = s->engine, .threads = s->threads});
    for (size_t k = 0; k < batch.size(); ++k) {
      const size_t i = index[k];
      statuses[i] = Finish(results[k], verifications[i], prepared[i], s->row_errors[i]);
    }
    exactsample_status first = EXACTSAMPLE_OK;
    for (size_t i = 0; i < count; ++i) {
      if (statuses[i] == EXACTSAMPLE_OK) continue;
      s->row_errors[i] = "verifications[" + std::to_string(i) + "]: " + s->row_errors[i];
      if (first == EXACTSAMPLE_OK) {
        first = statuses[i];
        s->last_error = s->row_errors[i];
      }
    }
    return first;
  });
}

}  // extern "C"
