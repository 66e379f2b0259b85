// Bad input to the llama.cpp sampler: llama.cpp's interface has no error
// return, so each case takes the documented fallback (exactsample_llama.h),
// says why through llama.cpp's log callback, and leaves the generator and
// the history as they were, in each logprob mode.
#include <gtest/gtest.h>

#include <climits>
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "exactsample_llama.h"
#include "loop_harness.hpp"
#include "tiny_model.hpp"

namespace {

constexpr uint32_t V = 512;

exactsample_params Nucleus() {
  exactsample_params p;
  exactsample_params_init(&p);
  p.top_p = 0.9;
  return p;
}

std::vector<llama_token_data> Dense() {
  std::vector<llama_token_data> data;
  for (uint32_t i = 0; i < V; ++i) {
    data.push_back({static_cast<llama_token>(i), static_cast<float>((i * 37) % 101) / 10.0f, 0.0f});
  }
  return data;
}

std::vector<unsigned char> Snapshot(const llama_sampler* smpl) {
  size_t size = 0;
  EXPECT_EQ(exactsample_llama_snapshot(smpl, nullptr, 0, &size), EXACTSAMPLE_OK);
  std::vector<unsigned char> bytes(size);
  EXPECT_EQ(exactsample_llama_snapshot(smpl, bytes.data(), size, &size), EXACTSAMPLE_OK);
  return bytes;
}

// The one error message logged, which must contain every part of `words`.
void ExpectLogged(const std::vector<std::string>& words) {
  const std::vector<std::string> errors = loop::TakeErrors();
  ASSERT_EQ(errors.size(), 1u);
  for (const std::string& w : words) EXPECT_NE(errors[0].find(w), std::string::npos) << errors[0];
}

// The sampler in the logprob mode of the parameter.
struct Fixture : ::testing::TestWithParam<int> {
  llama_sampler* es = nullptr;
  void SetUp() override {
    const exactsample_params p = Nucleus();
    es = exactsample_llama_init(loop::Vocab(V), &p, nullptr, 4);
    ASSERT_NE(es, nullptr);
    ASSERT_EQ(exactsample_llama_set_logprob(es, GetParam()), EXACTSAMPLE_OK);
    llama_sampler_accept(es, 7);  // a prompt token
    loop::TakeErrors();
  }
  void TearDown() override { llama_sampler_free(es); }

  // Applies `data` expecting the fallback to the candidate at `expected`
  // with `status`, the request unchanged and a message naming `words`.
  void ExpectFallback(std::vector<llama_token_data> data, int64_t expected,
                      exactsample_status status, const std::vector<std::string>& words) {
    const std::vector<unsigned char> before = Snapshot(es);
    llama_token_data_array cur = {data.data(), data.size(), -1, false};
    llama_sampler_apply(es, &cur);
    ASSERT_EQ(cur.selected, expected);
    exactsample_token last{};
    ASSERT_EQ(exactsample_llama_last(es, &last), EXACTSAMPLE_OK);
    EXPECT_EQ(last.status, status);
    EXPECT_EQ(last.logprob, 0.0);
    if (expected >= 0) {
      EXPECT_EQ(last.id, data[expected].id);
      for (size_t j = 0; j < data.size(); ++j) {
        EXPECT_EQ(data[j].p, static_cast<int64_t>(j) == expected ? 1.0f : 0.0f);
      }
    } else {
      EXPECT_EQ(last.id, -1);
    }
    EXPECT_EQ(Snapshot(es), before);  // no draw, no token
    ExpectLogged(words);
  }
};

// The largest logit of Dense(): (i * 37) % 101 == 100 first at i = 30.
constexpr int64_t kLargest = 30;

TEST_P(Fixture, EmptyArraySelectsNothing) {
  ExpectFallback({}, -1, EXACTSAMPLE_INVALID_LOGITS, {"empty", "selected = -1"});
}

TEST_P(Fixture, IdOutsideTheVocabularyFallsBackToTheLargestLogit) {
  std::vector<llama_token_data> data = Dense();
  data.resize(100);
  data[5].id = static_cast<llama_token>(V);
  ExpectFallback(data, kLargest, EXACTSAMPLE_INVALID_IDS, {std::to_string(V), "id 30"});
  data[5].id = -3;
  ExpectFallback(data, kLargest, EXACTSAMPLE_INVALID_IDS, {"-3"});
}

TEST_P(Fixture, RepeatedIdFallsBack) {
  std::vector<llama_token_data> data = Dense();
  data.resize(100);
  data[40].id = 12;
  ExpectFallback(data, kLargest, EXACTSAMPLE_INVALID_IDS, {"12"});
}

TEST_P(Fixture, NanAndInfiniteLogitsFallBack) {
  std::vector<llama_token_data> data = Dense();
  data[0].logit = std::numeric_limits<float>::quiet_NaN();
  ExpectFallback(data, kLargest, EXACTSAMPLE_INVALID_LOGITS, {"NaN"});
  data = Dense();
  data[200].logit = std::numeric_limits<float>::infinity();
  ExpectFallback(data, 200, EXACTSAMPLE_INVALID_LOGITS, {"inf"});
  for (llama_token_data& d : data) d.logit = -std::numeric_limits<float>::infinity();
  ExpectFallback(data, 0, EXACTSAMPLE_INVALID_LOGITS, {"-inf"});
  for (llama_token_data& d : data) d.logit = std::numeric_limits<float>::quiet_NaN();
  ExpectFallback(data, 0, EXACTSAMPLE_INVALID_LOGITS, {"NaN"});
}

TEST_P(Fixture, AcceptOutsideTheVocabularyIsIgnored) {
  const std::vector<unsigned char> before = Snapshot(es);
  llama_sampler_accept(es, static_cast<llama_token>(V));
  EXPECT_EQ(Snapshot(es), before);
  ExpectLogged({"accept", std::to_string(V), "ignored"});
  llama_sampler_accept(es, -1);
  EXPECT_EQ(Snapshot(es), before);
  ExpectLogged({"-1"});
}

// The fallback's token enters the history as a generated one (llama_sampler_sample
// accepts it) with no draw taken; the next token is the spec's again.
TEST_P(Fixture, AfterAFallbackTheNextTokenIsExact) {
  std::vector<llama_token_data> data = Dense();
  data[3].logit = std::numeric_limits<float>::quiet_NaN();
  llama_token_data_array cur = {data.data(), data.size(), -1, false};
  llama_sampler_apply(es, &cur);
  loop::TakeErrors();
  llama_sampler_accept(es, data[cur.selected].id);
  data = Dense();
  cur = {data.data(), data.size(), -1, false};
  llama_sampler_apply(es, &cur);
  std::vector<float> row;
  for (const llama_token_data& d : data) row.push_back(d.logit);
  loop::Direct direct(Nucleus(), nullptr, 4, {7});
  direct.Accept(static_cast<int32_t>(kLargest));
  const exactsample_token want = direct.Next(row);
  exactsample_token last{};
  ASSERT_EQ(exactsample_llama_last(es, &last), EXACTSAMPLE_OK);
  ASSERT_EQ(last.status, EXACTSAMPLE_OK);
  EXPECT_EQ(last.id, want.id);
  if (GetParam() == EXACTSAMPLE_LLAMA_LOGPROB_OFF) {
    EXPECT_TRUE(std::isnan(last.logprob));
  } else {
    EXPECT_EQ(loop::Bits(last.logprob), loop::Bits(want.logprob));
  }
  EXPECT_EQ(data[cur.selected].id, want.id);
  EXPECT_TRUE(loop::TakeErrors().empty());
}

// exactsample_llama_sample at an index without logits: -1, logged, nothing
// accepted.
TEST_P(Fixture, SampleWithoutLogitsGivesNoToken) {
  llama_context* ctx = tiny_model::MakeContext(loop::Model(V), 64);
  ASSERT_TRUE(tiny_model::Decode(ctx, {1, 300}, 0));
  const std::vector<unsigned char> before = Snapshot(es);
  EXPECT_EQ(exactsample_llama_sample(es, ctx, 7), -1);
  EXPECT_EQ(Snapshot(es), before);
  const std::vector<std::string> errors = loop::TakeErrors();
  ASSERT_FALSE(errors.empty());  // llama.cpp's own, then exactsample's
  EXPECT_NE(errors.back().find("no logits"), std::string::npos) << errors.back();
  exactsample_token last{};
  ASSERT_EQ(exactsample_llama_last(es, &last), EXACTSAMPLE_OK);
  EXPECT_EQ(last.status, EXACTSAMPLE_INVALID_LOGITS);
  EXPECT_EQ(last.id, -1);
  llama_free(ctx);
}

// exactsample_llama_sample on bad logits: the fallback over the row, accepted.
TEST_P(Fixture, SampleOnBadLogitsFallsBack) {
  llama_context* ctx = tiny_model::MakeContext(loop::Model(V), 64);
  ASSERT_TRUE(tiny_model::Decode(ctx, {1, 300}, 0));
  float* logits = llama_get_logits_ith(ctx, -1);
  logits[9] = std::numeric_limits<float>::quiet_NaN();
  size_t best = 0;
  for (size_t i = 1; i < V; ++i) {
    if (i != 9 && (best == 9 || logits[i] > logits[best])) best = i;
  }
  const exactsample_rng start = [&] { exactsample_rng r{}; exactsample_llama_rng(es, &r); return r; }();
  EXPECT_EQ(exactsample_llama_sample(es, ctx, -1), static_cast<llama_token>(best));
  ExpectLogged({"NaN", "id " + std::to_string(best)});
  exactsample_rng now{};
  ASSERT_EQ(exactsample_llama_rng(es, &now), EXACTSAMPLE_OK);
  EXPECT_EQ(now.draws_u32, start.draws_u32);
  llama_free(ctx);
}

INSTANTIATE_TEST_SUITE_P(Logprob, Fixture,
                         ::testing::Values(EXACTSAMPLE_LLAMA_LOGPROB_EVERY_TOKEN,
                                           EXACTSAMPLE_LLAMA_LOGPROB_ON_REQUEST,
                                           EXACTSAMPLE_LLAMA_LOGPROB_OFF));

// A logprob mode that is none of the three is refused, named, and the mode
// stays what it was.
TEST(BadInit, AnotherLogprobModeIsRefused) {
  const exactsample_params p = Nucleus();
  llama_sampler* es = exactsample_llama_init(loop::Vocab(V), &p, nullptr, 1);
  ASSERT_NE(es, nullptr);
  ASSERT_EQ(exactsample_llama_set_logprob(es, EXACTSAMPLE_LLAMA_LOGPROB_OFF), EXACTSAMPLE_OK);
  for (int mode : {3, -1, INT_MAX}) {
    EXPECT_EQ(exactsample_llama_set_logprob(es, mode), EXACTSAMPLE_INVALID_ARGUMENT);
    ExpectLogged({"set_logprob", "mode = " + std::to_string(mode), "unchanged"});
  }
  std::vector<llama_token_data> data = Dense();
  llama_token_data_array cur = {data.data(), data.size(), -1, false};
  llama_sampler_apply(es, &cur);
  exactsample_token last{};
  ASSERT_EQ(exactsample_llama_last(es, &last), EXACTSAMPLE_OK);
  EXPECT_EQ(last.status, EXACTSAMPLE_OK);
  EXPECT_TRUE(std::isnan(last.logprob));
  EXPECT_TRUE(loop::TakeErrors().empty());
  llama_sampler_free(es);
}

TEST(BadInit, ParametersOutOfRangeMakeNoSampler) {
  exactsample_params p = Nucleus();
  p.top_p = -0.5;
  EXPECT_EQ(exactsample_llama_init(loop::Vocab(V), &p, nullptr, 1), nullptr);
  ExpectLogged({"top_p", "-0.5", "no sampler made"});
  p = Nucleus();
  p.penalty_last_n = -2;
  EXPECT_EQ(exactsample_llama_init(loop::Vocab(V), &p, nullptr, 1), nullptr);
  ExpectLogged({"penalty_last_n", "-2"});
  EXPECT_EQ(exactsample_llama_init(nullptr, &p, nullptr, 1), nullptr);
  ExpectLogged({"vocab is NULL"});
  std::vector<int32_t> banned = {static_cast<int32_t>(V)};
  exactsample_extras extras{};
  extras.struct_size = sizeof extras;
  extras.banned_ids = banned.data();
  extras.banned_len = 1;
  p = Nucleus();
  EXPECT_EQ(exactsample_llama_init(loop::Vocab(V), &p, &extras, 1), nullptr);
  ExpectLogged({"banned", std::to_string(V)});
}

TEST(BadInit, CorruptSnapshotMakesNoSampler) {
  const exactsample_params p = Nucleus();
  llama_sampler* es = exactsample_llama_init(loop::Vocab(V), &p, nullptr, 1);
  ASSERT_NE(es, nullptr);
  std::vector<unsigned char> bytes = Snapshot(es);
  llama_sampler_free(es);
  std::vector<unsigned char> truncated(bytes.begin(), bytes.end() - 1);
  EXPECT_EQ(exactsample_llama_init_from_snapshot(loop::Vocab(V), truncated.data(), truncated.size()),
            nullptr);
  ExpectLogged({"snapshot", "no sampler made"});
  bytes[bytes.size() / 2] ^= 0x40;
  EXPECT_EQ(exactsample_llama_init_from_snapshot(loop::Vocab(V), bytes.data(), bytes.size()),
            nullptr);
  ExpectLogged({"snapshot"});
}

TEST(BadInit, SnapshotOfAnotherVocabularyMakesNoSampler) {
  const exactsample_params p = Nucleus();
  llama_sampler* es = exactsample_llama_init(loop::Vocab(V), &p, nullptr, 1);
  ASSERT_NE(es, nullptr);
  const std::vector<unsigned char> bytes = Snapshot(es);
  llama_sampler_free(es);
  EXPECT_EQ(exactsample_llama_init_from_snapshot(loop::Vocab(128256), bytes.data(), bytes.size()),
            nullptr);
  ExpectLogged({"512", "128256"});
}

TEST(BadInit, OtherSamplersAreRefusedByTheAccessors) {
  llama_sampler* greedy = llama_sampler_init_greedy();
  exactsample_token t{};
  exactsample_rng r{};
  size_t size = 0;
  EXPECT_EQ(exactsample_llama_last(greedy, &t), EXACTSAMPLE_INVALID_ARGUMENT);
  EXPECT_EQ(exactsample_llama_rng(greedy, &r), EXACTSAMPLE_INVALID_ARGUMENT);
  EXPECT_EQ(exactsample_llama_snapshot(greedy, nullptr, 0, &size), EXACTSAMPLE_INVALID_ARGUMENT);
  EXPECT_EQ(exactsample_llama_last(nullptr, &t), EXACTSAMPLE_INVALID_ARGUMENT);
  EXPECT_EQ(exactsample_llama_set_logprob(greedy, EXACTSAMPLE_LLAMA_LOGPROB_OFF),
            EXACTSAMPLE_INVALID_ARGUMENT);
  EXPECT_EQ(exactsample_llama_set_logprob(nullptr, EXACTSAMPLE_LLAMA_LOGPROB_OFF),
            EXACTSAMPLE_INVALID_ARGUMENT);
  llama_sampler_free(greedy);
}

}  // namespace
