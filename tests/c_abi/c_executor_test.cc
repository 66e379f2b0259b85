// The C ABI's executor hook: a host's submit lends its threads to batches;
// results are those of the library pool whether the host runs the tasks on
// its threads, never, or after the call returned.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <thread>
#include <utility>
#include <vector>

#include "exactsample.h"
#include "tests/support/c_handles.hpp"

namespace {

struct Host {
  std::vector<std::thread> threads;
  std::vector<std::pair<void (*)(void*), void*>> kept;
  size_t submitted = 0;
  bool run = true;   // false: keep the tasks (run later or never)
  void Join() {
    for (std::thread& t : threads) t.join();
    threads.clear();
  }
};

void Submit(void* user, size_t n, void (*task)(void*), void* arg) {
  Host& h = *static_cast<Host*>(user);
  h.submitted += n;
  for (size_t k = 0; k < n; ++k) {
    if (h.run) {
      h.threads.emplace_back([task, arg] { task(arg); });
    } else {
      h.kept.emplace_back(task, arg);
    }
  }
}

// A copy's rows still point into the original's arrays: copies only keep
// outputs for comparison.
struct Batch {
  static constexpr size_t kRows = 7, kVocab = 50000;
  std::vector<float> logits = std::vector<float>(kRows * kVocab);
  exactsample_params params{};
  std::vector<exactsample_rng> rngs = std::vector<exactsample_rng>(kRows);
  std::vector<double> logprobs = std::vector<double>(kRows);
  std::vector<exactsample_request> rows;
  std::vector<exactsample_token> out = std::vector<exactsample_token>(kRows);
  Batch() {
    for (size_t i = 0; i < logits.size(); ++i) {
      logits[i] = static_cast<float>(4 * std::sin(0.001 * static_cast<double>(i * (i % 7))));
    }
    exactsample_params_init(&params);
    params.top_p = 0.9;
    for (size_t r = 0; r < kRows; ++r) {
      exactsample_rng_stream(r, EXACTSAMPLE_PURPOSE_SAMPLE, &rngs[r]);
      rows.push_back(exactsample::test::StatelessRequest(logits.data(), kVocab, nullptr, 0,
                                                         nullptr, 0, &params, nullptr, &rngs[r],
                                                         &logprobs[r]));
      rows.back().row_stride = kVocab;
    }
  }
  exactsample_status Run(exactsample_sampler* s, int threads) {
    return exactsample_sample_requests(s, nullptr, rows.data(), kRows, out.data(), threads);
  }
};

bool Same(const Batch& a, const Batch& b) {
  for (size_t r = 0; r < Batch::kRows; ++r) {
    if (a.out[r].status != b.out[r].status || a.out[r].id != b.out[r].id ||
        std::memcmp(&a.out[r].logprob, &b.out[r].logprob, sizeof(double)) != 0 ||
        a.rngs[r].state != b.rngs[r].state || a.rngs[r].draws_u32 != b.rngs[r].draws_u32) {
      return false;
    }
  }
  return true;
}

TEST(CExecutor, HostThreadsNeverOrLateGiveThePoolsResults) {
  exactsample_sampler* pool = nullptr;
  ASSERT_EQ(exactsample_sampler_create(EXACTSAMPLE_ENGINE_FAST, &pool), EXACTSAMPLE_OK);
  Batch want;
  ASSERT_EQ(want.Run(pool, 1), EXACTSAMPLE_OK);
  Batch pooled;
  ASSERT_EQ(pooled.Run(pool, 3), EXACTSAMPLE_OK);
  EXPECT_TRUE(Same(pooled, want));

  for (int mode = 0; mode < 3; ++mode) {
    Host host;
    host.run = mode == 0;
    exactsample_sampler* s = nullptr;
    ASSERT_EQ(exactsample_sampler_create(EXACTSAMPLE_ENGINE_FAST, &s), EXACTSAMPLE_OK);
    const exactsample_executor e{&host, Submit};
    ASSERT_EQ(exactsample_sampler_set_executor(s, &e), EXACTSAMPLE_OK);
    for (int threads : {2, 4}) {
      Batch got;
      ASSERT_EQ(got.Run(s, threads), EXACTSAMPLE_OK);
      EXPECT_TRUE(Same(got, want)) << "mode " << mode << " threads " << threads;
      if (mode == 2) {  // run after the call returned: they find it closed
        Batch before = got;
        for (auto [task, arg] : host.kept) task(arg);
        host.kept.clear();
        EXPECT_TRUE(Same(got, before));
      }
    }
    EXPECT_GT(host.submitted, 0u);
    host.Join();
    exactsample_sampler_destroy(s);
  }
  exactsample_sampler_destroy(pool);
}

TEST(CExecutor, BadArgumentsAndReset) {
  exactsample_sampler* s = nullptr;
  ASSERT_EQ(exactsample_sampler_create(EXACTSAMPLE_ENGINE_FAST, &s), EXACTSAMPLE_OK);
  const exactsample_executor no_submit{nullptr, nullptr};
  EXPECT_EQ(exactsample_sampler_set_executor(s, &no_submit), EXACTSAMPLE_INVALID_ARGUMENT);
  EXPECT_EQ(exactsample_sampler_set_executor(nullptr, nullptr), EXACTSAMPLE_INVALID_ARGUMENT);
  EXPECT_EQ(exactsample_sampler_set_executor(s, nullptr), EXACTSAMPLE_OK);  // the pool again
  Batch b;
  EXPECT_EQ(b.Run(s, 2), EXACTSAMPLE_OK);
  exactsample_shutdown_library_pool();
  Batch again;
  EXPECT_EQ(again.Run(s, 2), EXACTSAMPLE_OK);
  EXPECT_TRUE(Same(b, again));
  exactsample_sampler_destroy(s);
}

}  // namespace
