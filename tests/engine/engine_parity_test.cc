// The fast engine equals the reference on every compiled and supported
// target: the same id, the same logprob bits, the same generator position,
// or the same error.
#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <string>
#include <utility>
#include <vector>

#include "exactsample/exactsample.hpp"
#include "exactsample/targets.hpp"
#include "exactsample/testing.hpp"
#include "lib/engine/workspace.hpp"
#include "tools/lib/standard_inputs.hpp"
#include "tests/support/random_requests.hpp"
#include "tests/support/test_util.hpp"

namespace exactsample {
namespace {

constexpr int kSteps = 3;

// What a call returns, and with `traced` the intermediate values too: the
// kept set after each filter and step 9 to 11's Z, u and running sum.
struct Outcome {
  std::vector<int32_t> ids;
  std::vector<uint64_t> logprob_bits;
  std::vector<uint64_t> processed_bits;
  std::vector<std::pair<int32_t, uint64_t>> top;  // every token's, one after another
  std::vector<std::vector<int32_t>> kept_sets;
  std::vector<uint64_t> trace_bits;
  std::string error;
  uint64_t draws_u32 = 0;
  bool operator==(const Outcome&) const = default;
};

enum class Mode { plain, traced, no_logprob };

Outcome RunCase(const test::RandomCase& c, Engine engine, Workspace& ws,
                Mode mode = Mode::plain, int threads = 1) {
  Outcome out;
  Pcg32 rng = stream(c.seed, Purpose::sample);
  std::vector<int32_t> generated = c.generated;
  for (int step = 0; step < kSteps; ++step) {
    Trace trace;
    const auto t = sample(
        c.At(generated), rng, ws,
        {.engine = engine,
         .trace = mode == Mode::traced ? &trace : nullptr,
         .logprob = mode != Mode::no_logprob,
         .threads = threads});
    if (!t) {
      out.error = t.error().message;
      break;
    }
    out.ids.push_back(t->id);
    out.logprob_bits.push_back(test::Bits(t->logprob));
    out.processed_bits.push_back(test::Bits(t->processed_logprob));
    for (const TopLogprob& e : t->top_logprobs()) out.top.emplace_back(e.id, test::Bits(e.logprob));
    generated.push_back(t->id);
    if (mode == Mode::traced) {
      out.kept_sets.push_back(trace.kept_top_k);
      out.kept_sets.push_back(trace.kept_top_p);
      out.kept_sets.push_back(trace.kept_min_p);
      for (double v : {trace.max_logit, trace.z_all, trace.z_kept, trace.u,
                       trace.cdf_at_choice}) {
        out.trace_bits.push_back(test::Bits(v));
      }
    }
  }
  out.draws_u32 = rng.draws_u32();
  return out;
}

std::string Describe(const test::RandomCase& c) {
  const SamplingParams& p = c.params;
  return "seed " + std::to_string(c.seed) + " V=" + std::to_string(c.logits.size()) +
         " T=" + std::to_string(p.temperature) + " k=" + std::to_string(p.top_k) +
         " p=" + std::to_string(p.top_p) + " m=" + std::to_string(p.min_p) +
         " r=" + std::to_string(p.repetition_penalty) +
         " N=" + std::to_string(p.top_logprobs) + " bias " + std::to_string(c.bias_ids.size()) +
         " allowed " + std::to_string(c.allowed.size()) + " banned " +
         std::to_string(c.banned.size()) + " bits " + std::to_string(c.allowed_bits.size());
}

// Without the logprob: the same ids, draws and errors as `want`, the
// logprob NaN.
void ExpectSameWithoutLogprob(Outcome quiet, Outcome want, const std::string& what) {
  for (uint64_t& bits : quiet.logprob_bits) {
    EXPECT_TRUE(std::isnan(std::bit_cast<double>(bits))) << what;
    bits = 0;
  }
  for (uint64_t& bits : want.logprob_bits) bits = 0;
  EXPECT_EQ(quiet, want) << "logprob off " << what;
}

std::vector<std::string> SupportedTargets() {
  std::vector<std::string> names;
  for (const TargetInfo& t : compiled_targets()) {
    if (t.supported) names.push_back(t.name);
  }
  return names;
}

// Every case on every target; the traced and logprob-off runs (other
// outputs of the same request through the same kernels) on one target per
// case in turn, so each target meets them on count / targets random cases.
void ExpectParity(uint64_t first_seed, int count, size_t max_vocab, bool features = false) {
  Workspace ref_ws, fast_ws;
  const std::vector<std::string> targets = SupportedTargets();
  for (int i = 0; i < static_cast<int>(test::Share(count)); ++i) {
    const uint64_t seed = first_seed + static_cast<uint64_t>(i);
    const test::RandomCase c = test::CaseMaker(seed).Make(seed, max_vocab, features);
    const Outcome want = RunCase(c, Engine::reference, ref_ws);
    for (size_t k = 0; k < targets.size(); ++k) {
      const std::string& name = targets[k];
      ASSERT_TRUE(testing::force_target(name));
      const Outcome got = RunCase(c, Engine::fast, fast_ws);
      EXPECT_EQ(got, want) << name << " " << Describe(c) << " error '"
                           << got.error << "' vs '" << want.error << "'";
      if (k != static_cast<size_t>(i) % targets.size()) continue;
      EXPECT_EQ(RunCase(c, Engine::fast, fast_ws, Mode::traced),
                RunCase(c, Engine::reference, ref_ws, Mode::traced))
          << name << " traced " << Describe(c);
      ExpectSameWithoutLogprob(RunCase(c, Engine::fast, fast_ws, Mode::no_logprob), want,
                               name + " " + Describe(c));
    }
    ASSERT_TRUE(testing::force_target(""));
  }
}

TEST(EngineParity, SmallAndMediumVocabularies) { ExpectParity(1000, 3000, 5000); }

// Penalties over long histories (each id repeated many times, prompt and
// generated overlapping) and the first error: the lowest offending id,
// wherever it stands in the history.
TEST(EngineParity, PenaltiesOverLongHistoriesAndTheirFirstError) {
  Workspace ref_ws, fast_ws;
  test::SplitMix rand(17);
  for (int i = 0; i < static_cast<int>(std::max<size_t>(2, test::Share(6))); ++i) {
    test::RandomCase c = test::CaseMaker(900 + i).Make(900 + i, 50000);
    c.params.repetition_penalty = 1.0 + 0.25 * (i % 3);
    c.params.frequency_penalty = 0.5 * (i % 2);
    c.params.presence_penalty = i % 4 == 0 ? 0.0 : -0.75;
    const size_t v = c.logits.size();
    c.prompt.clear();
    c.generated.clear();
    for (int j = 0; j < 150000; ++j) {
      const auto id = static_cast<int32_t>(rand() % std::min<size_t>(v, 1 + 997 * (i + 1)));
      (j % 3 == 0 ? c.prompt : c.generated).push_back(id);
    }
    const Outcome want = RunCase(c, Engine::reference, ref_ws);
    ASSERT_EQ(RunCase(c, Engine::fast, fast_ws), want) << Describe(c) << " " << want.error;
  }
  // -inf logits at ids 9 and 4, each generated twice: f * count overflows,
  // -inf - -inf is NaN; the reference names id 4 whatever the order.
  test::RandomCase c = test::CaseMaker(5).Make(5, 64);
  c.logits.assign(16, 1.0f);
  c.logits[9] = c.logits[4] = -INFINITY;
  c.params = SamplingParams{};
  c.params.frequency_penalty = -0x1p1023;
  c.prompt.clear();
  for (const auto& order : {std::vector<int32_t>{9, 9, 4, 4}, std::vector<int32_t>{4, 9, 4, 9},
                            std::vector<int32_t>{9, 4, 9, 4}}) {
    c.generated = order;
    const Outcome want = RunCase(c, Engine::reference, ref_ws);
    ASSERT_NE(want.error.find("logit of id 4 "), std::string::npos) << want.error;
    EXPECT_EQ(RunCase(c, Engine::fast, fast_ws), want);
  }
}
TEST(EngineParity, AnyVocabularyUpTo262144) { ExpectParity(50000, 300, 262144); }
// Logit bias (ties made and broken, +-100), masks as ids and bitmasks, top-N
// logprobs over tied logits, with every parameter mix.
TEST(EngineParity, BiasMasksAndTopLogprobs) { ExpectParity(200000, 3000, 5000, true); }
TEST(EngineParity, BiasMasksAndTopLogprobsUpTo262144) {
  ExpectParity(250000, 200, 262144, true);
}

// One row split across 1 to 4 threads: identical ids, logprobs, generator
// positions (and errors) whatever the count; every other row with a bias,
// a mask (its Z summed over the finite logits compacted, when the mask
// drops a fifth of the ids or more) and top-N logprobs.
TEST(EngineParity, ThreadCountDoesNotChangeResults) {
  Workspace ws;
  int compared = 0;
  for (uint64_t seed = 70000; compared < static_cast<int>(test::Share(60)); ++seed) {
    test::CaseMaker maker(seed);
    const test::RandomCase c = maker.Make(seed, 262144, compared % 2 == 1);
    if (c.logits.size() < 40000) continue;
    ++compared;
    const Outcome one = RunCase(c, Engine::fast, ws);
    for (int threads = 2; threads <= 4; ++threads) {
      EXPECT_EQ(RunCase(c, Engine::fast, ws, Mode::plain, threads), one)
          << "threads " << threads << " " << Describe(c);
    }
  }
}

// Temperature 1 with no penalty and no filter, where the fast engine reads
// the f32 row in its max and exp passes and never stores it in f64:
// random rows (with their histories and frequency and presence penalties
// of zero, or a repetition penalty of 1), and rows whose maximum is a zero
// of either sign first, on every target and for 1 to 3 threads.
TEST(EngineParity, TemperatureOneWithoutFilters) {
  Workspace ref_ws, fast_ws;
  for (uint64_t seed = 90000; seed < 90000 + test::Share(60); ++seed) {
    test::CaseMaker maker(seed);
    test::RandomCase c = maker.Make(seed, 5000);
    if (seed % 3 == 0) c.logits = StandardRow(40000 + 5000 * (seed % 20), seed);
    c.params = SamplingParams{};
    c.params.temperature = 1.0;
    c.params.top_k = seed % 2 ? 0 : static_cast<int32_t>(c.logits.size());
    if (seed % 4 == 1) {
      // A zero maximum: its sign, from the first zero, reaches the logprob.
      for (float& v : c.logits) v = std::min(v, -1.0f);
      c.logits[seed % c.logits.size()] = seed % 8 == 1 ? -0.0f : 0.0f;
      c.logits[(seed * 7) % c.logits.size()] = seed % 8 == 1 ? 0.0f : -0.0f;
    }
    const Outcome want = RunCase(c, Engine::reference, ref_ws);
    for (const TargetInfo& t : compiled_targets()) {
      if (!t.supported) continue;
      ASSERT_TRUE(testing::force_target(t.name));
      for (int threads = 1; threads <= 3; ++threads) {
        EXPECT_EQ(RunCase(c, Engine::fast, fast_ws, Mode::plain, threads), want)
            << t.name << " threads " << threads << " " << Describe(c);
      }
    }
    ASSERT_TRUE(testing::force_target(""));
  }
}

// Thresholds that rounding decides, computed the spec's way: min_p equal to
// some e_j = exp(t_j - M) (so q_j >= m * max(q) hinges on one rounding) and
// top_p equal to each running sum of the nucleus walk and its neighbours.
TEST(EngineParity, ThresholdsOnEveryBoundary) {
  Workspace ref_ws, fast_ws;
  for (size_t vocab : {64, 3000, 40000}) {
    if (vocab > 3000 && test::ShareDivisor() > 1) continue;  // emulated: the long row left out
    for (double temperature : {1.0, 0.7}) {
      test::CaseMaker maker(vocab);
      test::RandomCase c{vocab, {}, {}, {}, {}};
      c.logits.resize(vocab);
      for (float& x : c.logits) x = static_cast<float>(2.0 * maker.Normal());
      for (size_t j = 0; j < 8; ++j) c.logits[maker.Below(vocab)] += 9.0f;
      std::vector<double> t, e;
      double m = -INFINITY, z = 0;
      for (float x : c.logits) {
        t.push_back(static_cast<double>(x) / temperature);
        m = std::max(m, t.back());
      }
      for (double v : t) {
        e.push_back(std::exp(v - m));
        z += e.back();
      }
      std::vector<size_t> order(vocab);
      for (size_t i = 0; i < vocab; ++i) order[i] = i;
      std::sort(order.begin(), order.end(), [&](size_t a, size_t b) {
        return t[a] != t[b] ? t[a] > t[b] : a < b;
      });
      double s = 0;
      for (size_t r = 0; r < 24; ++r) {
        s += e[order[r]] / z;
        for (int variant = 0; variant < 6; ++variant) {
          c.params = {};
          c.params.temperature = temperature;
          if (variant < 3) {
            c.params.top_p = variant == 0 ? s : std::nextafter(s, variant == 1 ? 0.0 : 1.0);
          } else {
            const double ej = e[order[r]];
            c.params.min_p = variant == 3 ? ej : std::nextafter(ej, variant == 4 ? 0.0 : 1.0);
          }
          if (!(c.params.top_p < 1.0) || c.params.min_p > 1.0) continue;
          // The kept set does not depend on the seed; one seed per
          // threshold, a different one each, varies where the draw falls.
          c.seed = 6 * r + static_cast<uint64_t>(variant);
          EXPECT_EQ(RunCase(c, Engine::fast, fast_ws, Mode::traced),
                    RunCase(c, Engine::reference, ref_ws, Mode::traced))
              << Describe(c);
        }
      }
    }
  }
}

// Min-p alone at temperature 1 reads the f32 row (Plan::Path::f32_row): the
// kept set from the shared softmax's e values, compacted when few ids reach
// the threshold, filtered in place when more than CompactCapacity do; with
// and without the logprob, on one thread and split across two and three.
// Thresholds equal to some e_j and its neighbours, and tiny ones.
TEST(EngineParity, MinPOnTheF32Row) {
  Workspace ref_ws, fast_ws;
  for (size_t vocab : {size_t{3000}, size_t{40000}, size_t{128256}}) {
    if (vocab > 40000 && test::ShareDivisor() > 1) continue;  // emulated: the long row left out
    test::CaseMaker maker(vocab);
    test::RandomCase c{vocab, StandardRow(vocab, vocab), {}, {}, {}};
    double m = -INFINITY;
    for (float x : c.logits) m = std::max(m, static_cast<double>(x));
    std::vector<double> thresholds = {1e-300, 1e-12, 1e-4, 0.05, 1.0};
    for (size_t j = 0; j < test::Share(6); ++j) {
      const double ej = std::exp(static_cast<double>(c.logits[maker.Below(vocab)]) - m);
      for (double t : {ej, std::nextafter(ej, 0.0), std::nextafter(ej, 1.0)}) {
        if (t <= 1.0) thresholds.push_back(t);
      }
    }
    for (double min_p : thresholds) {
      c.params = {};
      c.params.min_p = min_p;
      for (uint64_t seed = 0; seed < 2; ++seed) {
        c.seed = seed;
        const Outcome want = RunCase(c, Engine::reference, ref_ws);
        for (int threads = 1; threads <= 3; ++threads) {
          EXPECT_EQ(RunCase(c, Engine::fast, fast_ws, Mode::plain, threads), want)
              << "threads " << threads << " " << Describe(c);
        }
        ExpectSameWithoutLogprob(RunCase(c, Engine::fast, fast_ws, Mode::no_logprob, 2), want,
                                 Describe(c));
      }
    }
  }
}

// The filters on the f32 row with the penalised window ids beside it
// (Plan::Path::f32_row), with top-k and without: the largest logit held by a
// window id (lowered, so the largest unchanged one is found by step 6's
// selection, or by reading the rest of the row again without top-k or at a
// temperature of 1e-30; or kept by a penalty that skips it), a
// repetition penalty below 1 lifting a window id above every other, window
// ids at -inf, k = 1 and k past the finite ids, a window past kMaxPenalisedIds
// (the widened row), a flat row (top-p without top-k widens the penalised
// row), min-p, a Sequence's window; on one thread and split across two,
// with and without the logprob, on every target.
TEST(EngineParity, FiltersOnThePenalisedF32Row) {
  Workspace ref_ws, fast_ws;
  for (size_t vocab : {size_t{3000}, size_t{70000}}) {
    if (vocab > 3000 && test::ShareDivisor() > 1) continue;  // emulated: the long row left out
    test::CaseMaker maker(vocab + 1);
    test::RandomCase c{vocab, StandardRow(vocab, vocab + 1), {}, {}, {}};
    const auto top = static_cast<int32_t>(
        std::max_element(c.logits.begin(), c.logits.end()) - c.logits.begin());
    for (int variant = 0; variant < 26; ++variant) {
      const bool top_k = variant < 13;
      const int v = variant % 13;
      c.params = {};
      // 1e-30: past the temperatures where t orders an f32 row as l does.
      c.params.temperature = v == 11 ? 1e-30 : v % 3 == 0 ? 1.0 : 0.7;
      c.params.top_k = !top_k ? 0 : v % 4 == 3 ? 1 : 40;
      c.params.top_p = v % 2 || v == 12 ? 0.95 : 1.0;
      c.params.min_p = v % 4 == 2 ? 0.05 : 0.0;
      c.params.repetition_penalty = v % 5 == 4 ? 0.5 : 1.3;
      c.params.frequency_penalty = v % 3 == 1 ? 0.0 : 0.4;
      c.params.presence_penalty = v % 2 ? 0.3 : 0.0;
      c.params.penalty_last_n = v == 7 ? 0 : 64;
      c.prompt.assign({top, 5, 9});
      c.generated.clear();
      const size_t window = v == 7 ? kMaxPenalisedIds + 100 : 60;
      for (size_t j = 0; j < window; ++j) c.generated.push_back(maker.Below(vocab));
      if (v % 3 == 2) c.generated.push_back(top);
      std::vector<float> row = c.logits;
      if (v == 9) {
        for (size_t j = 0; j < 20; ++j) c.logits[c.generated[j]] = -INFINITY;
      }
      if (v == 10) {
        // k past the finite ids: every id above 3 at -inf, but the largest.
        for (float& x : c.logits) x = x > 3.0f && x != c.logits[top] ? -INFINITY : x;
        if (top_k) c.params.top_k = static_cast<int32_t>(vocab - 10);
      }
      if (v == 12) {  // flat: no candidate set holds top-p's cut
        for (float& x : c.logits) x = std::min(x, 1.0f);
      }
      for (uint64_t seed = 0; seed < 2; ++seed) {
        c.seed = seed;
        const Outcome want = RunCase(c, Engine::reference, ref_ws);
        ASSERT_EQ(want.error, "") << Describe(c);
        const Outcome want_quiet = RunCase(c, Engine::reference, ref_ws, Mode::no_logprob);
        for (const std::string& name : SupportedTargets()) {
          ASSERT_TRUE(testing::force_target(name));
          for (int threads = 1; threads <= 2; ++threads) {
            EXPECT_EQ(RunCase(c, Engine::fast, fast_ws, Mode::plain, threads), want)
                << name << " variant " << variant << " threads " << threads << " "
                << Describe(c);
          }
          EXPECT_EQ(RunCase(c, Engine::fast, fast_ws, Mode::no_logprob, 2), want_quiet)
              << name << " variant " << variant << " " << Describe(c);
        }
        ASSERT_TRUE(testing::force_target(""));
      }
      c.logits = row;
    }
  }
}

// Top-p on rows of the standard kind and on rows built against the
// candidate thresholds of the fast engine (q >= 2^-6 to 2^-17 among the ids
// one compaction finds, reading the exp-sum pass's pieces of 4096 ids that
// can hold one, or a counting pass; then (1 - p) Z / 2V): other
// row seeds, quantized logits (ties), masked pieces, underflowing e, peaks
// too low for the first thresholds, and ids whose e equals a threshold
// exactly, one per piece; several temperatures and p (also p equal to a
// running sum of the walk), on every target (two threads on the first listed).
TEST(EngineParity, TopPCandidateThresholds) {
  Workspace ref_ws, fast_ws;
  // Emulated, each row takes one setting and the random rows of 262144 ids
  // are half as long (every case kept).
  const size_t long_vocab = test::ShareDivisor() > 1 ? 131072 : 262144;
  std::vector<test::RandomCase> cases;
  for (uint64_t seed = 1; seed <= 6; ++seed) {
    const size_t vocab = seed % 2 ? 128256 : long_vocab;
    test::RandomCase c{seed, StandardRow(vocab, seed), {}, {}, {}};
    switch (seed % 6) {
      case 1:  // ties everywhere, the thresholds' neighbourhood included
        for (float& x : c.logits) x = std::round(x * 4.0f) / 4.0f;
        break;
      case 2:  // whole pieces masked, and a run across piece boundaries
        for (size_t i = 4096; i < 3 * 4096 + 100; ++i) c.logits[i] = -INFINITY;
        break;
      case 3:  // most e underflow to 0
        for (float& x : c.logits) x *= 60.0f;
        break;
      case 4:  // peaks too low: the first thresholds miss the nucleus
        for (float& x : c.logits) x = x > 6.0f ? x - 5.0f : x;
        break;
      case 5:  // flat: the candidate sets overflow, the whole row is cut
        for (float& x : c.logits) x = std::min(x, 3.0f);
        break;
      default:
        break;
    }
    cases.push_back(c);
  }
  // Rows between peaked and flat, where the lower thresholds (one counting
  // pass, then a compaction) hold the nucleus or none does: a wider normal,
  // and 20 or 200 peaks of 5 to 9 on the standard background.
  for (uint64_t seed : {22, 23, 26}) {
    const size_t vocab = seed % 2 ? 128256 : long_vocab;
    test::CaseMaker maker(seed);
    test::RandomCase c{seed, {}, {}, {}, {}};
    c.logits.resize(vocab);
    const double sigma = seed <= 22 ? 2.5 : 1.5;
    for (float& x : c.logits) x = static_cast<float>(sigma * maker.Normal());
    const size_t peaks = seed <= 22 ? 0 : seed <= 24 ? 20 : 200;
    for (size_t k = 0; k < peaks; ++k) {
      c.logits[maker.Below(static_cast<uint32_t>(vocab))] +=
          static_cast<float>(5.0 + 4.0 * maker.Uniform());
    }
    cases.push_back(c);
  }
  // e equal to the threshold exactly: 64 (or 4096) equal logits, one per
  // piece (or spread over the row), every other id masked, so e = 1 and
  // Z * 2^-6 (or Z * 2^-12) = 1; and the same with a faint background.
  for (size_t equal : {64, 4096}) {
    for (bool background : {false, true}) {
      test::RandomCase c{equal + background, {}, {}, {}, {}};
      c.logits.assign(262144, background ? -40.0f : -INFINITY);
      for (size_t k = 0; k < equal; ++k) c.logits[k * (262144 / equal) + 17] = 3.0f;
      cases.push_back(c);
    }
  }
  // Only (1 - p) Z / 2V holds the nucleus in few enough ids: 10 peaks hold
  // 95% of the mass, 7000 ids q just below 2^-17, the rest next to nothing;
  // p = 0.97 (and p on the walk's 3rd running sum, in the peaks).
  {
    test::RandomCase c{77, {}, {}, {}, {}};
    c.logits.assign(128256, -40.0f);
    for (size_t k = 0; k < 7000; ++k) c.logits[17 + 18 * k] = -9.54f;
    for (size_t k = 0; k < 10; ++k) c.logits[1000 + 12345 * k] = 0.0f;
    cases.push_back(c);
  }
  const std::pair<double, double> extras[] = {
      {1.0, 0.9}, {0.8, 0.999}, {1.7, 0.5}, {0.8, 0.0}};
  for (size_t i = 0; i < cases.size(); ++i) {
    test::RandomCase& c = cases[i];
    // Two settings for every row, one more in turn: stepping by 3 through
    // the four, each group of rows above meets p = 0.999 and p = 0.5.
    std::vector<std::pair<double, double>> settings = {
        {0.8, 0.9}, {1.0, -1.0}, extras[(3 * i) % 4]};
    if (c.seed == 77) settings = {{1.0, 0.97}, {1.0, 0.96}, {1.0, -1.0}};
    settings.resize(test::Share(settings.size()));
    for (const auto& [temperature, top_p] : settings) {
      {
        c.params = {};
        c.params.temperature = temperature;
        c.params.top_p = top_p;
        if (top_p < 0) {
          // A running sum of the walk: p reached exactly at the 3rd id.
          std::vector<double> t;
          double m = -INFINITY, z = 0.0;
          for (float x : c.logits) {
            t.push_back(static_cast<double>(x) / temperature);
            m = std::max(m, t.back());
          }
          std::vector<size_t> order;
          for (size_t i = 0; i < t.size(); ++i) {
            if (t[i] != -INFINITY) {
              order.push_back(i);
              z += std::exp(t[i] - m);
            }
          }
          std::partial_sort(order.begin(), order.begin() + 3, order.end(),
                            [&](size_t a, size_t b) {
                              return t[a] != t[b] ? t[a] > t[b] : a < b;
                            });
          double s = 0.0;
          for (size_t r = 0; r < 3; ++r) s += std::exp(t[order[r]] - m) / z;
          c.params.top_p = s;
        }
        const Outcome want = RunCase(c, Engine::reference, ref_ws, Mode::traced);
        bool first = true;  // two threads on the first target only
        for (const std::string& name : SupportedTargets()) {
          ASSERT_TRUE(testing::force_target(name));
          for (int threads = 1; threads <= (first ? 2 : 1); ++threads) {
            EXPECT_EQ(RunCase(c, Engine::fast, fast_ws, Mode::traced, threads), want)
                << name << " threads " << threads << " " << Describe(c);
          }
          first = false;
        }
        ASSERT_TRUE(testing::force_target(""));
      }
    }
  }
}

}  // namespace
}  // namespace exactsample
