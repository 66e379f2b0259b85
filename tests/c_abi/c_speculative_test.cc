// The speculative C ABI (exactsample_distribution, exactsample_verify and
// its batch): results equal the C++ API's bit for bit on both engines, rows
// as pointers or as a matrix, and every bad argument is named, with no draw
// and nothing written.
#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

#include "exactsample.h"
#include "exactsample/speculative.hpp"
#include "tests/support/c_cases.hpp"
#include "tests/support/random_verifications.hpp"
#include "tests/support/test_util.hpp"

namespace {

using exactsample::test::Bits;
using exactsample::test::CParams;
using exactsample::test::MakeVerification;
using exactsample::test::RandomVerification;
using exactsample::test::Rows;
using exactsample::test::Spans;

struct Sampler {
  explicit Sampler(exactsample_engine engine) {
    EXPECT_EQ(exactsample_sampler_create(engine, &s), EXACTSAMPLE_OK);
  }
  ~Sampler() { exactsample_sampler_destroy(s); }
  exactsample_sampler* s = nullptr;
};

// A verification's C arguments over a RandomVerification, rows as pointers
// or (`matrix`) copied into one matrix with a stride of V + 3.
struct CVerification {
  explicit CVerification(const RandomVerification& v, bool matrix) {
    const size_t vocab = v.target[0].size(), gamma = v.ids.size();
    params = CParams(v.base.params);
    if (v.draft_params) draft_params = CParams(*v.draft_params);
    extras.struct_size = sizeof extras;
    extras.bias_ids = v.base.bias_ids.data();
    extras.bias_values = v.base.bias_values.data();
    extras.bias_len = v.base.bias_ids.size();
    extras.allowed_ids = v.base.allowed.data();
    extras.allowed_len = v.base.allowed.size();
    extras.banned_ids = v.base.banned.data();
    extras.banned_len = v.base.banned.size();
    extras.allowed_bitmask = v.base.allowed_bits.data();
    extras.allowed_bitmask_words = v.base.allowed_bits.size();
    extras.top_logprobs = v.base.params.top_logprobs;
    drafts.struct_size = sizeof drafts;
    drafts.gamma = gamma;
    drafts.draft_ids = v.ids.data();
    drafts.vocab = vocab;
    drafts.draft_params = v.draft_params ? &draft_params : nullptr;
    if (matrix) {
      stride = vocab + 3;
      target_matrix.assign((gamma + 1) * stride, 0.0f);
      draft_matrix.assign(gamma * stride, 0.0f);
      for (size_t j = 0; j <= gamma; ++j) {
        std::copy(v.target[j].begin(), v.target[j].end(), target_matrix.begin() + j * stride);
      }
      for (size_t j = 0; j < gamma; ++j) {
        std::copy(v.draft[j].begin(), v.draft[j].end(), draft_matrix.begin() + j * stride);
      }
      drafts.target_logits = target_matrix.data();
      drafts.target_stride = stride;
      drafts.draft_logits = draft_matrix.data();
      drafts.draft_stride = stride;
    } else {
      for (const auto& r : v.target) target_rows.push_back(r.data());
      for (const auto& r : v.draft) draft_rows.push_back(r.data());
      drafts.target_rows = target_rows.data();
      drafts.draft_rows = draft_rows.data();
    }
    const size_t n = static_cast<size_t>(std::max<int64_t>(extras.top_logprobs, 0));
    ids.assign(gamma + 1, -7);
    logprobs.assign(gamma + 1, 0.5);
    processed.assign(gamma + 1, 0.5);
    top_ids.assign((gamma + 1) * std::max<size_t>(n, 1), -7);
    top_values.assign(top_ids.size(), 0.5);
    top_counts.assign(gamma + 1, 99);
    out.struct_size = sizeof out;
    out.ids = ids.data();
    out.logprobs = logprobs.data();
    out.processed_logprobs = processed.data();
    out.top_ids = top_ids.data();
    out.top_logprob_values = top_values.data();
    out.top_counts = top_counts.data();
  }
  CVerification(const CVerification&) = delete;

  exactsample_status Run(exactsample_sampler* s, const RandomVerification& v,
                         exactsample_rng* rng) {
    return exactsample_verify(s, &drafts, v.base.prompt.data(), v.base.prompt.size(),
                              v.base.generated.data(), v.base.generated.size(), &params,
                              &extras, rng, &out);
  }

  exactsample_params params{}, draft_params{};
  exactsample_extras extras{};
  exactsample_drafts drafts{};
  exactsample_verified out{};
  size_t stride = 0;
  std::vector<float> target_matrix, draft_matrix;
  std::vector<const float*> target_rows, draft_rows;
  std::vector<int32_t> ids, top_ids;
  std::vector<double> logprobs, processed, top_values;
  std::vector<size_t> top_counts;
};

void ExpectEqual(const exactsample::Verified& want, const CVerification& c, size_t n,
                 const std::string& where) {
  ASSERT_EQ(c.out.count, want.tokens.size()) << where;
  EXPECT_EQ(c.out.accepted, want.accepted) << where;
  EXPECT_EQ(c.out.draws, want.draws) << where;
  for (size_t t = 0; t < want.tokens.size(); ++t) {
    const exactsample::Token& w = want.tokens[t];
    EXPECT_EQ(c.ids[t], w.id) << where;
    EXPECT_EQ(Bits(c.logprobs[t]), Bits(w.logprob)) << where;
    EXPECT_EQ(Bits(c.processed[t]), Bits(w.processed_logprob)) << where;
    ASSERT_EQ(c.top_counts[t], w.top_count) << where;
    for (size_t k = 0; k < w.top_count; ++k) {
      EXPECT_EQ(c.top_ids[t * n + k], w.top[k].id) << where;
      EXPECT_EQ(Bits(c.top_values[t * n + k]), Bits(w.top[k].logprob)) << where;
    }
  }
}

TEST(CSpeculative, VerifyEqualsTheCppApiOnBothEngines) {
  size_t compared = 0;
  for (uint64_t seed = 0; seed < 40; ++seed) {
    RandomVerification v = MakeVerification(seed, seed % 10 == 0 ? 100000 : 5000);
    for (auto engine : {EXACTSAMPLE_ENGINE_REFERENCE, EXACTSAMPLE_ENGINE_FAST}) {
      const std::string where = "seed " + std::to_string(seed) + " engine " +
                                std::to_string(engine);
      const auto t = Spans(v.target), d = Spans(v.draft);
      exactsample::Pcg32 rng = exactsample::stream(seed, exactsample::Purpose::sample);
      exactsample::Workspace ws;
      const auto want = exactsample::verify(
          v.base.At(v.base.generated), {t, d, v.ids, v.draft_params}, rng, ws,
          {.engine = engine == EXACTSAMPLE_ENGINE_FAST ? exactsample::Engine::fast
                                                       : exactsample::Engine::reference});
      Sampler s(engine);
      for (bool matrix : {false, true}) {
        CVerification c(v, matrix);
        exactsample_rng r;
        ASSERT_EQ(exactsample_rng_stream(seed, EXACTSAMPLE_PURPOSE_SAMPLE, &r), EXACTSAMPLE_OK);
        const exactsample_rng before = r;
        const exactsample_status status = c.Run(s.s, v, &r);
        ASSERT_EQ(status == EXACTSAMPLE_OK, want.ok()) << where << exactsample_sampler_last_error(s.s);
        if (!want) {
          EXPECT_EQ(std::string(exactsample_sampler_last_error(s.s)), want.error().message);
          EXPECT_EQ(std::memcmp(&r, &before, sizeof r), 0) << where;
          EXPECT_EQ(c.ids[0], -7) << where;  // nothing written
          continue;
        }
        ++compared;
        ExpectEqual(*want, c, static_cast<size_t>(v.base.params.top_logprobs), where);
        EXPECT_EQ(r.state, rng.state()) << where;
        EXPECT_EQ(r.draws_u32, rng.draws_u32()) << where;
      }
    }
  }
  EXPECT_GT(compared, 40u);
}

// exactsample_sequence_verify: the C++ stateless verification's results, the
// tokens appended and the generator advanced; on error nothing changes.
TEST(CSpeculative, ASequenceVerifiesAsTheCppApiAndAppends) {
  size_t compared = 0;
  for (uint64_t seed = 0; seed < 30; ++seed) {
    RandomVerification v = MakeVerification(seed, seed % 10 == 0 ? 100000 : 5000);
    const std::string where = "seed " + std::to_string(seed);
    const auto t = Spans(v.target), d = Spans(v.draft);
    exactsample::Pcg32 rng = exactsample::stream(seed, exactsample::Purpose::sample);
    exactsample::Workspace ws;
    const auto want = exactsample::verify(v.base.At(v.base.generated),
                                          {t, d, v.ids, v.draft_params}, rng, ws);
    Sampler s(EXACTSAMPLE_ENGINE_FAST);
    CVerification c(v, seed % 2 == 0);
    const exactsample_sequence_config config{sizeof(exactsample_sequence_config), v.target[0].size(),
                                             &c.params, &c.extras, seed, nullptr};
    exactsample_sequence* seq = nullptr;
    if (exactsample_sequence_create(s.s, &config, &seq) != EXACTSAMPLE_OK) continue;  // bad extras
    ASSERT_EQ(exactsample_sequence_accept_prompt(s.s, seq, v.base.prompt.data(),
                                                 v.base.prompt.size()),
              EXACTSAMPLE_OK);
    for (const int32_t id : v.base.generated) {
      ASSERT_EQ(exactsample_sequence_accept(s.s, seq, id), EXACTSAMPLE_OK);
    }
    const exactsample_status status = exactsample_sequence_verify(s.s, seq, &c.drafts, &c.out);
    ASSERT_EQ(status == EXACTSAMPLE_OK, want.ok()) << where << exactsample_sampler_last_error(s.s);
    size_t generated = 0;
    exactsample_rng r;
    exactsample_sequence_lengths(seq, nullptr, &generated);
    exactsample_sequence_rng(seq, &r);
    if (want) {
      ++compared;
      ExpectEqual(*want, c, static_cast<size_t>(v.base.params.top_logprobs), where);
      EXPECT_EQ(generated, v.base.generated.size() + want->tokens.size()) << where;
      EXPECT_EQ(r.state, rng.state()) << where;
      EXPECT_EQ(r.draws_u32, rng.draws_u32()) << where;
    } else {
      EXPECT_EQ(std::string(exactsample_sampler_last_error(s.s)), want.error().message) << where;
      EXPECT_EQ(generated, v.base.generated.size()) << where;
      EXPECT_EQ(r.draws_u32, 0u) << where;
      EXPECT_EQ(c.ids[0], -7) << where;  // nothing written
    }
    // Bad arguments: named, nothing changed.
    exactsample_verified no_top = c.out;
    no_top.top_ids = nullptr;
    const auto expect_bad = [&](exactsample_status code, const std::string& message) {
      EXPECT_EQ(code, EXACTSAMPLE_INVALID_ARGUMENT) << where;
      EXPECT_EQ(std::string(exactsample_sampler_last_error(s.s)), message) << where;
    };
    expect_bad(exactsample_sequence_verify(s.s, nullptr, &c.drafts, &c.out), "sequence is NULL");
    expect_bad(exactsample_sequence_verify(s.s, seq, nullptr, &c.out), "drafts is NULL");
    expect_bad(exactsample_sequence_verify(s.s, seq, &c.drafts, nullptr), "out is NULL");
    if (v.base.params.top_logprobs > 0) {
      expect_bad(exactsample_sequence_verify(s.s, seq, &c.drafts, &no_top),
                 "the sequence's top_logprobs = " + std::to_string(v.base.params.top_logprobs) +
                     " needs out.top_ids and out.top_logprob_values (one is NULL)");
    }
    size_t after = 0;
    exactsample_sequence_lengths(seq, nullptr, &after);
    EXPECT_EQ(after, generated) << where;
    exactsample_sequence_destroy(seq);
  }
  EXPECT_GT(compared, 15u);
}

TEST(CSpeculative, TheBatchIsEachVerificationAlone) {
  std::vector<RandomVerification> vs;
  for (uint64_t seed = 0; seed < 12; ++seed) {
    vs.push_back(MakeVerification(seed + 500, 3000));
  }
  Sampler s(EXACTSAMPLE_ENGINE_FAST), one(EXACTSAMPLE_ENGINE_FAST);
  std::vector<std::unique_ptr<CVerification>> batch, alone;
  std::vector<exactsample_rng> rngs(vs.size()), alone_rngs(vs.size());
  std::vector<exactsample_verification> args;
  for (size_t i = 0; i < vs.size(); ++i) {
    batch.push_back(std::make_unique<CVerification>(vs[i], i % 2 == 0));
    alone.push_back(std::make_unique<CVerification>(vs[i], false));
    exactsample_rng_stream(i, EXACTSAMPLE_PURPOSE_SAMPLE, &rngs[i]);
    alone_rngs[i] = rngs[i];
    const RandomVerification& v = vs[i];
    CVerification& c = *batch.back();
    args.push_back({&c.drafts, v.base.prompt.data(), v.base.prompt.size(),
                    v.base.generated.data(), v.base.generated.size(), &c.params, &c.extras,
                    &rngs[i], &c.out});
  }
  args[3].out = nullptr;  // one bad verification does not stop the others
  std::vector<exactsample_status> statuses(vs.size());
  const exactsample_status first =
      exactsample_verify_batch(s.s, args.data(), args.size(), statuses.data());
  EXPECT_EQ(statuses[3], EXACTSAMPLE_INVALID_ARGUMENT);
  EXPECT_EQ(std::string(exactsample_sampler_row_error(s.s, 3)), "verifications[3]: out is NULL");
  for (size_t i = 0; i < vs.size(); ++i) {
    if (i == 3) continue;
    const exactsample_status want = alone[i]->Run(one.s, vs[i], &alone_rngs[i]);
    ASSERT_EQ(statuses[i], want) << i;
    if (want != EXACTSAMPLE_OK) {
      EXPECT_EQ(std::string(exactsample_sampler_row_error(s.s, i)),
                "verifications[" + std::to_string(i) + "]: " +
                    exactsample_sampler_last_error(one.s));
      continue;
    }
    EXPECT_EQ(batch[i]->ids, alone[i]->ids) << i;
    EXPECT_EQ(batch[i]->out.draws, alone[i]->out.draws) << i;
    EXPECT_EQ(std::memcmp(&rngs[i], &alone_rngs[i], sizeof rngs[i]), 0) << i;
  }
  EXPECT_NE(first, EXACTSAMPLE_OK);
  EXPECT_EQ(exactsample_verify_batch(s.s, nullptr, 0, nullptr), EXACTSAMPLE_OK);
  EXPECT_EQ(exactsample_verify_batch(s.s, nullptr, 2, statuses.data()),
            EXACTSAMPLE_INVALID_ARGUMENT);
  EXPECT_EQ(std::string(exactsample_sampler_last_error(s.s)), "verifications or statuses is NULL");
}

TEST(CSpeculative, DistributionEqualsTheCppApiWithACapacity) {
  for (uint64_t seed = 0; seed < 30; ++seed) {
    RandomVerification v = MakeVerification(seed + 900, 5000);
    CVerification c(v, false);
    exactsample::Workspace ws;
    const auto want = exactsample::distribution(v.base.At(v.base.generated), ws);
    Sampler s(EXACTSAMPLE_ENGINE_FAST);
    size_t count = 99;
    const auto call = [&](int32_t* ids, double* probs, size_t capacity) {
      return exactsample_distribution(s.s, v.base.logits.data(), v.base.logits.size(),
                                      v.base.prompt.data(), v.base.prompt.size(),
                                      v.base.generated.data(), v.base.generated.size(),
                                      &c.params, &c.extras, ids, probs, capacity, &count);
    };
    const exactsample_status size_query = call(nullptr, nullptr, 0);
    ASSERT_EQ(size_query == EXACTSAMPLE_OK, want.ok()) << seed;
    if (!want) {
      EXPECT_EQ(count, 99u);
      EXPECT_EQ(std::string(exactsample_sampler_last_error(s.s)), want.error().message);
      continue;
    }
    ASSERT_EQ(count, want->size());
    std::vector<int32_t> ids(count + 1, -7);
    std::vector<double> probs(count + 1, 0.5);
    ASSERT_EQ(call(ids.data(), probs.data(), count > 1 ? count - 1 : count), EXACTSAMPLE_OK);
    const size_t written = count > 1 ? count - 1 : count;
    for (size_t j = 0; j < written; ++j) {
      EXPECT_EQ(ids[j], (*want)[j].id);
      EXPECT_EQ(Bits(probs[j]), Bits((*want)[j].q));
    }
    EXPECT_EQ(ids[written], -7);  // capacity entries at most
    EXPECT_EQ(count, want->size());
  }
}

// The page's worked example, for the error cases.
struct Example {
  Rows target = {{1.0f, 3.0f, 2.0f, 3.0f, -1.0f},
                 {0.5f, 1.0f, 2.5f, 0.0f, 1.0f},
                 {2.0f, 0.0f, 0.0f, 0.0f, 1.0f}};
  Rows draft = {{1.0f, 2.0f, 2.0f, 3.5f, -1.0f}, {0.0f, 1.0f, 3.0f, 0.0f, 0.0f}};
  std::vector<const float*> t = {target[0].data(), target[1].data(), target[2].data()};
  std::vector<const float*> d = {draft[0].data(), draft[1].data()};
  std::vector<int32_t> ids = {3, 2};
  exactsample_params params{};
  exactsample_drafts drafts{};
  int32_t out_ids[3] = {-7, -7, -7};
  exactsample_verified out{};
  Example() {
    exactsample_params_init(&params);
    params.top_k = 3;
    params.top_p = 0.9;
    drafts = {sizeof drafts, 2, ids.data(), 5, t.data(), nullptr, 0, d.data(), nullptr, 0,
              nullptr};
    out.struct_size = sizeof out;
    out.ids = out_ids;
  }
};

TEST(CSpeculative, TheWorkedExample) {
  Example ex;
  Sampler s(EXACTSAMPLE_ENGINE_REFERENCE);
  exactsample_rng rng;
  exactsample_rng_stream(3, EXACTSAMPLE_PURPOSE_SAMPLE, &rng);
  ASSERT_EQ(exactsample_verify(s.s, &ex.drafts, nullptr, 0, nullptr, 0, &ex.params, nullptr,
                               &rng, &ex.out),
            EXACTSAMPLE_OK)
      << exactsample_sampler_last_error(s.s);
  EXPECT_EQ(std::vector<int32_t>(ex.out_ids, ex.out_ids + 3), (std::vector<int32_t>{3, 2, 0}));
  EXPECT_EQ(ex.out.accepted, 2u);
  EXPECT_EQ(ex.out.draws, 3u);
  EXPECT_EQ(rng.draws_u32, 6u);
}

TEST(CSpeculative, EveryBadArgumentIsNamedWithNoDraw) {
  Sampler s(EXACTSAMPLE_ENGINE_FAST);
  const auto expect = [&](Example& ex, exactsample_status status, const std::string& message,
                          const exactsample_extras* extras = nullptr) {
    exactsample_rng rng;
    exactsample_rng_stream(3, EXACTSAMPLE_PURPOSE_SAMPLE, &rng);
    const exactsample_rng before = rng;
    EXPECT_EQ(exactsample_verify(s.s, &ex.drafts, nullptr, 0, nullptr, 0, &ex.params, extras,
                                 &rng, &ex.out),
              status)
        << message;
    EXPECT_EQ(std::string(exactsample_sampler_last_error(s.s)).substr(0, message.size()), message);
    EXPECT_EQ(std::memcmp(&rng, &before, sizeof rng), 0) << message;
    EXPECT_EQ(ex.out_ids[0], -7) << message;
  };
  {
    Example ex;
    ex.drafts.gamma = 0;
    expect(ex, EXACTSAMPLE_INVALID_PARAMETER, "draft_ids: empty");
  }
  {
    Example ex;
    ex.ids[1] = 5;
    expect(ex, EXACTSAMPLE_INVALID_IDS, "draft_ids[1] = 5: outside [0, V)");
  }
  {
    Example ex;
    ex.ids[0] = 4;
    expect(ex, EXACTSAMPLE_INVALID_PARAMETER, "draft_ids[0] = 4: its draft probability is 0");
  }
  {
    Example ex;
    ex.drafts.draft_rows = nullptr;
    expect(ex, EXACTSAMPLE_INVALID_LOGITS, "draft_logits: 0 rows for 2 drafts");
  }
  {
    Example ex;
    ex.target[0][1] = NAN;
    expect(ex, EXACTSAMPLE_INVALID_LOGITS, "logits[1]");
  }
  {
    Example ex;
    ex.t[2] = nullptr;
    expect(ex, EXACTSAMPLE_INVALID_ARGUMENT, "drafts.target_rows[2] is NULL");
  }
  {
    Example ex;
    ex.drafts.target_rows = nullptr;
    ex.drafts.target_logits = ex.target[0].data();
    ex.drafts.target_stride = 4;
    expect(ex, EXACTSAMPLE_INVALID_ARGUMENT, "drafts.target_rows: stride 4 < vocab 5");
    ex.drafts.target_rows = ex.t.data();
    expect(ex, EXACTSAMPLE_INVALID_ARGUMENT,
           "drafts.target_rows: give the row pointers or the matrix, not both");
  }
  {
    Example ex;
    ex.drafts.struct_size = 8;
    expect(ex, EXACTSAMPLE_INVALID_ARGUMENT, "drafts.struct_size = 8, expected");
    ex.drafts.struct_size = sizeof ex.drafts;
    ex.drafts.draft_ids = nullptr;
    expect(ex, EXACTSAMPLE_INVALID_ARGUMENT, "drafts.draft_ids is NULL with gamma > 0");
  }
  {
    Example ex;
    exactsample_params bad = ex.params;
    bad.struct_size = 4;
    ex.drafts.draft_params = &bad;
    expect(ex, EXACTSAMPLE_INVALID_ARGUMENT, "drafts.draft_params: exactsample_params.struct_size = 4");
    bad = ex.params;
    bad.min_p = 2.0;
    expect(ex, EXACTSAMPLE_INVALID_PARAMETER, "min_p");
  }
  {
    Example ex;
    ex.out.ids = nullptr;
    expect(ex, EXACTSAMPLE_INVALID_ARGUMENT, "out.ids is NULL");
    ex.out.ids = ex.out_ids;
    ex.out.struct_size = 1;
    expect(ex, EXACTSAMPLE_INVALID_ARGUMENT, "out.struct_size = 1, expected");
  }
  {
    Example ex;
    exactsample_extras extras{};
    extras.struct_size = sizeof extras;
    extras.top_logprobs = 2;
    expect(ex, EXACTSAMPLE_INVALID_ARGUMENT,
           "extras.top_logprobs = 2 needs out.top_ids and out.top_logprob_values", &extras);
    extras.top_logprobs = 0;
    extras.bias_len = 1;
    expect(ex, EXACTSAMPLE_INVALID_ARGUMENT, "extras.bias_ids is NULL with bias_len = 1",
           &extras);
  }
  {
    Example ex;
    exactsample_rng rng;
    exactsample_rng_stream(3, EXACTSAMPLE_PURPOSE_SAMPLE, &rng);
    EXPECT_EQ(exactsample_verify(s.s, nullptr, nullptr, 0, nullptr, 0, &ex.params, nullptr,
                                 &rng, &ex.out),
              EXACTSAMPLE_INVALID_ARGUMENT);
    EXPECT_EQ(std::string(exactsample_sampler_last_error(s.s)), "drafts is NULL");
    EXPECT_EQ(exactsample_verify(s.s, &ex.drafts, nullptr, 1, nullptr, 0, &ex.params, nullptr,
                                 &rng, &ex.out),
              EXACTSAMPLE_INVALID_ARGUMENT);
    EXPECT_EQ(std::string(exactsample_sampler_last_error(s.s)),
              "prompt is NULL with prompt_len > 0");
    EXPECT_EQ(exactsample_verify(s.s, &ex.drafts, nullptr, 0, nullptr, 0, nullptr, nullptr,
                                 &rng, &ex.out),
              EXACTSAMPLE_INVALID_ARGUMENT);
    EXPECT_EQ(std::string(exactsample_sampler_last_error(s.s)), "params is NULL");
    EXPECT_EQ(exactsample_verify(s.s, &ex.drafts, nullptr, 0, nullptr, 0, &ex.params, nullptr,
                                 nullptr, &ex.out),
              EXACTSAMPLE_INVALID_ARGUMENT);
    EXPECT_EQ(std::string(exactsample_sampler_last_error(s.s)), "rng is NULL");
    EXPECT_EQ(exactsample_verify(nullptr, &ex.drafts, nullptr, 0, nullptr, 0, &ex.params,
                                 nullptr, &rng, &ex.out),
              EXACTSAMPLE_INVALID_ARGUMENT);
    EXPECT_EQ(ex.out_ids[0], -7);
  }
  // exactsample_distribution's own arguments.
  Example ex;
  size_t count = 99;
  EXPECT_EQ(exactsample_distribution(s.s, nullptr, 5, nullptr, 0, nullptr, 0, &ex.params,
                                     nullptr, nullptr, nullptr, 0, &count),
            EXACTSAMPLE_INVALID_ARGUMENT);
  EXPECT_EQ(std::string(exactsample_sampler_last_error(s.s)), "logits is NULL with vocab > 0");
  EXPECT_EQ(exactsample_distribution(s.s, ex.target[0].data(), 5, nullptr, 0, nullptr, 0,
                                     &ex.params, nullptr, nullptr, nullptr, 0, nullptr),
            EXACTSAMPLE_INVALID_ARGUMENT);
  EXPECT_EQ(std::string(exactsample_sampler_last_error(s.s)), "count is NULL");
  EXPECT_EQ(exactsample_distribution(s.s, ex.target[0].data(), 5, nullptr, 0, nullptr, 0,
                                     &ex.params, nullptr, nullptr, nullptr, 2, &count),
            EXACTSAMPLE_INVALID_ARGUMENT);
  EXPECT_EQ(std::string(exactsample_sampler_last_error(s.s)),
            "ids or probs is NULL with capacity = 2");
  EXPECT_EQ(count, 99u);
  EXPECT_EQ(exactsample_distribution(nullptr, ex.target[0].data(), 5, nullptr, 0, nullptr, 0,
                                     &ex.params, nullptr, nullptr, nullptr, 0, &count),
            EXACTSAMPLE_INVALID_ARGUMENT);
}

}  // namespace
