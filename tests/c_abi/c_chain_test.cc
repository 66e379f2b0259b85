// The chain and llama.cpp's samplers through the C request struct
// (docs/llama-samplers.md, docs/c-abi.md): each field reaches the C++ API
// (the same ids, logprob bits and draws, stateless and on a sequence), older
// struct sizes read the defaults, the breakers are copied and never written,
// and every row of the page's "Bad input" table comes back with its message.
#include "exactsample.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstddef>
#include <cstring>
#include <functional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "exactsample/exactsample.hpp"
#include "exactsample/sequence.hpp"
#include "tests/support/c_handles.hpp"
#include "tests/support/test_util.hpp"

namespace {

namespace xs = exactsample;
using xs::test::Bits;
using xs::test::Sampler;
using xs::test::SequenceHandle;
using xs::test::StatelessRequest;

std::vector<float> Row(size_t vocab) {
  std::vector<float> x(vocab);
  for (size_t i = 0; i < vocab; ++i) x[i] = static_cast<float>(std::sin(0.61 * i) * 2.5);
  return x;
}

// A history with repeats, for DRY and the penalties.
const std::vector<int32_t> kPrompt = {4, 9, 4, 9, 17, 4, 9, 4};

// One setting of the new fields, written twice by hand: as the C struct and
// as the C++ struct, so a field the conversion drops or swaps shows.
struct Setting {
  const char* name;
  std::function<void(exactsample_params&)> c;
  std::function<void(xs::SamplingParams&)> cpp;
};

const int32_t kBreakerA[] = {17};
const int32_t kBreakerB[] = {9, 4};
const exactsample_ids kBreakers[] = {{kBreakerA, 1}, {kBreakerB, 2}};
const std::span<const int32_t> kBreakerViews[] = {kBreakerA, kBreakerB};

std::vector<Setting> Settings() {
  return {
      {"llama preset, the usual filters",
       [](exactsample_params& p) {
         p.chain_preset = EXACTSAMPLE_CHAIN_LLAMA;
         p.temperature = 0.8, p.top_k = 40, p.top_p = 0.95, p.min_p = 0.05, p.min_keep = 3;
       },
       [](xs::SamplingParams& p) {
         p.chain = xs::Chain::Llama();
         p.temperature = 0.8, p.top_k = 40, p.top_p = 0.95, p.min_p = 0.05, p.min_keep = 3;
       }},
      {"DRY with breakers, penalties",
       [](exactsample_params& p) {
         p.chain_preset = EXACTSAMPLE_CHAIN_LLAMA;
         p.repetition_penalty = 1.1, p.dry_multiplier = 0.8, p.dry_base = 1.5;
         p.dry_allowed_length = 1, p.dry_penalty_last_n = 6;
         p.dry_sequence_breakers = kBreakers, p.dry_sequence_breakers_len = 2;
       },
       [](xs::SamplingParams& p) {
         p.chain = xs::Chain::Llama();
         p.repetition_penalty = 1.1, p.dry_multiplier = 0.8, p.dry_base = 1.5;
         p.dry_allowed_length = 1, p.dry_penalty_last_n = 6;
         p.dry_sequence_breakers = kBreakerViews;
       }},
      {"a list: typical, top-n-sigma, XTC, dynamic temperature",
       [](exactsample_params& p) {
         static const int32_t steps[] = {EXACTSAMPLE_STEP_XTC, EXACTSAMPLE_STEP_TYPICAL,
                                         EXACTSAMPLE_STEP_TOP_N_SIGMA,
                                         EXACTSAMPLE_STEP_TEMPERATURE};
         p.chain_preset = EXACTSAMPLE_CHAIN_LIST, p.chain_steps = steps, p.chain_len = 4;
         p.typical_p = 0.9, p.top_n_sigma = 2.0, p.xtc_probability = 0.7;
         p.xtc_threshold = 0.05, p.dynatemp_range = 0.5, p.dynatemp_exponent = 1.3;
       },
       [](xs::SamplingParams& p) {
         p.chain = xs::Chain::List({xs::ChainStep::xtc, xs::ChainStep::typical,
                                    xs::ChainStep::top_n_sigma, xs::ChainStep::temperature});
         p.typical_p = 0.9, p.top_n_sigma = 2.0, p.xtc_probability = 0.7;
         p.xtc_threshold = 0.05, p.dynatemp_range = 0.5, p.dynatemp_exponent = 1.3;
       }},
      {"mirostat v1",
       [](exactsample_params& p) {
         p.mirostat = 1, p.mirostat_tau = 3.0, p.mirostat_eta = 0.2, p.mirostat_m = 7;
       },
       [](xs::SamplingParams& p) {
         p.mirostat = 1, p.mirostat_tau = 3.0, p.mirostat_eta = 0.2, p.mirostat_m = 7;
       }},
      {"adaptive-p",
       [](exactsample_params& p) { p.adaptive_target = 0.3, p.adaptive_decay = 0.5; },
       [](xs::SamplingParams& p) { p.adaptive_target = 0.3, p.adaptive_decay = 0.5; }},
  };
}

exactsample_params CDefaults() {
  exactsample_params p;
  exactsample_params_init(&p);
  return p;
}

xs::Engine EngineOf(exactsample_engine e) {
  return e == EXACTSAMPLE_ENGINE_FAST ? xs::Engine::fast : xs::Engine::reference;
}

constexpr exactsample_engine kEngines[] = {EXACTSAMPLE_ENGINE_REFERENCE, EXACTSAMPLE_ENGINE_FAST};

TEST(CChain, InitSetsTheCppDefaults) {
  exactsample_params c;
  std::memset(&c, 0x5a, sizeof c);
  exactsample_params_init(&c);
  const xs::SamplingParams d;
  EXPECT_EQ(c.struct_size, sizeof(exactsample_params));
  EXPECT_EQ(c.chain_preset, EXACTSAMPLE_CHAIN_SPEC);
  EXPECT_EQ(c.chain_steps, nullptr);
  EXPECT_EQ(c.chain_len, 0u);
  EXPECT_EQ(c.min_keep, d.min_keep);
  EXPECT_EQ(Bits(c.top_n_sigma), Bits(d.top_n_sigma));
  EXPECT_EQ(Bits(c.typical_p), Bits(d.typical_p));
  EXPECT_EQ(Bits(c.xtc_probability), Bits(d.xtc_probability));
  EXPECT_EQ(Bits(c.xtc_threshold), Bits(d.xtc_threshold));
  EXPECT_EQ(Bits(c.dry_multiplier), Bits(d.dry_multiplier));
  EXPECT_EQ(Bits(c.dry_base), Bits(d.dry_base));
  EXPECT_EQ(c.dry_allowed_length, d.dry_allowed_length);
  EXPECT_EQ(c.dry_penalty_last_n, d.dry_penalty_last_n);
  EXPECT_EQ(c.dry_sequence_breakers, nullptr);
  EXPECT_EQ(c.dry_sequence_breakers_len, 0u);
  EXPECT_EQ(Bits(c.dynatemp_range), Bits(d.dynatemp_range));
  EXPECT_EQ(Bits(c.dynatemp_exponent), Bits(d.dynatemp_exponent));
  EXPECT_EQ(c.mirostat, d.mirostat);
  EXPECT_EQ(Bits(c.mirostat_tau), Bits(d.mirostat_tau));
  EXPECT_EQ(Bits(c.mirostat_eta), Bits(d.mirostat_eta));
  EXPECT_EQ(c.mirostat_m, d.mirostat_m);
  EXPECT_EQ(Bits(c.adaptive_target), Bits(d.adaptive_target));
  EXPECT_EQ(Bits(c.adaptive_decay), Bits(d.adaptive_decay));
}

// Stateless tokens: each C setting gives the C++ API's ids, logprob bits
// and generator, on both engines, token after token.
TEST(CChain, StatelessEqualsTheCppApi) {
  const auto x = Row(64);
  for (const Setting& setting : Settings()) {
    for (const exactsample_engine engine : kEngines) {
      SCOPED_TRACE(setting.name);
      Sampler s(engine);
      exactsample_params p = CDefaults();
      setting.c(p);
      xs::SamplingParams want_params;
      setting.cpp(want_params);
      exactsample_rng rng;
      exactsample_rng_stream(11, EXACTSAMPLE_PURPOSE_SAMPLE, &rng);
      xs::Pcg32 cpp_rng = xs::stream(11, xs::Purpose::sample);
      xs::Workspace ws;
      std::vector<int32_t> generated;
      for (int step = 0; step < 12; ++step) {
        double logprob = 0;
        const exactsample_request r =
            StatelessRequest(x.data(), x.size(), kPrompt.data(), kPrompt.size(), generated.data(),
                             generated.size(), &p, nullptr, &rng, &logprob);
        exactsample_token t;
        ASSERT_EQ(exactsample_sample_request(s.s, nullptr, &r, &t), EXACTSAMPLE_OK)
            << exactsample_sampler_last_error(s.s);
        const auto want = xs::sample({x, kPrompt, generated, want_params}, cpp_rng, ws,
                                     {.engine = EngineOf(engine)});
        ASSERT_TRUE(want) << want.error().message;
        EXPECT_EQ(t.id, want->id);
        EXPECT_EQ(Bits(logprob), Bits(want->logprob));
        EXPECT_EQ(rng.state, cpp_rng.state());
        EXPECT_EQ(rng.draws_u32, cpp_rng.draws_u32());
        generated.push_back(t.id);
      }
    }
  }
}

// A sequence made from a C struct whose breakers the caller then overwrites
// samples as the C++ Sequence made with them: it copied the ids. Mirostat's
// and adaptive-p's state go along from token to token, whether the request
// appends the token or the caller accepts it after.
TEST(CChain, SequenceCopiesTheBreakersAndCarriesTheState) {
  const auto x = Row(64);
  for (const Setting& setting : Settings()) {
    SCOPED_TRACE(setting.name);
    Sampler s;
    std::vector<int32_t> a(std::begin(kBreakerA), std::end(kBreakerA));
    std::vector<int32_t> b(std::begin(kBreakerB), std::end(kBreakerB));
    const exactsample_ids breakers[] = {{a.data(), a.size()}, {b.data(), b.size()}};
    exactsample_params p = CDefaults();
    setting.c(p);
    if (p.dry_sequence_breakers_len != 0) p.dry_sequence_breakers = breakers;
    exactsample_sequence_config config{};
    config.struct_size = sizeof config;
    config.vocab = x.size();
    config.params = &p;
    config.seed = 5;
    SequenceHandle q;
    ASSERT_EQ(exactsample_sequence_create(s.s, &config, &q.p), EXACTSAMPLE_OK)
        << exactsample_sampler_last_error(s.s);
    ASSERT_EQ(exactsample_sequence_accept_prompt(s.s, q.p, kPrompt.data(), kPrompt.size()),
              EXACTSAMPLE_OK);
    a.assign(a.size(), 63);
    b.assign(b.size(), 62);
    xs::SamplingParams want_params;
    setting.cpp(want_params);
    auto made = xs::Sequence::create(x.size(), want_params, xs::stream(5, xs::Purpose::sample));
    ASSERT_TRUE(made) << made.error().message;
    xs::Sequence want_seq = std::move(made.value());
    ASSERT_TRUE(want_seq.accept_prompt(kPrompt));
    xs::Workspace ws;
    for (int step = 0; step < 12; ++step) {
      // Every other token is drawn without appending, then accepted (as
      // llama.cpp's apply then accept): the same state moves.
      exactsample_request r = StatelessRequest(x.data(), x.size(), nullptr, 0, nullptr, 0,
                                               nullptr, nullptr, nullptr, nullptr);
      r.accept = step % 2;
      exactsample_token t;
      ASSERT_EQ(exactsample_sample_request(s.s, q.p, &r, &t), EXACTSAMPLE_OK)
          << exactsample_sampler_last_error(s.s);
      if (r.accept == 0) {
        ASSERT_EQ(exactsample_sequence_accept(s.s, q.p, t.id), EXACTSAMPLE_OK);
      }
      const auto want = want_seq.sample({.logits = x}, ws);
      ASSERT_TRUE(want) << want.error().message;
      EXPECT_EQ(t.id, want->id) << "token " << step;
    }
    exactsample_rng rng;
    ASSERT_EQ(exactsample_sequence_rng(q.p, &rng), EXACTSAMPLE_OK);
    EXPECT_EQ(rng.draws_u32, want_seq.rng().draws_u32());
  }
}

// A batch of sequences, each setting on its own: every row's tokens are its
// C++ Sequence's, the rows that carry state among the others.
TEST(CChain, BatchOfSequencesEqualsTheCppSequences) {
  const auto x = Row(64);
  const std::vector<Setting> settings = Settings();
  const size_t n = settings.size();
  Sampler s;
  std::vector<exactsample_params> params(n, CDefaults());
  std::vector<SequenceHandle> handles(n);
  std::vector<exactsample_sequence*> sequences(n);
  std::vector<xs::Sequence> want;
  for (size_t i = 0; i < n; ++i) {
    settings[i].c(params[i]);
    exactsample_sequence_config config{};
    config.struct_size = sizeof config;
    config.vocab = x.size();
    config.params = &params[i];
    config.seed = 20 + i;
    ASSERT_EQ(exactsample_sequence_create(s.s, &config, &handles[i].p), EXACTSAMPLE_OK)
        << exactsample_sampler_last_error(s.s);
    sequences[i] = handles[i].p;
    xs::SamplingParams p;
    settings[i].cpp(p);
    auto made = xs::Sequence::create(x.size(), p, xs::stream(20 + i, xs::Purpose::sample));
    ASSERT_TRUE(made) << made.error().message;
    want.push_back(std::move(made.value()));
  }
  xs::Workspace ws;
  for (int step = 0; step < 10; ++step) {
    std::vector<exactsample_request> requests;
    for (size_t i = 0; i < n; ++i) {
      requests.push_back(StatelessRequest(x.data(), x.size(), nullptr, 0, nullptr, 0, nullptr,
                                          nullptr, nullptr, nullptr));
      requests.back().accept = 1;
    }
    std::vector<exactsample_token> results(n);
    ASSERT_EQ(exactsample_sample_requests(s.s, sequences.data(), requests.data(), n,
                                          results.data(), 2),
              EXACTSAMPLE_OK)
        << exactsample_sampler_last_error(s.s);
    for (size_t i = 0; i < n; ++i) {
      const auto t = want[i].sample({.logits = x}, ws);
      ASSERT_TRUE(t) << t.error().message;
      EXPECT_EQ(results[i].id, t->id) << settings[i].name << ", token " << step;
    }
  }
}

// A struct_size that ends before the chain's fields (the previous version's)
// reads them as the defaults, whatever they hold.
TEST(CChain, OlderStructReadsTheDefaults) {
  const auto x = Row(64);
  Sampler s;
  exactsample_params old = CDefaults();
  old.struct_size = offsetof(exactsample_params, chain_preset);
  old.temperature = 0.7;
  old.chain_preset = 99;  // beyond the older struct: not read
  old.mirostat = 2;
  old.dry_sequence_breakers_len = 5;
  exactsample_params now = CDefaults();
  now.temperature = 0.7;
  for (const exactsample_params* p : {&old, &now}) {
    exactsample_rng rng;
    exactsample_rng_stream(3, EXACTSAMPLE_PURPOSE_SAMPLE, &rng);
    const exactsample_request r = StatelessRequest(x.data(), x.size(), nullptr, 0, nullptr, 0, p,
                                                   nullptr, &rng, nullptr);
    exactsample_token t;
    ASSERT_EQ(exactsample_sample_request(s.s, nullptr, &r, &t), EXACTSAMPLE_OK)
        << exactsample_sampler_last_error(s.s);
    xs::Pcg32 cpp_rng = xs::stream(3, xs::Purpose::sample);
    xs::Workspace ws;
    xs::SamplingParams want_params;
    want_params.temperature = 0.7;
    const auto want = xs::sample({x, {}, {}, want_params}, cpp_rng, ws);
    ASSERT_TRUE(want);
    EXPECT_EQ(t.id, want->id);
    EXPECT_EQ(rng.state, cpp_rng.state());
  }
}

struct BadCase {
  const char* what;
  std::function<void(exactsample_params&)> set;
  exactsample_status status;
  std::string message;
};

const int32_t kIds0[] = {1};
const int32_t kIds22[22] = {};
const int32_t kIdsOut[] = {9};
const exactsample_ids kEmptyFirst[] = {{nullptr, 0}};
const exactsample_ids kLongSecond[] = {{kIds0, 1}, {kIds22, 22}};
const exactsample_ids kOutsideThird[] = {{kIds0, 1}, {kIds0, 1}, {kIdsOut, 1}};
const exactsample_ids kNullIds[] = {{kIds0, 1}, {nullptr, 3}};

std::vector<BadCase> BadCases() {
  const auto bad = EXACTSAMPLE_INVALID_PARAMETER;
  const auto arg = EXACTSAMPLE_INVALID_ARGUMENT;
  return {
      // The page's table, in its order, with its messages (V = 4).
      {"min_keep", [](auto& p) { p.min_keep = -1; }, bad, "min_keep = -1: must be >= 0"},
      {"top_n_sigma", [](auto& p) { p.top_n_sigma = -1; }, bad,
       "top_n_sigma = -1.0: must be finite and >= 0 (0: off)"},
      {"typical_p", [](auto& p) { p.typical_p = NAN; }, bad,
       "typical_p = nan: must be >= 0 (1 or more: off)"},
      {"xtc_probability", [](auto& p) { p.xtc_probability = 1.5; }, bad,
       "xtc_probability = 1.5: must be in [0, 1]"},
      {"xtc_threshold", [](auto& p) { p.xtc_threshold = -0.1; }, bad,
       "xtc_threshold = -0.1: must be in [0, 1] (above 0.5: off)"},
      {"dry_multiplier", [](auto& p) { p.dry_multiplier = -1; }, bad,
       "dry_multiplier = -1.0: must be finite and >= 0 (0: off)"},
      {"dry_base", [](auto& p) { p.dry_base = 0.5; }, bad, "dry_base = 0.5: must be finite and >= 1"},
      {"dry_allowed_length", [](auto& p) { p.dry_allowed_length = -1; }, bad,
       "dry_allowed_length = -1: must be >= 0"},
      {"dry_penalty_last_n", [](auto& p) { p.dry_penalty_last_n = -1; }, bad,
       "dry_penalty_last_n = -1: must be >= 0 (0: off)"},
      {"an empty breaker",
       [](auto& p) { p.dry_sequence_breakers = kEmptyFirst, p.dry_sequence_breakers_len = 1; },
       bad, "dry_sequence_breakers[0]: empty"},
      {"a breaker of 22 ids",
       [](auto& p) { p.dry_sequence_breakers = kLongSecond, p.dry_sequence_breakers_len = 2; },
       bad, "dry_sequence_breakers[1]: 22 ids, at most 21"},
      {"a breaker id outside the row",
       [](auto& p) { p.dry_sequence_breakers = kOutsideThird, p.dry_sequence_breakers_len = 3; },
       bad, "dry_sequence_breakers[2][0] = 9: outside [0, 4)"},
      {"dynatemp_range", [](auto& p) { p.dynatemp_range = -0.5; }, bad,
       "dynatemp_range = -0.5: must be finite and >= 0 (0: off)"},
      {"dynatemp_exponent", [](auto& p) { p.dynatemp_exponent = -1; }, bad,
       "dynatemp_exponent = -1.0: must be finite and >= 0"},
      {"mirostat", [](auto& p) { p.mirostat = 3; }, bad, "mirostat = 3: must be 0, 1 or 2"},
      {"mirostat_tau", [](auto& p) { p.mirostat_tau = -1; }, bad,
       "mirostat_tau = -1.0: must be finite and >= 0"},
      {"mirostat_eta", [](auto& p) { p.mirostat_eta = INFINITY; }, bad,
       "mirostat_eta = inf: must be finite and >= 0"},
      {"mirostat_m", [](auto& p) { p.mirostat_m = 1; }, bad, "mirostat_m = 1: must be >= 2"},
      {"adaptive_target", [](auto& p) { p.adaptive_target = 2; }, bad,
       "adaptive_target = 2.0: must be <= 1 (below 0: off)"},
      {"adaptive_decay", [](auto& p) { p.adaptive_decay = 1; }, bad,
       "adaptive_decay = 1.0: must be in [0, 0.99]"},
      {"a step listed twice",
       [](auto& p) {
         static const int32_t steps[] = {EXACTSAMPLE_STEP_TOP_K, EXACTSAMPLE_STEP_TOP_K};
         p.chain_preset = EXACTSAMPLE_CHAIN_LIST, p.chain_steps = steps, p.chain_len = 2;
       },
       bad, "chain[1] = 'top_k': listed twice"},
      {"a step on but not listed",
       [](auto& p) {
         static const int32_t steps[] = {EXACTSAMPLE_STEP_TOP_K};
         p.chain_preset = EXACTSAMPLE_CHAIN_LIST, p.chain_steps = steps, p.chain_len = 1;
         p.top_p = 0.9;
       },
       bad, "chain: top_p = 0.9 is on but the chain has no top_p step"},
      {"a filter with mirostat", [](auto& p) { p.mirostat = 2, p.top_k = 40; }, bad,
       "top_k = 40: mirostat = 2 replaces the filters; set top_k = 0"},
      {"adaptive-p with mirostat", [](auto& p) { p.mirostat = 1, p.adaptive_target = 0.5; }, bad,
       "adaptive_target = 0.5: mirostat = 1 replaces the terminal; set adaptive_target = -1"},
      // What only a C caller can get wrong: an int that is no enum value, an
      // array missing for its length.
      {"a preset that is none", [](auto& p) { p.chain_preset = 7; }, arg,
       "request.params.chain_preset = 7: EXACTSAMPLE_CHAIN_SPEC (0), EXACTSAMPLE_CHAIN_LLAMA (1) "
       "or EXACTSAMPLE_CHAIN_LIST (2)"},
      {"steps without the list preset",
       [](auto& p) {
         static const int32_t steps[] = {EXACTSAMPLE_STEP_TOP_K};
         p.chain_preset = EXACTSAMPLE_CHAIN_LLAMA, p.chain_steps = steps, p.chain_len = 1;
       },
       arg,
       "request.params.chain_len = 1 with chain_preset = 1: the steps are read only with "
       "EXACTSAMPLE_CHAIN_LIST (2)"},
      {"no steps for a length",
       [](auto& p) { p.chain_preset = EXACTSAMPLE_CHAIN_LIST, p.chain_len = 2; }, arg,
       "request.params.chain_steps is NULL with chain_len = 2"},
      {"a step that is none",
       [](auto& p) {
         static const int32_t steps[] = {EXACTSAMPLE_STEP_TOP_K, 9};
         p.chain_preset = EXACTSAMPLE_CHAIN_LIST, p.chain_steps = steps, p.chain_len = 2;
       },
       arg,
       "request.params.chain_steps[1] = 9: not a step (EXACTSAMPLE_STEP_PENALTIES (0) to "
       "EXACTSAMPLE_STEP_TEMPERATURE (8))"},
      {"no breakers for a length", [](auto& p) { p.dry_sequence_breakers_len = 2; }, arg,
       "request.params.dry_sequence_breakers is NULL with dry_sequence_breakers_len = 2"},
      {"no ids for a breaker's length",
       [](auto& p) { p.dry_sequence_breakers = kNullIds, p.dry_sequence_breakers_len = 2; }, arg,
       "request.params.dry_sequence_breakers[1].ids is NULL with len = 3"},
  };
}

// Each refusal: its status and message, and nothing the caller passed
// written (the generator, the struct, the breakers' ids).
TEST(CChain, EveryBadInputIsRefusedByName) {
  const float x[4] = {0.5f, 1.5f, -1.0f, 0.25f};
  for (const exactsample_engine engine : kEngines) {
    Sampler s(engine);
    for (const BadCase& c : BadCases()) {
      SCOPED_TRACE(c.what);
      exactsample_params p = CDefaults();
      c.set(p);
      exactsample_params before;
      std::memcpy(&before, &p, sizeof p);
      exactsample_rng rng;
      exactsample_rng_stream(1, EXACTSAMPLE_PURPOSE_SAMPLE, &rng);
      const exactsample_rng rng_before = rng;
      double logprob = 7;
      const exactsample_request r =
          StatelessRequest(x, 4, nullptr, 0, nullptr, 0, &p, nullptr, &rng, &logprob);
      exactsample_token t;
      EXPECT_EQ(exactsample_sample_request(s.s, nullptr, &r, &t), c.status);
      EXPECT_EQ(exactsample_sampler_last_error(s.s), c.message);
      EXPECT_EQ(std::memcmp(&before, &p, sizeof p), 0);
      EXPECT_EQ(rng.state, rng_before.state);
      EXPECT_EQ(rng.draws_u32, rng_before.draws_u32);
      EXPECT_EQ(logprob, 7);
      EXPECT_EQ(kIds22[0], 0);
      EXPECT_EQ(kIdsOut[0], 9);
    }
  }
}

// The rows the steps find: DRY that leaves no finite logit, and a chain that
// draws where the distribution must be fixed.
TEST(CChain, TheStepsRefusalsToo) {
  Sampler s;
  const float x[4] = {-INFINITY, -INFINITY, -INFINITY, 1.0f};
  const int32_t history[] = {3, 3, 3};
  exactsample_params p = CDefaults();
  p.dry_multiplier = 1e308, p.dry_allowed_length = 0;
  exactsample_rng rng;
  exactsample_rng_stream(1, EXACTSAMPLE_PURPOSE_SAMPLE, &rng);
  const exactsample_request r =
      StatelessRequest(x, 4, history, 3, nullptr, 0, &p, nullptr, &rng, nullptr);
  exactsample_token t;
  EXPECT_EQ(exactsample_sample_request(s.s, nullptr, &r, &t), EXACTSAMPLE_DEGENERATE);
  EXPECT_STREQ(exactsample_sampler_last_error(s.s),
               "dry_multiplier = 1e+308: DRY makes every logit -inf");

  const float row[4] = {0.5f, 1.5f, -1.0f, 0.25f};
  p = CDefaults();
  p.xtc_probability = 0.5;
  int32_t ids[4];
  double probs[4];
  size_t count = 0;
  EXPECT_EQ(exactsample_distribution(s.s, row, 4, nullptr, 0, nullptr, 0, &p, nullptr, ids, probs,
                                     4, &count),
            EXACTSAMPLE_INVALID_PARAMETER);
  EXPECT_STREQ(exactsample_sampler_last_error(s.s),
               "xtc_probability = 0.5: verification needs a fixed distribution; XTC draws");
}

}  // namespace
