// exactsample_sample_request, exactsample_sample_requests and
// exactsample_validate_request: every request is checked and converted by
// Prepare, sampled by the C++ sample() or sample_batch() (or checked by
// validate()), and answered by Finish.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <functional>
#include <limits>
#include <string>

#include "exactsample.h"
#include "lib/c_abi/convert.hpp"

namespace {

using namespace exactsample::c_abi;

// Clears the candidates rows a call wrote, however it ends.
struct ClearCandidates {
  std::vector<CandidateRow>& rows;
  size_t count;
  ~ClearCandidates() {
    for (size_t i = 0; i < count && i < rows.size(); ++i) rows[i].Clear();
  }
};

// Checks and converts a single call's request into the sampler's row 0 (the
// caller clears its candidates row).
Problem PrepareSingle(exactsample_sampler& s, exactsample_sequence* sequence,
                      const exactsample_request& request, const std::string& prefix) {
  if (s.prepared.empty()) s.prepared.resize(1);
  if (s.candidate_rows.empty()) s.candidate_rows.resize(1);
  return Prepare(sequence, request, prefix, 0, /*batch=*/false, s.candidate_rows[0],
                 s.prepared[0]);
}

// The row's error: its result, its message, and the batch's first.
void RowFails(exactsample_sampler& s, size_t i, exactsample_status status, std::string message,
              exactsample_token* results) {
  results[i] = {status, -1, 0.0};
  s.row_errors[i] = std::move(message);
}

// Marks every row whose sequence an earlier row already samples.
void RejectRepeatedSequences(exactsample_sampler& s, exactsample_sequence* const* sequences,
                             size_t rows, exactsample_token* results) {
  s.batch_sequences.clear();
  if (sequences == nullptr) return;
  for (size_t i = 0; i < rows; ++i) {
    if (sequences[i] != nullptr) s.batch_sequences.push_back({sequences[i], i});
  }
  // std::less orders any pointers (< on unrelated ones is unspecified).
  std::sort(s.batch_sequences.begin(), s.batch_sequences.end(), [](const auto& a, const auto& b) {
    return a.first != b.first ? std::less<const exactsample_sequence*>()(a.first, b.first)
                              : a.second < b.second;
  });
  size_t group = 0;  // the first entry of the run of equal sequences
  for (size_t k = 1; k < s.batch_sequences.size(); ++k) {
    if (s.batch_sequences[k].first != s.batch_sequences[group].first) {
      group = k;
      continue;
    }
    const size_t row = s.batch_sequences[k].second;
    RowFails(s, row, EXACTSAMPLE_INVALID_ARGUMENT,
             "sequences[" + std::to_string(row) + "] is sequences[" +
                 std::to_string(s.batch_sequences[group].second) +
                 "]: a sequence samples at most one row of a batch",
             results);
  }
}

// One request, its fields named after `prefix`; on error out gets the
// status, -1 and 0.
exactsample_status SampleOne(exactsample_sampler& s, exactsample_sequence* sequence,
                             const exactsample_request& request, exactsample_token& out,
                             const std::string& prefix) {
  const exactsample_status status = Guard(&s, [&] {
    const ClearCandidates clear{s.candidate_rows, 1};
    const Problem prepared = PrepareSingle(s, sequence, request, prefix);
    if (!prepared.ok()) return Fail(&s, prepared.status, prepared.message);
    PreparedRow& row = s.prepared[0];
    const auto t = exactsample::sample(row.request, *row.rng, s.workspace,
                                       OptionsFor(row, s.engine, s.threads, &s.distribution));
    if (!t) return Fail(&s, StatusOf(t.error().code), t.error().message);
    const Problem finished = Finish(row, *t, s.distribution, out);
    return finished.ok() ? EXACTSAMPLE_OK : Fail(&s, finished.status, finished.message);
  });
  if (status != EXACTSAMPLE_OK) out = {status, -1, 0.0};
  return status;
}

// A batch of rows >= 1 requests, row i's fields named "requests[i].<field>".
exactsample_status SampleRows(exactsample_sampler& s, exactsample_sequence* const* sequences,
                              const exactsample_request* requests, size_t rows,
                              exactsample_token* results, int threads) {
  return Guard(&s, [&] {
    s.row_errors.assign(rows, std::string());
    s.prepared.resize(std::max(rows, s.prepared.size()));
    s.candidate_rows.resize(std::max(rows, s.candidate_rows.size()));
    const ClearCandidates clear{s.candidate_rows, rows};
    for (size_t i = 0; i < rows; ++i) results[i] = {EXACTSAMPLE_OK, -1, 0.0};
    RejectRepeatedSequences(s, sequences, rows, results);

    // Rows that want the distribution or carry a sequence's chain state are
    // sampled alone (the options hold one of each); the others go to sample_batch together, which
    // computes a logprob for all when one wants it and checks stateless
    // rows from the smallest generated_checked.
    s.batch_rows.clear();
    s.batch_index.clear();
    exactsample::SampleOptions batch_options;
    batch_options.engine = s.engine;
    batch_options.threads = s.threads;
    batch_options.logprob = false;
    batch_options.generated_checked = std::numeric_limits<size_t>::max();
    for (size_t i = 0; i < rows; ++i) {
      if (results[i].status != EXACTSAMPLE_OK) continue;
      exactsample_sequence* sequence = sequences != nullptr ? sequences[i] : nullptr;
      PreparedRow& row = s.prepared[i];
      const Problem p = Prepare(sequence, requests[i], "requests[" + std::to_string(i) + "].", i,
                                /*batch=*/true, s.candidate_rows[i], row);
      if (!p.ok()) {
        RowFails(s, i, p.status, p.message, results);
        continue;
      }
      if (row.wants_kept || row.stateful) continue;
      s.batch_rows.push_back({row.request, row.rng});
      s.batch_index.push_back(i);
      const auto options = OptionsFor(row, s.engine, s.threads, nullptr);
      batch_options.logprob = batch_options.logprob || options.logprob;
      batch_options.rank = batch_options.rank || options.rank;
      batch_options.generated_checked =
          std::min(batch_options.generated_checked, options.generated_checked);
    }
    exactsample::sample_batch(s.batch_rows, s.batch_results, s.batch_workspace, batch_options,
                              threads);
    const auto answer = [&](size_t i, const exactsample::Result<exactsample::Token>& t) {
      if (!t) return RowFails(s, i, StatusOf(t.error().code), t.error().message, results);
      const Problem p = Finish(s.prepared[i], *t, s.distribution, results[i]);
      if (!p.ok()) RowFails(s, i, p.status, p.message, results);
    };
    for (size_t k = 0; k < s.batch_index.size(); ++k) {
      answer(s.batch_index[k], s.batch_results[k]);
    }
    for (size_t i = 0; i < rows; ++i) {
      PreparedRow& row = s.prepared[i];
      if (results[i].status != EXACTSAMPLE_OK || !(row.wants_kept || row.stateful)) continue;
      answer(i, exactsample::sample(row.request, *row.rng, s.workspace,
                                    OptionsFor(row, s.engine, s.threads, &s.distribution)));
    }
    exactsample_status first = EXACTSAMPLE_OK;
    for (size_t i = 0; i < rows && first == EXACTSAMPLE_OK; ++i) {
      first = results[i].status;
      if (first != EXACTSAMPLE_OK) s.last_error = s.row_errors[i];
    }
    return first;
  });
}

}  // namespace

extern "C" {

exactsample_status exactsample_sample_request(exactsample_sampler* s,
                                              exactsample_sequence* sequence,
                                              const exactsample_request* request,
                                              exactsample_token* out) {
  if (s == nullptr) return EXACTSAMPLE_INVALID_ARGUMENT;
  s->last_error.clear();
  if (out == nullptr) return Fail(s, EXACTSAMPLE_INVALID_ARGUMENT, "out is NULL");
  if (request == nullptr) {
    *out = {EXACTSAMPLE_INVALID_ARGUMENT, -1, 0.0};
    return Fail(s, EXACTSAMPLE_INVALID_ARGUMENT, "request is NULL");
  }
  return SampleOne(*s, sequence, *request, *out, "request.");
}

exactsample_status exactsample_sample_requests(exactsample_sampler* s,
                                               exactsample_sequence* const* sequences,
                                               const exactsample_request* requests, size_t rows,
                                               exactsample_token* results, int threads) {
  if (s == nullptr) return EXACTSAMPLE_INVALID_ARGUMENT;
  s->last_error.clear();
  if (rows == 0) return EXACTSAMPLE_OK;
  if (requests == nullptr || results == nullptr) {
    return Fail(s, EXACTSAMPLE_INVALID_ARGUMENT,
                requests == nullptr ? "requests is NULL" : "results is NULL");
  }
  if (rows > static_cast<size_t>(PTRDIFF_MAX) / sizeof(exactsample_request)) {
    return Fail(s, EXACTSAMPLE_INVALID_ARGUMENT,
                "rows = " + std::to_string(rows) + ": the requests would exceed the address space");
  }
  return SampleRows(*s, sequences, requests, rows, results, threads);
}

exactsample_status exactsample_validate_request(exactsample_sampler* s,
                                                exactsample_sequence* sequence,
                                                const exactsample_request* request) {
  if (s == nullptr) return EXACTSAMPLE_INVALID_ARGUMENT;
  s->last_error.clear();
  if (request == nullptr) return Fail(s, EXACTSAMPLE_INVALID_ARGUMENT, "request is NULL");
  return Guard(s, [&] {
    const ClearCandidates clear{s->candidate_rows, 1};
    const Problem prepared = PrepareSingle(*s, sequence, *request, "request.");
    if (!prepared.ok()) return Fail(s, prepared.status, prepared.message);
    const auto checked = exactsample::validate(s->prepared[0].request);
    return checked ? EXACTSAMPLE_OK
                   : Fail(s, StatusOf(checked.error().code), checked.error().message);
  });
}

}  // extern "C"
