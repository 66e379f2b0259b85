// Allocation failures: with the N-th allocation of a call failing, for every
// N, a single call throws std::bad_alloc with its generator untouched, a
// batch row gets out_of_memory (the other rows are sampled), and the same
// workspace then gives exactly what a fresh one gives.
#include <gtest/gtest.h>

#include <atomic>
#include <cstdlib>
#include <new>
#include <vector>

#include "exactsample/batch.hpp"
#include "exactsample/exactsample.hpp"
#include "tests/support/random_requests.hpp"
#include "tests/support/test_util.hpp"
#include "tools/lib/standard_inputs.hpp"

namespace {

// 0: no allocation fails; N: the N-th allocation counted after Arm fails.
std::atomic<long> g_fail_at{0};
std::atomic<long> g_count{0};

}  // namespace

void* operator new(size_t size) {
  const long fail_at = g_fail_at.load(std::memory_order_relaxed);
  if (fail_at > 0 && g_count.fetch_add(1, std::memory_order_relaxed) + 1 == fail_at) {
    throw std::bad_alloc();
  }
  if (void* p = std::malloc(size == 0 ? 1 : size)) return p;
  throw std::bad_alloc();
}
// GCC takes the pointer that reaches these from a new-expression for the
// standard operator new's, not this file's malloc, and warns of a mismatch.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmismatched-new-delete"
void operator delete(void* p) noexcept { std::free(p); }
void operator delete(void* p, size_t) noexcept { std::free(p); }
#pragma GCC diagnostic pop

namespace exactsample {
namespace {

// Fails the n-th allocation from now on, in any thread.
struct Armed {
  explicit Armed(long n) {
    g_count = 0;
    g_fail_at = n;
  }
  ~Armed() { g_fail_at = 0; }
  // Whether the armed allocation was reached.
  static bool Reached(long n) { return g_count.load() >= n; }
};

using test::Outcome;
using test::OutcomeOf;

TEST(AllocFailure, EveryAllocationOfACallFailingInTurn) {
  const std::vector<float> row = StandardRow(128256);
  const std::vector<float> small = StandardRow(5000);
  for (const StandardConfig& config : StandardConfigs()) {
    const std::vector<int32_t> history = StandardHistory(row.size(), config.history);
    const Request request{row, {}, history, config.params};
    for (int threads : {1, 2}) {
      SampleOptions options;
      options.threads = threads;
      Workspace fresh;
      Pcg32 want_rng = stream(3, Purpose::sample);
      const Outcome want = OutcomeOf(sample(request, want_rng, fresh, options), want_rng);
      long failed = 0;
      for (long n = 1;; ++n) {
        Workspace ws;
        Pcg32 warm = stream(3, Purpose::sample);
        ASSERT_TRUE(sample({small, {}, {}, config.params}, warm, ws, options).ok());
        Pcg32 rng = stream(3, Purpose::sample);
        const Pcg32 before = rng;
        bool threw = false;
        {
          Armed armed(n);
          try {
            const Result<Token> r = sample(request, rng, ws, options);
            ASSERT_EQ(OutcomeOf(r, rng), want) << config.name << " n " << n;
          } catch (const std::bad_alloc&) {
            threw = true;
          }
        }
        if (threw) {
          ++failed;
          EXPECT_EQ(rng.state(), before.state()) << config.name << " n " << n;
          EXPECT_EQ(rng.draws_u32(), before.draws_u32()) << config.name << " n " << n;
        }
        Pcg32 again = stream(3, Purpose::sample);
        ASSERT_EQ(OutcomeOf(sample(request, again, ws, options), again), want)
            << config.name << " threads " << threads << " after failing allocation " << n;
        if (!threw && !Armed::Reached(n)) break;  // every allocation has failed once
        ASSERT_LT(n, 1000) << config.name;
      }
      // The call allocates at a new V (the workspace grows), so some failed.
      EXPECT_GT(failed, 0) << config.name << " threads " << threads;
    }
  }
}

TEST(AllocFailure, BatchRowsGetOutOfMemoryAndTheOthersAreSampled) {
  test::CaseMaker maker(11);
  std::vector<test::RandomCase> cases;
  for (size_t i = 0; i < 6; ++i) cases.push_back(maker.Make(1100 + i, 40000));
  const auto run = [&](BatchWorkspace& ws, int threads, std::vector<Pcg32>& rngs) {
    rngs.clear();
    std::vector<BatchRow> rows;
    for (size_t i = 0; i < cases.size(); ++i) rngs.push_back(stream(50 + i, Purpose::sample));
    for (size_t i = 0; i < cases.size(); ++i) {
      const test::RandomCase& c = cases[i];
      rows.push_back({{c.logits, c.prompt, c.generated, c.params}, &rngs[i]});
    }
    std::vector<Result<Token>> results;
    sample_batch(rows, results, ws, {}, threads);
    std::vector<Outcome> out;
    for (size_t i = 0; i < results.size(); ++i) out.push_back(OutcomeOf(results[i], rngs[i]));
    return out;
  };
  std::vector<Pcg32> rngs;
  BatchWorkspace fresh;
  const std::vector<Outcome> want = run(fresh, 1, rngs);
  for (int threads : {1, 2}) {
    size_t out_of_memory = 0;
    for (long n = 1;; ++n) {
      BatchWorkspace ws;
      bool threw = false;
      std::vector<Outcome> got;
      {
        Armed armed(n);
        try {
          got = run(ws, threads, rngs);
        } catch (const std::bad_alloc&) {
          threw = true;  // before any row: the call's own memory
        }
      }
      for (size_t i = 0; i < got.size(); ++i) {
        if (got[i].ok || got[i].code != ErrorCode::out_of_memory) {
          ASSERT_EQ(got[i], want[i]) << "row " << i << " n " << n;
        } else {
          ++out_of_memory;
          EXPECT_EQ(got[i].state, stream(50 + i, Purpose::sample).state()) << "row " << i;
        }
      }
      ASSERT_EQ(run(ws, threads, rngs), want) << "threads " << threads << " after " << n;
      if (!threw && !Armed::Reached(n)) break;
      ASSERT_LT(n, 5000);
    }
    EXPECT_GT(out_of_memory, 0u) << "threads " << threads;
  }
}

}  // namespace
}  // namespace exactsample
