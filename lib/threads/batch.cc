// sample_batch: whole rows claimed by a counter, by the calling thread and by
// helpers; the last rows, when the team does not divide them evenly or
// has fewer than two a thread, split across threads by the calling thread.
//
// A helper copies the row it claimed (logits, ids, parameters, generator)
// into memory the job owns, the only time it reads the caller's memory (an
// f32 row checked and its maximum found on the way), and samples the copy
// with its own workspace into the job's slot for the row. The caller
// samples the rows it claims in place; when it runs out, it copies back the
// rows helpers finished, samples itself every row no helper started, and
// samples the rows a helper is still on too, with a copy of the generator
// (written back after the wait below): whichever finishes first serves, and
// the caller's sample stops between pieces of its passes once the helper's
// is done (the sample returns early, its result unread). Before returning it
// waits only for helpers inside a copy.
#include "exactsample/batch.hpp"

#include <algorithm>
#include <atomic>
#include <cassert>
#include <new>
#include <optional>
#include <stdexcept>
#include <thread>

#include "lib/threads/claims.hpp"
#include "lib/threads/executor.hpp"
#include "lib/api/sequence_counts.hpp"
#include "lib/engine/chain_split.hpp"
#include "lib/engine/workspace.hpp"
#include "simd/max.hpp"

namespace exactsample {
namespace {

// Short enough not to allocate.
Error OutOfMemory() { return Error{ErrorCode::out_of_memory, "memory", "out of memory"}; }

Error NoGenerator(size_t row) {
  return Error{ErrorCode::invalid_parameter, "rng",
               "rng: row " + std::to_string(row) + " has no generator"};
}

// A row claimed whole. The helper that holds it (kCopying, kCopied) moves
// it on unless the caller took it; kDone, kCaller and kTaken are final for
// the call.
struct RowStates {
  enum State : uint8_t {
    kFree,     // claimed by a helper that has not started it, or by nobody yet
    kCopying,  // a helper copies the row
    kCopied,   // a helper samples its copy
    kDone,     // the helper's result and generator are in the slot
    kCaller,   // the caller sampled it in place
    kTaken,    // the caller took it from a helper and sampled it in place
  };
  static constexpr bool Allowed(State from, State to) {
    switch (from) {
      case kFree: return to == kCopying || to == kCaller || to == kTaken;
      case kCopying: return to == kCopied || to == kTaken;
      case kCopied: return to == kDone || to == kTaken;
      default: return false;
    }
  }
};

struct RowSlot {
  threads::Claim<RowStates> claim;
  std::optional<Result<Token>> result;
  Pcg32 rng = Pcg32::from_state(0, 1, 0);
  // The caller's alone: a row it took from a helper inside its copy is
  // sampled with a copy of the row's generator (the helper may still be
  // reading the generator), written back once no helper copies.
  Pcg32 taken_rng = Pcg32::from_state(0, 1, 0);
  bool write_back = false;
};

// One helper's memory: the row it copied and its workspace.
struct HelperArea {
  Workspace ws;
  std::vector<float> logits;
  std::vector<uint16_t> logits16;
  std::vector<int32_t> prompt, generated, bias_ids, allowed, banned;
  std::vector<double> bias_values;
  std::vector<uint32_t> allowed_bits;
  std::vector<std::vector<int32_t>> breakers;
  std::vector<std::span<const int32_t>> breaker_views;
  detail::HistoryCounts history;

  // Copies `r`'s inputs here; returns the same request over the copies: a
  // Sequence's counts instead of its ids where the fast engine reads only
  // those (`ids_read`: the reference engine reads the ids). An
  // f32 row is checked and its maximum found while it is copied, for the
  // sample that follows (WorkspaceImpl::checked_row): the caller's row is
  // then read once.
  Request Copy(const Request& r, bool ids_read) {
    logits.resize(r.logits.size());
    detail::WorkspaceImpl& impl = detail::WorkspaceAccess::Of(ws);
    impl.checked_row = {};
    if (!r.logits.empty()) {
      impl.checked_row = {logits.data(), logits.size(),
                          simd::CopyCheckedMax(r.logits.data(), r.logits.size(), logits.data())};
    }
    logits16.assign(r.logits16.begin(), r.logits16.end());
    const bool ids = r.history == nullptr || ids_read;
    prompt.assign(r.prompt.begin(), ids ? r.prompt.end() : r.prompt.begin());
    generated.assign(r.generated.begin(), ids ? r.generated.end() : r.generated.begin());
    if (r.history != nullptr) history.CopyEntries(*r.history);
    bias_ids.assign(r.bias.ids.begin(), r.bias.ids.end());
    bias_values.assign(r.bias.values.begin(), r.bias.values.end());
    allowed.assign(r.mask.allowed.begin(), r.mask.allowed.end());
    banned.assign(r.mask.banned.begin(), r.mask.banned.end());
    allowed_bits.assign(r.mask.allowed_bits.begin(), r.mask.allowed_bits.end());
    breakers.resize(r.params.dry_sequence_breakers.size());
    breaker_views.resize(breakers.size());
    for (size_t j = 0; j < breakers.size(); ++j) {
      const std::span<const int32_t> b = r.params.dry_sequence_breakers[j];
      breakers[j].assign(b.begin(), b.end());
      breaker_views[j] = breakers[j];
    }
    SamplingParams params = r.params;
    params.dry_sequence_breakers = breaker_views;
    return {logits, prompt, generated, params, {bias_ids, bias_values},
            {allowed, banned, allowed_bits}, logits16, r.logits_type,
            r.history != nullptr ? &history : nullptr};
  }
};

class BatchJob final : public threads::Job {
 public:
  void Help() override;

  // Rows [0, bulk) are claimed whole; the rows, read only while copying,
  // are the caller's.
  void Prepare(std::span<const BatchRow> rows, size_t bulk, const SampleOptions& options,
               size_t helpers) {
    rows_ = rows;
    bulk_ = bulk;
    options_ = options;
    if (slot_capacity_ < bulk) {
      slots_ = std::make_unique<RowSlot[]>(bulk);
      slot_capacity_ = bulk;
    }
    for (size_t i = 0; i < bulk; ++i) {
      slots_[i].claim.Reset();
      slots_[i].result.reset();
      slots_[i].write_back = false;
    }
    while (areas_.size() < helpers) areas_.push_back(std::make_unique<HelperArea>());
    next_row_.store(0, std::memory_order_relaxed);
    areas_taken_.store(0, std::memory_order_relaxed);
    readers_.Reset();
  }

  std::span<const BatchRow> rows_;
  size_t bulk_ = 0;
  SampleOptions options_;
  std::unique_ptr<RowSlot[]> slots_;
  size_t slot_capacity_ = 0;
  std::vector<std::unique_ptr<HelperArea>> areas_;
  std::atomic<size_t> next_row_{0};
  std::atomic<size_t> areas_taken_{0};
  threads::Readers readers_;  // helpers copying the caller's rows
  threads::Ticket ticket_;
};

void BatchJob::Help() {
  const size_t a = areas_taken_.fetch_add(1, std::memory_order_relaxed);
  if (a >= areas_.size()) return;
  HelperArea& area = *areas_[a];
  for (;;) {
    // A reader before the claim: once the caller has seen every row
    // claimed and no reader inside, no helper reads its rows again.
    readers_.Enter();
    const size_t i = next_row_.fetch_add(1, std::memory_order_seq_cst);
    if (i >= bulk_) {
      readers_.Leave();
      return;
    }
    RowSlot& slot = slots_[i];
    if (!slot.claim.Move(RowStates::kFree, RowStates::kCopying)) {
      readers_.Leave();
      continue;  // the caller took it before it started
    }
    Request request;
    std::optional<Pcg32> rng;
    try {
      const BatchRow& row = rows_[i];
      // The reference engine reads the ids, also where it runs a chain for the fast one.
      request = area.Copy(row.request, options_.engine == Engine::reference ||
                                           !ChainSplit::Of(row.request, options_).fast);
      if (row.rng != nullptr) rng = *row.rng;
    } catch (...) {
      readers_.Leave();
      continue;  // out of memory: the caller samples the row
    }
    readers_.Leave();
    if (!slot.claim.Move(RowStates::kCopying, RowStates::kCopied)) continue;  // taken meanwhile
    threads::RunHelperHook(i);
    try {
      if (rng) {
        slot.result = sample(request, *rng, area.ws, options_);
        slot.rng = *rng;
      } else {
        slot.result = NoGenerator(i);
      }
    } catch (...) {
      continue;  // left for the caller
    }
    slot.claim.Move(RowStates::kCopied, RowStates::kDone);  // fails when taken meanwhile
  }
}

}  // namespace

namespace detail {

struct BatchWorkspaceImpl {
  std::vector<Workspace> per_thread{1};
  std::vector<std::unique_ptr<BatchJob>> jobs;
  threads::SharedExecutor executor;  // null: the library pool

  ~BatchWorkspaceImpl() {
    for (const auto& job : jobs) job->ticket_.WaitIdle();
  }

  // A job nobody is inside.
  BatchJob& IdleJob() {
    for (const auto& job : jobs) {
      if (!job->ticket_.Busy()) return *job;
    }
    return *jobs.emplace_back(std::make_unique<BatchJob>());
  }
};

}  // namespace detail

BatchWorkspace::BatchWorkspace() : impl_(std::make_unique<detail::BatchWorkspaceImpl>()) {}
BatchWorkspace::~BatchWorkspace() = default;
BatchWorkspace::BatchWorkspace(BatchWorkspace&&) noexcept = default;
BatchWorkspace& BatchWorkspace::operator=(BatchWorkspace&&) noexcept = default;

Workspace& BatchWorkspace::for_thread(size_t thread) {
  if (impl_->per_thread.size() <= thread) impl_->per_thread.resize(thread + 1);
  return impl_->per_thread[thread];
}

void threads::SetExecutor(BatchWorkspace& workspace, SharedExecutor executor) {
  detail::WorkspaceAccess::Of(workspace).executor = std::move(executor);
}

void sample_batch(std::span<const BatchRow> rows,
                  std::vector<Result<Token>>& results, BatchWorkspace& workspace,
                  const SampleOptions& options, int threads) {
  const size_t count = rows.size();
  results.assign(count, Token{});
  detail::BatchWorkspaceImpl& impl = detail::WorkspaceAccess::Of(workspace);
  Workspace& ws = workspace.for_thread(0);
  threads::SetExecutor(ws, impl.executor);
  // A row that cannot allocate gets out_of_memory and the others are
  // sampled; its generator is untouched (the draw comes after every
  // allocation but a trace's).
  const auto sample_row = [&](size_t i, const SampleOptions& o, Pcg32* rng) {
    try {
      results[i] = rng == nullptr ? Result<Token>(NoGenerator(i))
                                  : sample(rows[i].request, *rng, ws, o);
    } catch (const std::bad_alloc&) {
      results[i] = OutOfMemory();
    } catch (const std::length_error&) {
      results[i] = OutOfMemory();
    }
  };
  const auto in_place = [&](size_t i, const SampleOptions& o) { sample_row(i, o, rows[i].rng); };
  const size_t team = threads::TeamOnPool(
      impl.executor.get(),
      std::min<size_t>({threads > 0 ? static_cast<size_t>(threads)
                                    : std::max<size_t>(1, std::thread::hardware_concurrency()),
                        static_cast<size_t>(kMaxRowThreads), count}));
  if (team <= 1 || options.trace != nullptr) {
    for (size_t i = 0; i < count; ++i) in_place(i, options);
    return;
  }
  // Whole rows, as many as the team divides among itself; the rest split
  // across the team (threads in one row), which helpers that run out of
  // whole rows join. From two rows a thread the team ends its whole rows
  // together closely enough (the caller samples a helper's last row too,
  // and the first finished serves) that splitting none is faster; below,
  // at least one row is split.
  const size_t bulk = (count >= 2 * team ? count : count - 1) / team * team;
  SampleOptions whole = options;
  whole.threads = 1;
  SampleOptions split = options;
  split.threads = std::max(options.threads, static_cast<int>(team));

  BatchJob& job = impl.IdleJob();
  job.Prepare(rows, bulk, whole, team - 1);
  if (bulk > 0) {
    if (void* token = job.ticket_.Open(&job)) {
      threads::SubmitHelpers(impl.executor.get(), team - 1, token);
    }
  }
  for (;;) {
    const size_t i = job.next_row_.fetch_add(1, std::memory_order_seq_cst);
    if (i >= bulk) break;
    job.slots_[i].claim.Set(RowStates::kFree, RowStates::kCaller);  // no helper was given i
    in_place(i, whole);
  }
  for (size_t i = bulk; i < count; ++i) in_place(i, split);
  // A row a helper samples now is sampled here too, with a copy of its
  // generator (the helper may still be reading it), until either finishes:
  // true when the caller's result stands.
  detail::WorkspaceImpl& own = detail::WorkspaceAccess::Of(ws);
  const auto race = [&](size_t i, RowSlot& slot) {
    Pcg32* const rng = rows[i].rng;
    if (rng != nullptr) slot.taken_rng = *rng;
    bool stopped = false;
    own.supersede = {slot.claim.Word(), RowStates::kDone, &stopped};
    struct Clear {
      threads::Supersede& at;
      ~Clear() { at = {}; }
    } clear{own.supersede};
    threads::RunRaceHook(i, threads::Race::started);
    sample_row(i, whole, rng != nullptr ? &slot.taken_rng : nullptr);
    if (stopped) {  // at kDone, which is final: the helper's result serves
      assert(slot.claim.Load() == RowStates::kDone);
      threads::RunRaceHook(i, threads::Race::helper_served);
      return false;
    }
    const RowStates::State s = slot.claim.MoveFromAny([](RowStates::State from) {
      return from == RowStates::kCopying || from == RowStates::kCopied ? RowStates::kTaken : from;
    });
    if (s == RowStates::kDone) return false;  // finished by both: the same result
    slot.write_back = rng != nullptr;
    return true;
  };
  for (size_t i = 0; i < bulk; ++i) {
    RowSlot& slot = job.slots_[i];
    RowStates::State s = RowStates::kFree;
    if (slot.claim.Move(RowStates::kFree, RowStates::kTaken, &s)) {
      in_place(i, whole);  // no helper started it
      continue;
    }
    if ((s == RowStates::kCopying || s == RowStates::kCopied) && race(i, slot)) continue;
    if (s != RowStates::kCaller) {
      results[i] = std::move(*slot.result);
      if (rows[i].rng != nullptr) *rows[i].rng = slot.rng;
    }
  }
  job.ticket_.Close();
  job.readers_.Wait();  // helpers still copying a row read the caller's memory
  for (size_t i = 0; i < bulk; ++i) {
    if (job.slots_[i].write_back) *rows[i].rng = job.slots_[i].taken_rng;
  }
}

}  // namespace exactsample
