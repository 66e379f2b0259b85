// The fast engine's chain tail (lib/engine/tail.cc) and DRY on the f64 row
// (lib/engine/penalties.cc): llama.cpp's order and random orders with DRY,
// top-n-sigma, typical, XTC, min_keep and dynamic temperature, the
// fast engine against the reference on every compiled and supported target,
// bit for bit: ids, logprob and processed logprob bits, top-N logprobs,
// rank, the distribution, a chooser's view, the generator position and the
// errors; sequences and threads on one target per case in turn.
#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <ostream>
#include <cmath>
#include <string>
#include <utility>
#include <vector>

#include "exactsample/exactsample.hpp"
#include "exactsample/sequence.hpp"
#include "exactsample/targets.hpp"
#include "exactsample/testing.hpp"
#include "lib/engine/chain_split.hpp"
#include "lib/engine/choose.hpp"
#include "scalar_ref/dry.hpp"
#include "tests/support/random_requests.hpp"
#include "tests/support/test_util.hpp"

namespace exactsample {
namespace {

constexpr int kSteps = 3;

struct Outcome {
  std::vector<int32_t> ids;
  std::vector<uint64_t> logprob_bits, processed_bits;
  std::vector<std::pair<int32_t, uint64_t>> top;  // every token's, one after another
  std::vector<int64_t> ranks;
  std::vector<std::pair<int32_t, uint64_t>> distribution;  // every token's
  std::string error;
  uint64_t draws_u32 = 0;
  bool operator==(const Outcome&) const = default;
};

void PrintTo(const Outcome& o, std::ostream* os) {
  *os << "ids";
  for (const int32_t id : o.ids) *os << " " << id;
  *os << "; processed";
  for (const uint64_t b : o.processed_bits) *os << " " << std::bit_cast<double>(b);
  *os << "; " << o.top.size() << " top, " << o.distribution.size() << " in the distribution";
  *os << "; error '" << o.error << "'; draws " << o.draws_u32;
}

void Add(Outcome& out, const Token& t) {
  out.ids.push_back(t.id);
  out.logprob_bits.push_back(test::Bits(t.logprob));
  out.processed_bits.push_back(test::Bits(t.processed_logprob));
  for (const TopLogprob& e : t.top_logprobs()) out.top.emplace_back(e.id, test::Bits(e.logprob));
  out.ranks.push_back(t.rank);
}

enum class Mode { plain, choose, threads };

// A chooser that reads the view both ways: q of an id picked by the
// generator from every id of the row, and the whole distribution.
int32_t Choice(const scalar_ref::KeptView& view, Pcg32& pick, size_t vocab, Outcome& out) {
  const auto any = static_cast<int32_t>(pick.uniform_f64() * static_cast<double>(vocab));
  out.distribution.emplace_back(any, test::Bits(view.Q(any)));
  const std::span<const KeptProb> all = view.All();
  for (const KeptProb& k : all) out.distribution.emplace_back(k.id, test::Bits(k.q));
  return all[static_cast<size_t>(pick.uniform_f64() * static_cast<double>(all.size()))].id;
}

Outcome RunCase(const test::RandomCase& c, Engine engine, Workspace& ws, Mode mode) {
  Outcome out;
  Pcg32 rng = stream(c.seed, Purpose::sample);
  Pcg32 pick = stream(c.seed, Purpose::shuffle);
  std::vector<int32_t> generated = c.generated;
  for (int step = 0; step < kSteps; ++step) {
    std::vector<KeptProb> distribution;
    SampleOptions options{.engine = engine,
                          .logprob = true,
                          .threads = mode == Mode::threads ? 1 + step : 1};
    options.rank = (c.seed + static_cast<uint64_t>(step)) % 2 == 0;
    if (mode == Mode::plain) options.distribution = &distribution;
    const scalar_ref::Choose choose = [&](const scalar_ref::KeptView& view) {
      return Choice(view, pick, c.logits.size(), out);
    };
    const Result<Token> t = detail::SampleChoosing(c.At(generated), rng, ws, options,
                                                   mode == Mode::choose ? &choose : nullptr);
    if (!t) {
      out.error = t.error().message;
      break;
    }
    Add(out, *t);
    for (const KeptProb& k : distribution) out.distribution.emplace_back(k.id, test::Bits(k.q));
    generated.push_back(t->id);
  }
  out.draws_u32 = rng.draws_u32();
  return out;
}

// The same steps through a sequence (its window's counts instead of the ids).
Outcome RunSequence(const test::RandomCase& c, Engine engine, Workspace& ws) {
  Outcome out;
  Result<Sequence> created = Sequence::create(
      c.logits.size(), c.params, stream(c.seed, Purpose::sample),
      {c.bias_ids, c.bias_values, c.allowed, c.banned, c.allowed_bits});
  if (!created) {
    out.error = created.error().message;
    return out;
  }
  Sequence seq = std::move(*created);
  if (!seq.accept_prompt(c.prompt)) return out;
  for (const int32_t id : c.generated) {
    if (!seq.accept(id)) return out;
  }
  for (int step = 0; step < kSteps; ++step) {
    const Result<Token> t =
        seq.sample(Step{.logits = c.logits}, ws, {.engine = engine, .logprob = true});
    if (!t) {
      out.error = t.error().message;
      break;
    }
    Add(out, *t);
  }
  out.draws_u32 = seq.rng().draws_u32();
  return out;
}

// `ids` as a short pattern of its own ids repeated to its length, most of
// the time (the ids stay in the vocabulary).
void Repeating(test::CaseMaker& m, std::vector<int32_t>& ids) {
  if (ids.empty() || m.Chance(0.2)) return;
  const size_t period = 1 + m.Below(static_cast<uint32_t>(std::min<size_t>(ids.size(), 6)));
  for (size_t i = period; i < ids.size(); ++i) ids[i] = ids[i % period];
}

// DRY, top-n-sigma, typical, XTC, min_keep and dynamic temperature, each on now and then, and
// a chain: llama.cpp's, the spec's, or every step that can be on in a
// random order (the off ones do nothing); with the filters at T = 1 in the
// llama order, top-p and min-p thresholds that rounding decides there.
void TailParams(test::CaseMaker& m, test::RandomCase& c) {
  SamplingParams& p = c.params;
  if (m.Chance(0.4)) p.typical_p = m.Chance(0.2) ? 0.0 : m.Uniform();
  if (m.Chance(0.4)) {
    p.xtc_probability = m.Chance(0.3) ? 1.0 : m.Uniform();
    p.xtc_threshold = m.Chance(0.3) ? 0.0 : 0.6 * m.Uniform();
  }
  if (m.Chance(0.2)) p.min_keep = 1 + m.Below(6);
  // DRY over a history that repeats itself (so that it penalises ids), now
  // and then with a multiplier that makes some l -inf.
  if (m.Chance(0.35)) {
    p.dry_multiplier = m.Chance(0.15) ? 1e300 : 0.01 + 3 * m.Uniform();
    p.dry_base = m.Chance(0.2) ? 1.75 : 1 + 2 * m.Uniform();
    p.dry_allowed_length = m.Below(4);
    p.dry_penalty_last_n = 1 + m.Below(80);
    Repeating(m, c.prompt);
    Repeating(m, c.generated);
  }
  // Small n cuts inside top-k's K, large n rarely; 0 is off.
  if (m.Chance(0.4)) p.top_n_sigma = m.Chance(0.2) ? 0.0 : 4 * m.Uniform();
  if (m.Chance(0.15)) {
    p.dynatemp_range = m.Chance(0.3) ? p.temperature : 2 * m.Uniform();
    p.dynatemp_exponent = m.Chance(0.2) ? 0.0 : 3 * m.Uniform();
  }
  const double kind = m.Uniform();
  if (kind < 0.5) {
    p.chain = Chain::Llama();
  } else if (kind < 0.6) {
    p.chain = Chain{};
  } else {
    std::vector<ChainStep> steps = {ChainStep::top_n_sigma, ChainStep::top_k,
                                    ChainStep::typical,     ChainStep::top_p,
                                    ChainStep::min_p,       ChainStep::xtc,
                                    ChainStep::temperature};
    for (size_t j = steps.size(); j > 1; --j) {
      std::swap(steps[j - 1], steps[m.Below(static_cast<uint32_t>(j))]);
    }
    // Mostly first, as llama.cpp has them; later, the reference runs.
    steps.insert(steps.begin() + (m.Chance(0.8) ? 0 : m.Below(8)), ChainStep::penalties);
    steps.insert(steps.begin() + (m.Chance(0.8) ? 1 : m.Below(9)), ChainStep::dry);
    p.chain.preset = ChainPreset::list;
    p.chain.count = static_cast<uint8_t>(steps.size());
    std::copy(steps.begin(), steps.end(), p.chain.list.begin());
  }
  if (p.chain.preset == ChainPreset::llama && m.Chance(0.3)) {
    SamplingParams at_one = p;
    at_one.temperature = 1.0;
    m.Borderline(c.logits, at_one);
    p.top_p = at_one.top_p;
    p.min_p = at_one.min_p;
  }
}

// The server's defaults in llama.cpp's order, the bench's `full` row.
test::RandomCase LlamaDefaults(uint64_t seed, size_t vocab) {
  test::CaseMaker m(seed);
  test::RandomCase c{seed, m.Logits(vocab), {}, {}, {}};
  c.params = {.temperature = 0.8, .repetition_penalty = 1.1, .presence_penalty = 0.2,
              .frequency_penalty = 0.2, .top_k = 40, .top_p = 0.95, .min_p = 0.05};
  c.params.chain = Chain::Llama();
  c.params.top_logprobs = 5;
  c.prompt = m.History(c.logits, 8);
  c.generated = m.History(c.logits, 24);
  return c;
}

std::string Describe(const test::RandomCase& c) {
  const SamplingParams& p = c.params;
  std::string chain;
  for (const ChainStep s : p.chain.steps()) chain += std::to_string(static_cast<int>(s));
  return "seed " + std::to_string(c.seed) + " V=" + std::to_string(c.logits.size()) +
         " chain " + chain + " T=" + std::to_string(p.temperature) +
         " k=" + std::to_string(p.top_k) + " p=" + std::to_string(p.top_p) +
         " m=" + std::to_string(p.min_p) + " typ=" + std::to_string(p.typical_p) +
         " sigma=" + std::to_string(p.top_n_sigma) +
         " dry=" + std::to_string(p.dry_multiplier) + "/" + std::to_string(p.dry_base) + "/" +
         std::to_string(p.dry_allowed_length) + "/" + std::to_string(p.dry_penalty_last_n) +
         " xtc=" + std::to_string(p.xtc_probability) + "/" + std::to_string(p.xtc_threshold) +
         " keep=" + std::to_string(p.min_keep) + " dyn=" + std::to_string(p.dynatemp_range);
}

std::vector<std::string> SupportedTargets() {
  std::vector<std::string> names;
  for (const TargetInfo& t : compiled_targets()) {
    if (t.supported) names.push_back(t.name);
  }
  return names;
}

// Every case on every target; a chooser, threads and a sequence on one
// target per case in turn. `tails` counts the cases that ran a tail on the
// fast engine, so that a test sees its cases reach it.
void ExpectParity(const std::vector<test::RandomCase>& cases, int& tails) {
  Workspace ref_ws, fast_ws;
  const std::vector<std::string> targets = SupportedTargets();
  for (size_t i = 0; i < cases.size(); ++i) {
    const test::RandomCase& c = cases[i];
    const ChainSplit split = ChainSplit::Of(c.At(c.generated), {});
    tails += split.fast && split.count > 0;
    const Outcome want = RunCase(c, Engine::reference, ref_ws, Mode::plain);
    for (size_t k = 0; k < targets.size(); ++k) {
      ASSERT_TRUE(testing::force_target(targets[k]));
      EXPECT_EQ(RunCase(c, Engine::fast, fast_ws, Mode::plain), want)
          << targets[k] << " " << Describe(c) << " " << want.error;
      if (k != i % targets.size()) continue;
      EXPECT_EQ(RunCase(c, Engine::fast, fast_ws, Mode::choose),
                RunCase(c, Engine::reference, ref_ws, Mode::choose))
          << targets[k] << " chooser " << Describe(c);
      EXPECT_EQ(RunCase(c, Engine::fast, fast_ws, Mode::threads),
                RunCase(c, Engine::reference, ref_ws, Mode::threads))
          << targets[k] << " threads " << Describe(c);
      EXPECT_EQ(RunSequence(c, Engine::fast, fast_ws), RunSequence(c, Engine::reference, ref_ws))
          << targets[k] << " sequence " << Describe(c);
    }
    ASSERT_TRUE(testing::force_target(""));
  }
}

std::vector<test::RandomCase> RandomCases(uint64_t first_seed, size_t count, size_t max_vocab) {
  std::vector<test::RandomCase> cases;
  for (size_t i = 0; i < test::Share(count); ++i) {
    const uint64_t seed = first_seed + i;
    test::CaseMaker m(seed);
    test::RandomCase c = m.Make(seed, max_vocab, i % 2 == 1);
    TailParams(m, c);
    cases.push_back(std::move(c));
  }
  return cases;
}

TEST(ChainTail, RandomChainsSmallVocabularies) {
  const std::vector<test::RandomCase> cases = RandomCases(1, 400, 5000);
  int tails = 0;
  ExpectParity(cases, tails);
  EXPECT_GT(tails, static_cast<int>(cases.size() / 4));
}

TEST(ChainTail, RandomChainsUpTo262144) {
  const std::vector<test::RandomCase> cases = RandomCases(100000, 16, 262144);
  int tails = 0;
  ExpectParity(cases, tails);
  EXPECT_GT(tails, 0);
}

// llama.cpp's order with the server's defaults, rows of every shape up to
// V = 262144, half of them with top-n-sigma on (its threshold over the row,
// top-k moved before it), a third with DRY: each runs the tail.
TEST(ChainTail, LlamaDefaults) {
  std::vector<test::RandomCase> cases;
  constexpr size_t kVocab[] = {32000, 128256, 262144};
  for (uint64_t seed = 0; seed < test::Share(8); ++seed) {
    test::RandomCase c = LlamaDefaults(seed, kVocab[seed % 3] - seed);
    if (seed % 2 == 1) {
      c.params.top_n_sigma = 0.25 * static_cast<double>(seed);
      EXPECT_TRUE(ChainSplit::Of(c.At(c.generated), {}).sigma_over_row) << seed;
    }
    if (seed % 3 == 1) {  // DRY with llama.cpp's defaults over a repeating history
      c.params.dry_multiplier = 0.8;
      c.params.dry_penalty_last_n = 64;
      for (size_t i = 5; i < c.generated.size(); ++i) c.generated[i] = c.generated[i % 5];
      EXPECT_TRUE(ChainSplit::Of(c.At(c.generated), {}).fast) << seed;
      EXPECT_FALSE(scalar_ref::DryAmounts(c.At(c.generated)).empty()) << seed;
    }
    cases.push_back(std::move(c));
  }
  int tails = 0;
  ExpectParity(cases, tails);
  EXPECT_EQ(tails, static_cast<int>(cases.size()));
}

// l / T overflowing in the tail's temperature step (M over K, the spec's
// check; a dynamic T' too small): the same error on both engines, after
// XTC's draw in llama.cpp's order, and the generator untouched.
TEST(ChainTail, AnErrorInTheTailTakesNoDraw) {
  std::vector<test::RandomCase> cases;
  for (uint64_t seed = 0; seed < 8; ++seed) {
    test::CaseMaker m(seed);
    test::RandomCase c{seed, m.Logits(100 + 997 * seed), {}, {}, {}};
    for (float& x : c.logits) x = x == -INFINITY ? x : 3e38f * std::tanh(x);
    c.logits[seed] = 3e38f;  // overflows whichever ids the filters keep
    c.params.chain = Chain::Llama();
    c.params.temperature = 1e-300;
    if (seed % 4 < 2) c.params.dynatemp_range = 1e-300;  // T' = 2e-300 w
    c.params.top_k = 1 + static_cast<int64_t>(m.Below(50));
    c.params.top_p = 0.95;
    c.params.xtc_probability = seed % 3 == 0 ? 0.0 : 1.0;
    cases.push_back(std::move(c));
  }
  Workspace ref_ws, fast_ws;
  int dynamic = 0;
  for (const test::RandomCase& c : cases) {
    const Outcome want = RunCase(c, Engine::reference, ref_ws, Mode::plain);
    // T' = 0 (no entropy left) is greedy instead.
    if (c.params.dynatemp_range == 0) {
      EXPECT_NE(want.error.find("too small: the largest logit"), std::string::npos) << want.error;
    }
    dynamic += want.error.find("the dynamic temperature") != std::string::npos;
    if (!want.error.empty()) {
      EXPECT_EQ(want.draws_u32, 0u) << Describe(c);
    }
    for (const std::string& name : SupportedTargets()) {
      ASSERT_TRUE(testing::force_target(name));
      EXPECT_EQ(RunCase(c, Engine::fast, fast_ws, Mode::plain), want) << name << Describe(c);
    }
    ASSERT_TRUE(testing::force_target(""));
  }
  EXPECT_GT(dynamic, 0);
}

}  // namespace
}  // namespace exactsample
