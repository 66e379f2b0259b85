// Threads in one row and across a batch (lib/threads/row_passes.cc, lib/threads/batch.cc,
// lib/threads/executor.cc): identical ids, logprob bits and generator positions for
// 1 to 8 threads, from the library pool or a host's executor; helpers
// preempted mid-piece (a hook that sleeps) so that the caller takes their
// work over; executors that never run their tasks, or run them after the
// call returned; helpers still inside when the call returned, released
// after the caller's memory is gone.
#include <gtest/gtest.h>

#include <atomic>
#include <bit>
#include <chrono>
#include <functional>
#include <limits>
#include <memory>
#include <mutex>
#include <numeric>
#include <thread>
#include <vector>

#include "exactsample/batch.hpp"
#include "exactsample/executor.hpp"
#include "lib/engine/workspace.hpp"
#include "lib/threads/executor.hpp"
#include "lib/threads/row_helpers.hpp"
#include "lib/threads/row_passes.hpp"
#include "tests/support/random_requests.hpp"
#include "tests/support/test_util.hpp"
#include "tools/lib/standard_inputs.hpp"

namespace exactsample {
namespace {

using namespace std::chrono_literals;

using test::Outcome;
using test::OutcomeOf;

// Executors a host might lend.
// Each submit starts n threads of its own (joined by Join or the destructor).
class ThreadExecutor final : public Executor {
 public:
  ~ThreadExecutor() override { Join(); }
  void submit(size_t n, void (*task)(void*), void* arg) override {
    if (threads_.size() > 64) Join();
    std::lock_guard<std::mutex> lock(mutex_);
    for (size_t k = 0; k < n; ++k) threads_.emplace_back([task, arg] { task(arg); });
    submitted_ += n;
  }
  void Join() {
    std::vector<std::thread> threads;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      threads.swap(threads_);
    }
    for (std::thread& t : threads) t.join();
  }
  size_t submitted() const { return submitted_; }

 private:
  std::mutex mutex_;
  std::vector<std::thread> threads_;
  size_t submitted_ = 0;
};

// Never runs anything.
class NeverExecutor final : public Executor {
 public:
  void submit(size_t n, void (*)(void*), void*) override { submitted_ += n; }
  size_t submitted() const { return submitted_; }

 private:
  size_t submitted_ = 0;
};

// Keeps the tasks; RunAll() runs them (after the call returned), on this
// thread or on others.
class LateExecutor final : public Executor {
 public:
  void submit(size_t n, void (*task)(void*), void* arg) override {
    for (size_t k = 0; k < n; ++k) tasks_.push_back({task, arg});
  }
  size_t RunAll() {
    const size_t n = tasks_.size();
    std::vector<std::thread> threads;
    for (const auto& t : tasks_) threads.emplace_back([t] { t.first(t.second); });
    for (std::thread& t : threads) t.join();
    tasks_.clear();
    return n;
  }

 private:
  std::vector<std::pair<void (*)(void*), void*>> tasks_;
};

// Helper hooks: sleeping on some units (the caller takes them over), or
// blocking until released.
std::atomic<int> g_sleep_every{0};
std::atomic<int> g_sleep_micros{0};
std::atomic<int> g_hook_calls{0};
void SleepHook(size_t unit) {
  g_hook_calls.fetch_add(1);
  const int every = g_sleep_every.load();
  if (every > 0 && unit % static_cast<size_t>(every) == 0) {
    std::this_thread::sleep_for(std::chrono::microseconds(g_sleep_micros.load()));
  }
}

std::atomic<bool> g_release{false};
std::atomic<int> g_blocked{0};

// Starts each task on a thread of its own and returns once `counter` has
// moved (at most a second later): a helper has then claimed work before the
// caller could do it all.
class StartedExecutor final : public Executor {
 public:
  explicit StartedExecutor(std::atomic<int>& counter) : counter_(counter) {}
  ~StartedExecutor() override { Join(); }
  void submit(size_t n, void (*task)(void*), void* arg) override {
    const int before = counter_.load();
    for (size_t k = 0; k < n; ++k) threads_.emplace_back([task, arg] { task(arg); });
    for (int i = 0; i < 1000 && counter_.load() == before; ++i) {
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
  }
  void Join() {
    for (std::thread& t : threads_) t.join();
    threads_.clear();
  }

 private:
  std::atomic<int>& counter_;
  std::vector<std::thread> threads_;
};

void BlockHook(size_t) {
  g_blocked.fetch_add(1);
  while (!g_release.load()) std::this_thread::sleep_for(100us);
}

// Releases blocked helpers when a test leaves, early or not (declared after
// the executor and workspace that wait for them, so that it runs first).
struct ReleaseOnExit {
  ~ReleaseOnExit() { g_release = true; }
};

// Blocks in unit g_block_at alone.
std::atomic<int> g_block_at{-1};
void BlockAtHook(size_t unit) {
  if (static_cast<int>(unit) == g_block_at.load()) BlockHook(unit);
}

// A pass hook: the caller starts a pass once a helper is blocked in it.
void WaitForABlockedHelper() {
  for (int i = 0; i < 1000 && g_blocked.load() == 0; ++i) std::this_thread::sleep_for(1ms);
}

// A race hook: when the caller starts computing work a helper holds, the
// helper is released and given time to finish first; counts the times the
// helper's copy served.
std::atomic<int> g_served{0};
void ReleaseWhenRaced(size_t, threads::Race event) {
  if (event == threads::Race::helper_served) {
    g_served.fetch_add(1);
    return;
  }
  g_release = true;
  std::this_thread::sleep_for(100ms);
}

// FreeCores as the tests see it: every core free (the pool's helpers come
// however loaded the machine running the tests is), or none.
size_t AllCoresFree() { return kMaxRowThreads; }
size_t NoCoreFree() { return 0; }

// Every row splits, whether or not its helpers came in time for the last
// one (the tests delay them on purpose), but where a test follows the
// turnout itself.
class AllCoresFreeEnvironment : public ::testing::Environment {
 public:
  void SetUp() override {
    threads::SetFreeCoresHook(AllCoresFree);
    threads::SetFollowTurnout(false);
  }
};
[[maybe_unused]] const auto* const g_all_cores_free =
    ::testing::AddGlobalTestEnvironment(new AllCoresFreeEnvironment);

struct HookScope {
  explicit HookScope(threads::HelperHook hook) { threads::SetHelperHook(hook); }
  ~HookScope() {
    threads::SetHelperHook(nullptr);
    threads::SetPassHook(nullptr);
    threads::SetRaceHook(nullptr);
    threads::SetFreeCoresHook(AllCoresFree);
    g_sleep_every = 0;
    g_block_at = -1;
    g_sleep_micros = 0;
  }
};

// Requests whose rows are long enough to split: the parameter mixes that
// take every path after the threaded pass (the piece read by Draw, the
// contiguous copy for top-p, min-p, top-k, penalties, greedy).
std::vector<test::RandomCase> Cases() {
  std::vector<test::RandomCase> out;
  const size_t vocabs[] = {40000, 128256, 262144};
  for (size_t k = 0; k < 12; ++k) {
    test::CaseMaker maker(500 + k);
    test::RandomCase c = maker.Make(500 + k, 262144);
    c.logits = StandardRow(vocabs[k % 3], 77 + k);
    c.prompt.clear();
    c.generated.clear();
    SamplingParams& p = c.params;
    p = SamplingParams{};
    switch (k % 6) {
      case 0: break;                      // plain: T = 1, f32 row, Draw by piece
      case 1: p.top_p = 0.9; break;       // T = 1, top-p over the patched e
      case 2: p.min_p = 0.05; break;      // T = 1, min-p over the patched e
      case 3: p.temperature = 0.7; break;  // a second pass
      case 4:
        p.temperature = 0.8;
        p.top_k = static_cast<int64_t>(c.logits.size()) / 4;  // too many to compact
        p.top_p = 0.97;
        break;
      case 5:
        p.repetition_penalty = 1.3;
        c.prompt = {1, 2, 3, 500, 7000};
        c.generated = {9, 9, 17};
        p.frequency_penalty = 0.2;
        p.min_p = 0.01;
        break;
    }
    out.push_back(std::move(c));
  }
  return out;
}

Outcome RunRow(const test::RandomCase& c, Workspace& ws, int threads, uint64_t seed,
               bool logprob = true) {
  Pcg32 rng = stream(seed, Purpose::sample);
  SampleOptions o;
  o.threads = threads;
  o.logprob = logprob;
  return OutcomeOf(sample({c.logits, c.prompt, c.generated, c.params}, rng, ws, o), rng);
}

TEST(Threads, RowEqualForAnyThreadCountPoolOrHost) {
  const auto cases = Cases();
  Workspace one_ws, pool_ws, host_ws;
  ThreadExecutor host;
  set_executor(host_ws, &host);
  for (size_t k = 0; k < cases.size(); ++k) {
    for (uint64_t seed = 0; seed < 3; ++seed) {
      const Outcome want = RunRow(cases[k], one_ws, 1, seed);
      for (int threads = 2; threads <= 8; ++threads) {
        ASSERT_EQ(RunRow(cases[k], pool_ws, threads, seed), want)
            << "case " << k << " threads " << threads;
        ASSERT_EQ(RunRow(cases[k], host_ws, threads, seed), want)
            << "case " << k << " threads " << threads << " (host)";
      }
    }
  }
  host.Join();
  EXPECT_GT(host.submitted(), 0u);
}

TEST(Threads, RowEqualWhenHelpersArePreemptedMidPiece) {
  const auto cases = Cases();
  HookScope hook(SleepHook);
  g_sleep_micros = 400;
  Workspace one_ws, ws;
  for (int every : {1, 2, 3}) {
    g_sleep_every = every;
    for (size_t k = 0; k < cases.size(); ++k) {
      const Outcome want = RunRow(cases[k], one_ws, 1, k);
      for (int threads : {2, 3, 5, 8}) {
        ASSERT_EQ(RunRow(cases[k], ws, threads, k), want)
            << "case " << k << " every " << every << " threads " << threads;
      }
    }
  }
  EXPECT_GT(g_hook_calls.load(), 0);
}

TEST(Threads, TurnoutRunsAloneLongerAfterEachUnservedSplit) {
  threads::Turnout turnout;
  const auto calls_alone = [&] {
    int alone = 0;
    while (!turnout.Split()) ++alone;
    return alone;
  };
  EXPECT_EQ(calls_alone(), 0);
  for (int want : {1, 2, 4, 8, 16, 32, 64, 64}) {
    turnout.Record(false);
    EXPECT_EQ(calls_alone(), want);
  }
  turnout.Record(true);
  EXPECT_EQ(calls_alone(), 0);
  turnout.Record(false);
  EXPECT_EQ(calls_alone(), 1);
}

// Helpers that always come too late (each sleeps on every piece it claims,
// and the caller takes the piece over): following the turnout, rows run
// alone between splits that look whether helpers come in time again, with
// the same results; not following it, every row splits.
std::atomic<int> g_split_passes{0};
TEST(Threads, RowsRunAloneWhileHelpersComeTooLate) {
  const test::RandomCase c = Cases()[0];
  Workspace one_ws;
  const Outcome want = RunRow(c, one_ws, 1, 5);
  constexpr int kCalls = 24;
  std::vector<int> splits[2];  // the calls that split, by `follow`
  for (bool follow : {false, true}) {
    HookScope hook(SleepHook);
    threads::SetPassHook([] { g_split_passes.fetch_add(1); });
    g_sleep_every = 1;
    g_sleep_micros = 2000;
    threads::SetFollowTurnout(follow);
    Workspace ws;
    for (int call = 0; call < kCalls; ++call) {
      const int before = g_split_passes.load();
      ASSERT_EQ(RunRow(c, ws, 2, 5), want) << "call " << call << " follow " << follow;
      if (g_split_passes.load() > before) splits[follow].push_back(call);
    }
    threads::SetFollowTurnout(false);
  }
  std::vector<int> every(kCalls);
  std::iota(every.begin(), every.end(), 0);
  EXPECT_EQ(splits[false], every);
  // Unserved every time, the splits are calls 0, 2, 5, 10 and 19; a caller
  // preempted for longer than a helper's sleep lets it serve, and the next
  // call splits too.
  ASSERT_FALSE(splits[true].empty());
  EXPECT_EQ(splits[true][0], 0);
  EXPECT_GE(splits[true].size(), 5u);
  EXPECT_LE(splits[true].size(), static_cast<size_t>(kCalls / 2));
}

// A standard row widened, its maximum, the one-thread e values, and the
// buffers a two-thread pass writes.
struct PassRow {
  PassRow(size_t vocab, uint64_t seed) {
    const std::vector<float> x = StandardRow(vocab, seed);
    l.assign(x.begin(), x.end());
    for (double y : l) m = std::max(m, y);
    want_e.resize(l.size());
    simd::ExpSum(l.data(), l.size(), 1.0, m, want_e.data(), v);
    e.resize(l.size());
    recomputed_e.resize(l.size());
  }
  std::vector<double> l, want_e, e, recomputed_e;
  std::vector<double> sums = std::vector<double>(RowPieces::kMaxCount + 1);
  double m = -INFINITY;
  simd::ExpVariant v = simd::ProcessExp().variant;
};

TEST(Threads, PiecesTakenOverAreReadThroughTheView) {
  // A helper sleeps in every piece, so the caller takes over each piece a
  // helper claimed: ExpSumPass reports them scattered, Piece() and Gather()
  // give the one-thread values.
  HookScope hook(SleepHook);
  g_sleep_every = 1;
  g_sleep_micros = 50000;
  PassRow row(262144, 5);
  auto& [l, want_e, e, recomputed_e, sums, m, v] = row;
  std::vector<double> want_sums(RowPieces::kMaxCount + 1);
  const ExpView want =
      ExpSumPass({l.data()}, l.size(), 1.0, m, want_e.data(), v, {}, want_sums);
  ASSERT_EQ(want.scattered, nullptr);
  bool patched = false;
  StartedExecutor host(g_hook_calls);  // a helper called the hook
  for (int attempt = 0; attempt < 20 && !patched; ++attempt) {
    auto job = std::make_unique<RowJob>();
    const ExpView got = ExpSumPass({l.data()}, l.size(), 1.0, m, e.data(), v,
                                        RowThreads{2, &host, job.get(), recomputed_e.data()}, sums);
    ASSERT_EQ(test::Bits(got.z), test::Bits(want.z));
    for (size_t k = 0; k <= got.sums.pieces.count; ++k) {
      ASSERT_EQ(test::Bits(got.sums.at[k]), test::Bits(want.sums.at[k]));
    }
    if (got.scattered != nullptr) {
      patched = true;
      for (size_t k = 0; k < got.sums.pieces.count; ++k) {
        const double* piece = got.scattered->Piece(k);
        for (size_t i = 0; i < got.sums.pieces.Length(k); ++i) {
          ASSERT_EQ(test::Bits(piece[i]), test::Bits(want_e[got.sums.pieces.Begin(k) + i]));
        }
      }
      // Still asleep (normally; a slow build may outlast the sleep): the
      // copy goes to the alternate area, else e is whole again.
      const double* all = got.scattered->Gather();
      EXPECT_TRUE(all == recomputed_e.data() || all == e.data());
      for (size_t i = 0; i < l.size(); ++i) ASSERT_EQ(test::Bits(all[i]), test::Bits(want_e[i]));
    }
    job->WaitIdle();
  }
  EXPECT_TRUE(patched);
}

// The helper sums pieces 0 and 1 and is held in piece 2 when the caller
// starts; the caller computes pieces from the top down, takes the helper's
// running sum after piece 1 and computes piece 2 too. Held on, the helper
// finishes nothing more: the caller's copy of piece 2 serves, from the
// alternate area. Released as the caller starts piece 2 and given time to
// finish it, the helper's running sum serves and no piece is in the
// alternate area. Either way every running sum and e value is the
// one-thread one. Without keep_e the pieces summed in order store nothing
// and none is patched; the running sums are the same.
void HelperHeldInPieceTwo(bool released, bool keep_e = true) {
  HookScope hook(BlockAtHook);
  threads::SetPassHook(WaitForABlockedHelper);
  if (released) threads::SetRaceHook(ReleaseWhenRaced);
  g_block_at = 2;
  g_blocked = 0;
  g_release = false;
  g_served = 0;
  PassRow row(128256, 8);
  auto& [l, want_e, e, recomputed_e, sums, m, v] = row;
  std::vector<double> want_sums(RowPieces::kMaxCount + 1);
  const ExpView want =
      ExpSumPass({l.data()}, l.size(), 1.0, m, want_e.data(), v, {}, want_sums);
  RowJob job;
  ThreadExecutor host;  // joined, on the way out, before the job goes
  const ReleaseOnExit release;
  RowThreads threads{2, &host, &job, recomputed_e.data()};
  threads.keep_e = keep_e;
  const ExpView got = ExpSumPass({l.data()}, l.size(), 1.0, m, e.data(), v, threads, sums);
  ASSERT_EQ(g_blocked.load(), 1);
  ASSERT_EQ(g_served.load(), released ? 1 : 0);
  ASSERT_EQ(test::Bits(got.z), test::Bits(want.z));
  const RowPieces& pieces = got.sums.pieces;
  for (size_t k = 0; k <= pieces.count; ++k) {
    ASSERT_EQ(test::Bits(got.sums.at[k]), test::Bits(want.sums.at[k])) << k;
  }
  ASSERT_EQ(got.scattered, released || !keep_e ? nullptr : job.Recomputed());
  g_release = true;
  job.WaitIdle();
  if (!keep_e) return;
  for (size_t k = 0; k < pieces.count; ++k) {
    const double* piece = released ? e.data() + pieces.Begin(k) : job.Recomputed()->Piece(k);
    EXPECT_EQ(piece, (k == 2 && !released ? recomputed_e.data() : e.data()) + pieces.Begin(k)) << k;
    for (size_t i = 0; i < pieces.Length(k); ++i) {
      ASSERT_EQ(test::Bits(piece[i]), test::Bits(want_e[pieces.Begin(k) + i]));
    }
  }
}

TEST(Threads, TheCallerTakesTheTopWhileAHelperSumsFromTheBottom) {
  HelperHeldInPieceTwo(false);
}

TEST(Threads, TheCallerUsesAHelpersPieceFinishedWhileItComputesItToo) {
  HelperHeldInPieceTwo(true);
}

TEST(Threads, RunningSumsAreTheSameWhenEValuesAreNotKept) {
  HelperHeldInPieceTwo(false, false);
  HelperHeldInPieceTwo(true, false);
}

// Releases a held helper, however a test case ends, then cancels its job
// and joins it, before the job and the buffers it writes go.
struct ReleaseAndJoin {
  RowJob& job;
  ThreadExecutor& host;
  void (*release)();
  ~ReleaseAndJoin() {
    release();
    job.Cancel();
    job.WaitIdle();
    host.Join();
  }
};

// The widening max pass split with the helpers called ahead: the helper
// takes pieces 0 and 1 and is held in piece 2 (widened into the stage, not
// yet moved into l) until the pass has returned; the caller takes the top,
// the helper's pieces 0 and 1, and piece 2 over. The widened row, the check
// and the maximum are simd::WidenMax's on one thread, with a mask, with
// penalty codes, on a bf16 row, and with a NaN, +inf or the largest value
// in the held piece or others; released, the helper leaves l alone, and
// the exp pass after it, through the same job, is one thread's.
TEST(Threads, TheWideningMaxPassSplitTakesAHeldPieceOver) {
  const size_t n = 128256;
  const RowPieces pieces = RowPieces::Of(n);
  const std::vector<float> base = StandardRow(n, 11);
  std::vector<uint32_t> bits((n + 31) / 32);
  for (size_t w = 0; w < bits.size(); ++w) bits[w] = static_cast<uint32_t>(w * 2654435761u) | 1u;
  for (size_t i = pieces.Begin(5); i < pieces.Begin(6); ++i) bits[i / 32] &= ~(1u << (i % 32));
  std::vector<int32_t> codes(n, -1);
  for (size_t i = 0; i < n; i += 7) codes[i] = static_cast<int32_t>(i % 5);
  const twins::Penalties p{1.3, 0.4, 0.25};
  const simd::PenaltyCodes penalty_codes{codes.data(), p};
  struct Variant {
    std::string name;
    size_t piece;
    float value;
    bool mask, penalties, bf16;
  };
  std::vector<Variant> variants = {{"standard", 0, 0, false, false, false},
                                   {"mask", 0, 0, true, false, false},
                                   {"penalties", 0, 0, false, true, false},
                                   {"mask and penalties", 0, 0, true, true, false},
                                   {"bf16 with penalties", 0, 0, false, true, true}};
  for (size_t piece : {size_t{1}, size_t{2}, pieces.count - 1}) {
    variants.push_back({"NaN", piece, std::numeric_limits<float>::quiet_NaN(), false, true, false});
    variants.push_back({"+inf", piece, INFINITY, true, false, false});
    variants.push_back({"largest", piece, 1000.0f, true, true, false});
  }
  const simd::ExpVariant v = simd::ProcessExp().variant;
  HookScope hook(BlockAtHook);
  threads::SetPassHook(WaitForABlockedHelper);
  for (const Variant& variant : variants) {
    const std::string what = variant.name + " in piece " + std::to_string(variant.piece);
    std::vector<float> x = base;
    if (variant.value != 0) x[pieces.Begin(variant.piece) + 9] = variant.value;
    std::vector<uint16_t> words(n);
    for (size_t i = 0; i < n; ++i) words[i] = static_cast<uint16_t>(std::bit_cast<uint32_t>(x[i]) >> 16);
    const simd::Row row = variant.bf16 ? simd::Row(words.data(), LogitType::bf16) : simd::Row(x.data());
    const simd::AllowedIds allowed{variant.mask ? bits.data() : nullptr};
    const simd::PenaltyCodes* codes_in = variant.penalties ? &penalty_codes : nullptr;
    std::vector<double> want_l(n);
    const simd::WidenResult want = simd::WidenMax(row, n, want_l.data(), allowed, codes_in);
    g_block_at = 2;
    g_blocked = 0;
    g_release = false;
    // What the helper writes, declared before the job it enters.
    std::vector<double> l(n), stage(n), e(n), recomputed_e(n), sums(RowPieces::kMaxCount + 1);
    ThreadExecutor host;
    RowJob job;
    const ReleaseAndJoin release{job, host, [] { g_release = true; }};
    job.Announce(&host, 2);
    const simd::WidenResult got =
        WidenMaxPass(row, n, l.data(), allowed, threads::WaitingHelpers(&job),
                     {.stage = stage.data()}, codes_in);
    ASSERT_EQ(g_blocked.load(), 1) << what;
    g_block_at = -1;
    g_release = true;
    ASSERT_EQ(got.bad, want.bad) << what;
    if (want.bad) continue;
    ASSERT_EQ(test::Bits(got.max), test::Bits(want.max)) << what;
    for (size_t i = 0; i < n; ++i) ASSERT_EQ(test::Bits(l[i]), test::Bits(want_l[i])) << what << " " << i;
    std::vector<double> want_e(n), want_sums(RowPieces::kMaxCount + 1);
    const ExpView one =
        ExpSumPass({want_l.data()}, n, 1.0, want.max, want_e.data(), v, {}, want_sums);
    const ExpView two = ExpSumPass({l.data()}, n, 1.0, got.max, e.data(), v,
                                        RowThreads{2, &host, &job, recomputed_e.data()}, sums);
    ASSERT_EQ(test::Bits(two.z), test::Bits(one.z)) << what;
    for (size_t k = 0; k <= pieces.count; ++k) {
      ASSERT_EQ(test::Bits(two.sums.at[k]), test::Bits(one.sums.at[k])) << what << " " << k;
    }
  }
}

// The max pass split with the helpers called ahead: the helper takes max
// pieces 0 and 1 and is held in piece 2 (copied, its maximum not yet
// taken), so the caller takes the top, the helper's results for 0 and 1,
// and piece 2 over. The check and the maximum are CheckedMax's wherever the
// NaN, +inf or largest value lies. Released, the helper sums exp pieces 0
// to 3 (0 to 2 from its copies of the max pass) and is held in piece 4,
// which the caller takes over: e, Z and the running sums are one thread's.
std::atomic<int> g_stage{0};
void HeldInMaxPieceTwoThenExpPieceFour(size_t unit) {
  const int stage = g_stage.load();
  if ((unit == 2 && stage == 0) || (unit == 4 && stage == 1)) {
    g_blocked.fetch_add(1);
    while (g_stage.load() == stage) std::this_thread::sleep_for(100us);
  }
}
std::atomic<int> g_expect_blocked{0};
void WaitForTheExpectedBlock() {
  for (int i = 0; i < 1000 && g_blocked.load() < g_expect_blocked.load(); ++i) {
    std::this_thread::sleep_for(1ms);
  }
}

TEST(Threads, TheMaxPassSplitWithHelpersGivesTheRowsCheckAndMaximum) {
  const size_t n = 128256;
  const RowPieces pieces = RowPieces::Of(n);
  const std::vector<float> base = StandardRow(n, 9);
  struct Variant {
    std::string name;
    size_t piece;  // where the value goes
    float value;
  };
  std::vector<Variant> variants = {{"standard", 0, 0.0f}};
  for (size_t piece : {size_t{0}, size_t{1}, size_t{2}, size_t{5}, pieces.count - 1}) {
    variants.push_back({"NaN", piece, std::numeric_limits<float>::quiet_NaN()});
    variants.push_back({"+inf", piece, INFINITY});
    variants.push_back({"largest", piece, 1000.0f});
  }
  variants.push_back({"zero maximum", 0, -0.0f});
  const simd::ExpVariant v = simd::ProcessExp().variant;
  HookScope hook(HeldInMaxPieceTwoThenExpPieceFour);
  threads::SetPassHook(WaitForTheExpectedBlock);
  for (const Variant& variant : variants) {
    const std::string what = variant.name + " in piece " + std::to_string(variant.piece);
    std::vector<float> x = base;
    if (variant.name == "zero maximum") {
      for (float& y : x) y = -std::abs(y);
      x[pieces.Begin(3) + 7] = 0.0f;
      x[pieces.Begin(1) + 3] = -0.0f;
    } else if (variant.name != "standard") {
      x[pieces.Begin(variant.piece) + pieces.Length(variant.piece) / 2] = variant.value;
    }
    g_stage = 0;
    g_blocked = 0;
    g_expect_blocked = 1;
    // What the helper writes, declared before the job it enters.
    std::vector<float> x_copy(n);
    std::vector<double> e(n), recomputed_e(n), sums(RowPieces::kMaxCount + 1);
    ThreadExecutor host;
    RowJob job;
    const ReleaseAndJoin release{job, host, [] { g_stage = 2; }};
    job.Announce(&host, 2);
    const simd::WidenResult got =
        WidenMaxPass(x.data(), n, nullptr, {}, threads::WaitingHelpers(&job),
                     {.x_copy = x_copy.data()});
    const simd::WidenResult want = simd::CheckedMax(x.data(), n);
    ASSERT_EQ(g_blocked.load(), 1) << what;
    ASSERT_EQ(got.bad, want.bad) << what;
    if (!want.bad) {
      ASSERT_EQ(test::Bits(got.max), test::Bits(want.max)) << what;
      const std::vector<double> l(x.begin(), x.end());
      std::vector<double> want_e(n), want_sums(RowPieces::kMaxCount + 1);
      const ExpView one = ExpSumPass({l.data()}, n, 1.0, want.max, want_e.data(), v, {},
                                          want_sums);
      g_expect_blocked = 2;
      g_stage = 1;
      const ExpView two =
          ExpSumPass({nullptr, x.data()}, n, 1.0, got.max, e.data(), v,
                     RowThreads{2, &host, &job, recomputed_e.data(), x_copy.data()}, sums);
      ASSERT_EQ(g_blocked.load(), 2) << what;
      ASSERT_EQ(test::Bits(two.z), test::Bits(one.z)) << what;
      for (size_t k = 0; k <= pieces.count; ++k) {
        ASSERT_EQ(test::Bits(two.sums.at[k]), test::Bits(one.sums.at[k])) << what << " " << k;
      }
      ASSERT_EQ(two.scattered, job.Recomputed()) << what;
      for (size_t k = 0; k < pieces.count; ++k) {
        const double* piece = job.Recomputed()->Piece(k);
        EXPECT_EQ(piece, (k == 4 ? recomputed_e.data() : e.data()) + pieces.Begin(k))
            << what << " " << k;
        for (size_t i = 0; i < pieces.Length(k); ++i) {
          ASSERT_EQ(test::Bits(piece[i]), test::Bits(want_e[pieces.Begin(k) + i])) << what;
        }
      }
    }
  }
}

TEST(Threads, AHelperFinishingLateGivesItsPieceBack) {
  HookScope hook(SleepHook);
  g_sleep_every = 1;
  g_sleep_micros = 2000;
  PassRow row(128256, 6);
  auto& [l, want_e, e, recomputed_e, sums, m, v] = row;
  StartedExecutor host(g_hook_calls);  // a helper called the hook
  for (int attempt = 0; attempt < 20; ++attempt) {
    RowJob job;
    const ExpView got = ExpSumPass({l.data()}, l.size(), 1.0, m, e.data(), v,
                                        RowThreads{2, &host, &job, recomputed_e.data()}, sums);
    job.WaitIdle();
    if (got.scattered == nullptr) continue;
    // Every helper has left, having finished its piece: e itself is whole.
    EXPECT_EQ(got.scattered->Gather(), e.data());
    for (size_t i = 0; i < l.size(); ++i) ASSERT_EQ(test::Bits(e[i]), test::Bits(want_e[i]));
    return;
  }
  ADD_FAILURE() << "no piece was taken over";
}

// The first pass's helpers are called at the start of the call and wait in
// its job: when the pass does not come (a row rejected, a mask leaving too
// few ids to split), they leave and the job is free again.
TEST(Threads, HelpersCalledAheadLeaveWhenThePassDoesNotCome) {
  ThreadExecutor host;
  Workspace one_ws, ws;
  set_executor(ws, &host);
  test::RandomCase c = Cases()[0];
  const auto idle_soon = [&ws] {
    const RowJob* const job =
        detail::WorkspaceAccess::Of(ws).helpers.Job(threads::RowHelpers::kLogprob);
    for (int i = 0; i < 1000 && job != nullptr && job->Busy(); ++i) {
      std::this_thread::sleep_for(1ms);
    }
    return job != nullptr && !job->Busy();
  };
  for (int threads : {2, 4}) {
    test::RandomCase bad = c;
    bad.logits[bad.logits.size() / 2] = std::numeric_limits<float>::quiet_NaN();
    Pcg32 rng = stream(1, Purpose::sample);
    SampleOptions o;
    o.threads = threads;
    EXPECT_FALSE(sample({bad.logits, {}, {}, bad.params}, rng, ws, o));
    EXPECT_TRUE(idle_soon()) << "threads " << threads;

    // Eight allowed ids: the compacted row is too short to split.
    std::vector<int32_t> allowed = {3, 90, 700, 4000, 9000, 20000, 30000, 39999};
    Request masked{c.logits, {}, {}, c.params};
    masked.mask.allowed = allowed;
    Pcg32 a = stream(2, Purpose::sample), b = stream(2, Purpose::sample);
    SampleOptions one;
    EXPECT_EQ(OutcomeOf(sample(masked, a, ws, o), a),
              OutcomeOf(sample(masked, b, one_ws, one), b));
    EXPECT_TRUE(idle_soon()) << "threads " << threads;

    EXPECT_EQ(RunRow(c, ws, threads, 3), RunRow(c, one_ws, 1, 3));
  }
  host.Join();
  EXPECT_GT(host.submitted(), 0u);
}

TEST(Threads, AnExecutorThatNeverRunsTasks) {
  const auto cases = Cases();
  Workspace one_ws, ws;
  NeverExecutor never;
  set_executor(ws, &never);
  for (size_t k = 0; k < cases.size(); ++k) {
    for (int threads : {2, 4, 8}) {
      ASSERT_EQ(RunRow(cases[k], ws, threads, k), RunRow(cases[k], one_ws, 1, k));
    }
  }
  EXPECT_GT(never.submitted(), 0u);
}

TEST(Threads, TasksRunAfterTheCallReturnedDoNothing) {
  const auto cases = Cases();
  Workspace one_ws, ws;
  LateExecutor late;
  set_executor(ws, &late);
  for (size_t k = 0; k < cases.size(); ++k) {
    const test::RandomCase& c = cases[k];
    const Outcome want = RunRow(c, one_ws, 1, k);
    auto logits = std::make_unique<std::vector<float>>(c.logits);
    Pcg32 rng = stream(k, Purpose::sample);
    SampleOptions o;
    o.threads = 4;
    const Result<Token> r = sample({*logits, c.prompt, c.generated, c.params}, rng, ws, o);
    const Outcome got = OutcomeOf(r, rng);
    ASSERT_EQ(got, want);
    logits.reset();  // the caller's row is gone before the tasks run
    EXPECT_GT(late.RunAll(), 0u);
    EXPECT_EQ(OutcomeOf(r, rng), want);  // nothing written after return
    ASSERT_EQ(RunRow(c, ws, 4, k), want);
    late.RunAll();
  }
}

// A helper inside a piece when the call returns (blocked by the hook): it
// finishes after the caller's row is freed; the caller's results and
// generator are untouched; the next calls on the same workspace use other
// buffers and are right; destroying the workspace waits for the helper.
// The caller starts each pass only once a helper is blocked inside it.

TEST(Threads, AHelperStillInsideAfterReturnTouchesNothingOfTheCaller) {
  const auto cases = Cases();
  Workspace one_ws;
  for (size_t k : {0u, 1u, 3u}) {
    const test::RandomCase& c = cases[k];
    const Outcome want = RunRow(c, one_ws, 1, k);
    g_release = false;
    g_blocked = 0;
    HookScope hook(BlockHook);
    threads::SetPassHook(WaitForABlockedHelper);
    ThreadExecutor host;
    auto ws = std::make_unique<Workspace>();
    const ReleaseOnExit release_on_exit;  // before ws waits for the helper
    set_executor(*ws, &host);
    auto logits = std::make_unique<std::vector<float>>(c.logits);
    Pcg32 rng = stream(k, Purpose::sample);
    SampleOptions o;
    o.threads = 2;
    Result<Token> r = sample({*logits, c.prompt, c.generated, c.params}, rng, *ws, o);
    threads::SetPassHook(nullptr);
    const Outcome got = OutcomeOf(r, rng);
    ASSERT_EQ(got, want);
    ASSERT_GT(g_blocked.load(), 0);
    logits.reset();
    // Another call while the helper is still inside: other buffers.
    threads::SetHelperHook(nullptr);
    set_executor(*ws, nullptr);
    ASSERT_EQ(RunRow(c, *ws, 2, k), want);
    ASSERT_EQ(RunRow(c, *ws, 3, k), want);
    std::thread release([] {
      std::this_thread::sleep_for(20ms);
      g_release = true;
    });
    const auto start = std::chrono::steady_clock::now();
    ws.reset();  // waits for the helper
    EXPECT_GE(std::chrono::steady_clock::now() - start, 10ms);
    release.join();
    host.Join();
    EXPECT_EQ(OutcomeOf(r, rng), want);
  }
}

// Batches.
struct BatchCase {
  std::vector<test::RandomCase> rows;
};

BatchCase MakeBatchCase(uint64_t seed, size_t count) {
  BatchCase b;
  const auto cases = Cases();
  test::CaseMaker maker(seed);
  for (size_t i = 0; i < count; ++i) {
    if (i % 3 == 2) {
      b.rows.push_back(maker.Make(seed * 100 + i, 40000));  // any request, errors included
    } else {
      b.rows.push_back(cases[(seed + i) % cases.size()]);
    }
  }
  return b;
}

std::vector<Outcome> RowByRow(const BatchCase& b) {
  Workspace ws;
  std::vector<Outcome> out;
  for (size_t i = 0; i < b.rows.size(); ++i) out.push_back(RunRow(b.rows[i], ws, 1, 1000 + i));
  return out;
}

std::vector<Outcome> RunBatch(const BatchCase& b, BatchWorkspace& ws, int threads,
                              int row_threads = 1) {
  std::vector<Pcg32> rngs;
  for (size_t i = 0; i < b.rows.size(); ++i) rngs.push_back(stream(1000 + i, Purpose::sample));
  std::vector<BatchRow> rows;
  for (size_t i = 0; i < b.rows.size(); ++i) {
    const test::RandomCase& c = b.rows[i];
    rows.push_back({{c.logits, c.prompt, c.generated, c.params}, &rngs[i]});
  }
  std::vector<Result<Token>> results;
  SampleOptions o;
  o.threads = row_threads;
  sample_batch(rows, results, ws, o, threads);
  std::vector<Outcome> out;
  for (size_t i = 0; i < rows.size(); ++i) out.push_back(OutcomeOf(results[i], rngs[i]));
  return out;
}

TEST(Threads, BatchEqualForAnyThreadCountPoolOrHost) {
  for (size_t count : {1u, 2u, 5u, 8u, 13u}) {
    const BatchCase b = MakeBatchCase(count, count);
    const auto want = RowByRow(b);
    BatchWorkspace pool_ws, host_ws;
    ThreadExecutor host;
    set_executor(host_ws, &host);
    for (int threads = 1; threads <= 8; ++threads) {
      ASSERT_EQ(RunBatch(b, pool_ws, threads), want) << count << " rows, " << threads;
      ASSERT_EQ(RunBatch(b, host_ws, threads, threads % 3 + 1), want)
          << count << " rows, " << threads << " (host)";
    }
    host.Join();
  }
}


TEST(Threads, BatchEqualWhenHelpersArePreempted) {
  const BatchCase b = MakeBatchCase(9, 9);
  const auto want = RowByRow(b);
  HookScope hook(SleepHook);
  g_sleep_micros = 3000;
  BatchWorkspace ws;
  for (int every : {1, 2}) {
    g_sleep_every = every;
    for (int threads : {2, 3, 4, 8}) {
      ASSERT_EQ(RunBatch(b, ws, threads, 2), want) << every << " " << threads;
    }
  }
}

// Four rows on two threads: whole rows only. The helper takes row 0 and is
// held after copying it; the caller samples the other three, then row 0
// too, and as it starts lets the helper finish first: the caller's sample
// stops and the helper's result and generator serve.
TEST(Threads, ABatchRowTheHelperFinishesFirstServesFromTheHelper) {
  const BatchCase b = MakeBatchCase(4, 4);
  const auto want = RowByRow(b);
  HookScope hook(BlockAtHook);
  threads::SetRaceHook(ReleaseWhenRaced);
  g_block_at = 0;
  g_blocked = 0;
  g_release = false;
  g_served = 0;
  StartedExecutor host(g_blocked);  // the helper holds row 0
  BatchWorkspace ws;
  set_executor(ws, &host);
  const ReleaseOnExit release;
  ASSERT_EQ(RunBatch(b, ws, 2), want);
  EXPECT_EQ(g_blocked.load(), 1);
  EXPECT_EQ(g_served.load(), 1);
  host.Join();
}

std::atomic<int> g_helped{0};
void CountHook(size_t) { g_helped.fetch_add(1); }

// With every core busy a batch on the library pool starts no helper (one
// would take its core's time from the caller's): the caller samples every
// row, with the same results.
TEST(Threads, ABatchOnBusyCoresStartsNoHelper) {
  const BatchCase b = MakeBatchCase(8, 8);
  const auto want = RowByRow(b);
  g_helped = 0;
  HookScope hook(CountHook);
  threads::SetFreeCoresHook(NoCoreFree);
  BatchWorkspace ws;
  for (int threads : {2, 4, 0}) ASSERT_EQ(RunBatch(b, ws, threads), want) << threads;
  EXPECT_EQ(g_helped.load(), 0);
}

TEST(Threads, FreeCoresCountOnlyOtherWork) {
  // Cores, threads runnable (the caller among them), the pool's awake workers.
  EXPECT_EQ(threads::FreeCores(2, 1, 0), 1u);  // the caller alone
  EXPECT_EQ(threads::FreeCores(2, 2, 1), 1u);  // and a pool worker still spinning
  EXPECT_EQ(threads::FreeCores(2, 2, 0), 0u);  // one other busy thread
  EXPECT_EQ(threads::FreeCores(2, 3, 0), 0u);  // two
  EXPECT_EQ(threads::FreeCores(2, 0, 0), 1u);  // the count unknown
  EXPECT_EQ(threads::FreeCores(8, 4, 1), 5u);
  EXPECT_EQ(threads::FreeCores(1, 1, 0), 0u);
  // The cap on a call's team: the library pool's alone.
  HookScope hook(nullptr);
  threads::SetFreeCoresHook(NoCoreFree);
  EXPECT_EQ(threads::TeamOnPool(nullptr, 4), 1u);
  ThreadExecutor host;
  EXPECT_EQ(threads::TeamOnPool(&host, 4), 4u);
  threads::SetFreeCoresHook([]() -> size_t { return 2; });
  EXPECT_EQ(threads::TeamOnPool(nullptr, 4), 3u);
  EXPECT_EQ(threads::TeamOnPool(nullptr, 2), 2u);
}

#if defined(__linux__)
// The count read from the system: a busy thread on every core leaves none
// free, whatever the pool's workers do.
TEST(Threads, BusyThreadsOnEveryCoreLeaveNoCoreFree) {
  const size_t cores = std::max(1u, std::thread::hardware_concurrency());
  std::atomic<bool> stop{false};
  std::atomic<size_t> spinning{0};
  std::vector<std::thread> busy;
  for (size_t i = 0; i < cores; ++i) {
    busy.emplace_back([&] {
      spinning.fetch_add(1);
      while (!stop.load(std::memory_order_relaxed)) {
      }
    });
  }
  while (spinning.load() < cores) std::this_thread::yield();
  threads::SetFreeCoresHook(nullptr);  // counted from the system
  const size_t free = threads::FreeCores();
  threads::SetFreeCoresHook(AllCoresFree);
  stop = true;
  for (std::thread& t : busy) t.join();
  EXPECT_EQ(free, 0u);
}
#endif

TEST(Threads, BatchWithAnExecutorThatNeverRunsTasks) {
  const BatchCase b = MakeBatchCase(8, 8);
  const auto want = RowByRow(b);
  BatchWorkspace ws;
  NeverExecutor never;
  set_executor(ws, &never);
  for (int threads : {2, 4, 8}) ASSERT_EQ(RunBatch(b, ws, threads, 2), want);
  EXPECT_GT(never.submitted(), 0u);
}

TEST(Threads, BatchTasksRunLateOrHelpersStillInsideTouchNothing) {
  const BatchCase b = MakeBatchCase(7, 7);
  const auto want = RowByRow(b);
  // Tasks run after the call returned.
  {
    BatchWorkspace ws;
    LateExecutor late;
    set_executor(ws, &late);
    ASSERT_EQ(RunBatch(b, ws, 3), want);
    EXPECT_GT(late.RunAll(), 0u);
    ASSERT_EQ(RunBatch(b, ws, 4, 2), want);
    late.RunAll();
  }
  // A helper blocked after copying its row, released after the caller's
  // rows, results and generators are gone: the workspace's destructor
  // waits for it.
  g_release = false;
  g_blocked = 0;
  HookScope hook(BlockHook);
  ThreadExecutor host;
  auto ws = std::make_unique<BatchWorkspace>();
  set_executor(*ws, &host);
  auto copy = std::make_unique<BatchCase>(b);
  std::vector<Pcg32> rngs;
  for (size_t i = 0; i < copy->rows.size(); ++i) rngs.push_back(stream(1000 + i, Purpose::sample));
  std::vector<BatchRow> rows;
  for (size_t i = 0; i < copy->rows.size(); ++i) {
    const test::RandomCase& c = copy->rows[i];
    rows.push_back({{c.logits, c.prompt, c.generated, c.params}, &rngs[i]});
  }
  auto results = std::make_unique<std::vector<Result<Token>>>();
  sample_batch(rows, *results, *ws, {}, 2);
  std::vector<Outcome> got;
  for (size_t i = 0; i < rows.size(); ++i) got.push_back(OutcomeOf((*results)[i], rngs[i]));
  ASSERT_EQ(got, want);
  for (int i = 0; i < 2000 && g_blocked.load() == 0; ++i) std::this_thread::sleep_for(1ms);
  ASSERT_GT(g_blocked.load(), 0);
  copy.reset();
  rows.clear();
  rows.shrink_to_fit();
  const std::vector<Pcg32> kept_rngs = rngs;
  results.reset();
  threads::SetHelperHook(nullptr);
  std::thread release([] {
    std::this_thread::sleep_for(20ms);
    g_release = true;
  });
  ws.reset();
  release.join();
  host.Join();
  for (size_t i = 0; i < rngs.size(); ++i) EXPECT_EQ(rngs[i].state(), kept_rngs[i].state());
}

// The slot table: a token whose call closed does nothing; Busy() follows
// the helpers inside.
class CountingJob final : public threads::Job {
 public:
  void Help() override {
    helps.fetch_add(1);
    while (hold.load()) std::this_thread::sleep_for(100us);
  }
  std::atomic<int> helps{0};
  std::atomic<bool> hold{false};
};

TEST(Threads, StaleTokensDoNothingAndBusyFollowsHelpers) {
  CountingJob job;
  threads::Ticket ticket;
  EXPECT_FALSE(ticket.Busy());
  void* token = ticket.Open(&job);
  ASSERT_NE(token, nullptr);
  EXPECT_TRUE(ticket.Busy());
  threads::HelperTask(token);
  EXPECT_EQ(job.helps.load(), 1);
  job.hold = true;
  std::thread inside([token] { threads::HelperTask(token); });
  while (job.helps.load() < 2) std::this_thread::sleep_for(100us);
  ticket.Close();
  threads::HelperTask(token);  // closed: does not enter
  EXPECT_EQ(job.helps.load(), 2);
  EXPECT_TRUE(ticket.Busy());  // one still inside
  job.hold = false;
  inside.join();
  EXPECT_FALSE(ticket.Busy());
  // Reopened (maybe another slot): the old token stays stale.
  void* again = ticket.Open(&job);
  ASSERT_NE(again, nullptr);
  threads::HelperTask(token);
  EXPECT_EQ(job.helps.load(), 2);
  ticket.Close();
}

// The pool's idle spin: the longest recent gap and a quarter more while
// gaps are at most 4 ms, at least 200 us; 200 us once any is longer.
TEST(Threads, IdleSpinFollowsTheGapsBetweenSubmissions) {
  using us = std::chrono::microseconds;
  const auto spin = [](std::vector<us> gaps) {
    const std::vector<threads::SpinClock::duration> d(gaps.begin(), gaps.end());
    return std::chrono::duration_cast<us>(threads::IdleSpin(d));
  };
  EXPECT_EQ(spin({}), us(200));
  EXPECT_EQ(spin({us(0), us(0), us(0), us(0)}), us(200));
  EXPECT_EQ(spin({us(100), us(40), us(0), us(0)}), us(200));
  EXPECT_EQ(spin({us(400), us(1200), us(90), us(0)}), us(1500));
  EXPECT_EQ(spin({us(4000), us(10), us(10), us(10)}), us(5000));
  EXPECT_EQ(spin({us(4001), us(1200), us(1200), us(1200)}), us(200));
  EXPECT_EQ(spin({us(33000), us(33000), us(33000), us(33000)}), us(200));
}

TEST(Threads, PoolGrowsToTheLargestTeamAndShutsDown) {
  Workspace ws;
  const test::RandomCase c = Cases()[1];  // V = 128256: up to 7 threads
  ASSERT_EQ(c.logits.size(), 128256u);
  const Outcome want = RunRow(c, ws, 1, 0);
  shutdown_library_pool();
  EXPECT_EQ(threads::PoolThreads(), 0u);
  ASSERT_EQ(RunRow(c, ws, 3, 0), want);
  EXPECT_EQ(threads::PoolThreads(), 2u);
  ASSERT_EQ(RunRow(c, ws, 2, 0), want);
  EXPECT_EQ(threads::PoolThreads(), 2u);
  shutdown_library_pool();
  EXPECT_EQ(threads::PoolThreads(), 0u);
  ASSERT_EQ(RunRow(c, ws, 2, 0), want);
  EXPECT_EQ(threads::PoolThreads(), 1u);
}

TEST(Threads, BatchThreadsBeyondTheCapUseSixtyFour) {
  BatchCase b;
  test::CaseMaker maker(7);
  for (size_t i = 0; i < 80; ++i) b.rows.push_back(maker.Make(700 + i, 5000));
  const auto want = RowByRow(b);
  BatchWorkspace ws;
  shutdown_library_pool();
  for (int threads : {65, 100000, std::numeric_limits<int>::max()}) {
    ASSERT_EQ(RunBatch(b, ws, threads), want) << threads;
    EXPECT_LE(threads::PoolThreads(), static_cast<size_t>(kMaxRowThreads - 1)) << threads;
  }
  shutdown_library_pool();
}

}  // namespace
}  // namespace exactsample
