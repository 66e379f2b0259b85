// Runtimes sample on worker threads with small stacks (64 KiB is common):
// every standard configuration, on both engines, one thread and two, must
// run on such a thread and give what it gives on the main thread.
#include <gtest/gtest.h>
#include <pthread.h>

#include <algorithm>
#include <climits>
#include <cstring>
#include <vector>

#include "exactsample/exactsample.hpp"
#include "tests/support/test_util.hpp"
#include "tools/lib/standard_inputs.hpp"

namespace exactsample {
namespace {

// 64 KiB, or the platform's minimum where that is larger (128 KiB on
// aarch64 Linux, whose pages may be 64 KiB).
const size_t kStack = std::max<size_t>(64 * 1024, PTHREAD_STACK_MIN);

struct Call {
  const Request* request;
  SampleOptions options;
  Pcg32 rng;
  Result<Token> result = Token{};
};

Result<Token> SampleOnThisThread(Call& call) {
  Workspace ws;
  return sample(*call.request, call.rng, ws, call.options);
}

// Runs the call on a new thread with a kStack-byte stack.
void RunOnSmallStack(Call& call) {
  pthread_attr_t attr;
  ASSERT_EQ(pthread_attr_init(&attr), 0);
  ASSERT_EQ(pthread_attr_setstacksize(&attr, kStack), 0);
  pthread_t thread;
  const auto body = [](void* arg) -> void* {
    auto& c = *static_cast<Call*>(arg);
    c.result = SampleOnThisThread(c);
    return nullptr;
  };
  ASSERT_EQ(pthread_create(&thread, &attr, body, &call), 0);
  ASSERT_EQ(pthread_join(thread, nullptr), 0);
  pthread_attr_destroy(&attr);
}

// The standard configurations, and top-p over a flat row (its nucleus holds
// most ids: the rank histogram's path rather than the candidate sets').
std::vector<StandardConfig> Configs() {
  std::vector<StandardConfig> out = StandardConfigs();
  for (double p : {0.5, 0.95}) {
    StandardConfig flat{"flat top-p", {}, 0};
    flat.params.top_p = p;
    flat.params.temperature = 3.0;
    out.push_back(flat);
  }
  return out;
}

TEST(SmallStack, EveryConfigurationOnASmallStack) {
  for (size_t vocab : {size_t{128256}, size_t{262144}}) {
    const std::vector<float> row = StandardRow(vocab);
    for (const StandardConfig& config : Configs()) {
      const std::vector<int32_t> history = StandardHistory(vocab, config.history);
      const Request request{row, {}, history, config.params};
      for (Engine engine : {Engine::fast, Engine::reference}) {
        for (int threads : {1, 2}) {
          SampleOptions options{engine};
          options.threads = threads;
          Call want{&request, options, stream(7, Purpose::sample)};
          want.result = SampleOnThisThread(want);
          ASSERT_TRUE(want.result.ok()) << config.name;
          Call got{&request, options, stream(7, Purpose::sample)};
          RunOnSmallStack(got);
          ASSERT_TRUE(got.result.ok()) << config.name;
          EXPECT_EQ(got.result->id, want.result->id) << config.name << " V " << vocab;
          EXPECT_EQ(test::Bits(got.result->logprob), test::Bits(want.result->logprob))
              << config.name << " V " << vocab;
          EXPECT_EQ(got.rng.state(), want.rng.state()) << config.name;
        }
      }
    }
  }
}

}  // namespace
}  // namespace exactsample
