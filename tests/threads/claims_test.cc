// The claims helper (lib/threads/claims.hpp) on a machine of the test's own:
// moves happen only from the state they name, MoveFromAny takes the move its
// function names from wherever the unit is, and in a debug build (this file
// is compiled with assertions on, whatever the build type) a move the
// machine does not have, or a Set from a state the unit is not in, stops
// the program where it happens.
#undef NDEBUG
#include "lib/threads/claims.hpp"

#include <gtest/gtest.h>

#include <thread>
#include <vector>

namespace exactsample::threads {
namespace {

// kFree -> kOne -> kTwo, and kFree -> kTwo; nothing else.
struct TestStates {
  enum State : uint8_t { kFree, kOne, kTwo };
  static constexpr bool Allowed(State from, State to) {
    return (from == kFree && (to == kOne || to == kTwo)) || (from == kOne && to == kTwo);
  }
};
using S = TestStates;

TEST(Claims, AMoveHappensOnlyFromTheStateItNames) {
  Claim<TestStates> claim;
  EXPECT_EQ(claim.Load(), S::kFree);
  S::State seen = S::kTwo;
  EXPECT_FALSE(claim.Move(S::kOne, S::kTwo, &seen));
  EXPECT_EQ(seen, S::kFree);
  EXPECT_EQ(claim.Load(), S::kFree);
  EXPECT_TRUE(claim.Move(S::kFree, S::kOne, &seen));
  EXPECT_EQ(seen, S::kFree);
  EXPECT_EQ(claim.Load(), S::kOne);
  EXPECT_FALSE(claim.Move(S::kFree, S::kTwo, &seen));
  EXPECT_EQ(seen, S::kOne);
  claim.Set(S::kOne, S::kTwo);
  EXPECT_EQ(claim.Load(), S::kTwo);
  claim.Reset();
  EXPECT_EQ(claim.Load(), S::kFree);
}

TEST(Claims, MoveFromAnyTakesTheNamedMoveOrNone) {
  Claim<TestStates> claim;
  const auto next = [](S::State s) { return s == S::kTwo ? s : S::kTwo; };
  EXPECT_EQ(claim.MoveFromAny(next), S::kFree);
  EXPECT_EQ(claim.Load(), S::kTwo);
  EXPECT_EQ(claim.MoveFromAny(next), S::kTwo);  // no move from kTwo
  EXPECT_EQ(claim.Load(), S::kTwo);
}

// Of many threads racing for one unit, exactly one moves it.
TEST(Claims, OneOfManyRacingThreadsWins) {
  for (int round = 0; round < 50; ++round) {
    OwnLineClaim<TestStates> claim;
    std::atomic<int> wins{0};
    std::vector<std::thread> threads;
    for (int t = 0; t < 4; ++t) {
      threads.emplace_back([&] {
        if (claim.Move(S::kFree, S::kOne)) wins.fetch_add(1);
      });
    }
    for (std::thread& t : threads) t.join();
    EXPECT_EQ(wins.load(), 1);
    EXPECT_EQ(claim.Load(), S::kOne);
  }
}

TEST(ClaimsDeathTest, AMoveTheMachineDoesNotHaveStops) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  Claim<TestStates> claim;
  EXPECT_DEATH(claim.Move(S::kTwo, S::kOne), "Allowed");
  ASSERT_TRUE(claim.Move(S::kFree, S::kOne));
  EXPECT_DEATH(claim.MoveFromAny([](S::State) { return S::kFree; }), "Allowed");
  EXPECT_DEATH(claim.Set(S::kOne, S::kFree), "Allowed");
}

TEST(ClaimsDeathTest, ASetFromAStateTheUnitIsNotInStops) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  Claim<TestStates> claim;  // in kFree
  EXPECT_DEATH(claim.Set(S::kOne, S::kTwo), "was == from");
}

TEST(Claims, ReadersWaitReturnsOnceNobodyIsInside) {
  Readers readers;
  readers.Wait();  // nobody entered
  readers.Enter();
  std::atomic<bool> left{false};
  std::thread reader([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
    left.store(true);
    readers.Leave();
  });
  readers.Wait();
  EXPECT_TRUE(left.load());
  reader.join();
}

}  // namespace
}  // namespace exactsample::threads
