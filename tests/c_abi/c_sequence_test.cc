// The sequence C ABI and the request struct: a sequence's tokens equal
// a stateless request with the full history, bit for bit (ids, logprob,
// processed and top-N logprobs, generator position), on both engines, for
// random requests with long histories, accept()ed and forced tokens,
// windows, clones and snapshots (restored here and in another process);
// candidates, 16-bit rows, the kept distribution and batches equal their
// plain counterparts; every bad input is refused with the field named, the
// sequence unchanged and no draw taken. CI also runs it under ASan/UBSan.
#include "exactsample.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstddef>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <numeric>
#include <span>
#include <string>
#include <vector>

#include "exactsample/exactsample.hpp"
#include "tests/support/c_cases.hpp"
#include "tests/support/c_handles.hpp"
#include "tests/support/random_requests.hpp"
#include "tests/support/run_self.hpp"
#include "tests/support/test_util.hpp"

namespace {

using exactsample::test::Bits;
using exactsample::test::CaseMaker;
using exactsample::test::CExtras;
using exactsample::test::CParams;
using exactsample::test::RandomCase;
using exactsample::test::Sampler;
using exactsample::test::SampleStateless;
using exactsample::test::SequenceHandle;
using exactsample::test::Share;
using exactsample::test::SplitMix;

constexpr exactsample_engine kEngines[] = {EXACTSAMPLE_ENGINE_REFERENCE, EXACTSAMPLE_ENGINE_FAST};

std::string LastError(const Sampler& s) { return exactsample_sampler_last_error(s.s); }

// A request on a row, nothing else set (a sequence's, or to be filled in).
exactsample_request RequestFor(const void* logits, size_t vocab,
                               int type = EXACTSAMPLE_LOGITS_F32) {
  return exactsample::test::StatelessRequest(logits, vocab, nullptr, 0, nullptr, 0, nullptr,
                                             nullptr, nullptr, nullptr, type);
}

exactsample_sequence_config ConfigFor(size_t vocab, const exactsample_params* params,
                                      const exactsample_extras* extras, uint64_t seed) {
  exactsample_sequence_config c{};
  c.struct_size = sizeof c;
  c.vocab = vocab;
  c.params = params;
  c.extras = extras;
  c.seed = seed;
  return c;
}

// Everything a sequence holds, to see that a refused call changed nothing
// (the snapshot's bytes cover parameters, extras, history and generator).
struct SequenceState {
  size_t prompt = 0, generated = 0;
  uint64_t state = 0, inc = 0, draws = 0;
  std::vector<unsigned char> snapshot;
  bool operator==(const SequenceState&) const = default;
};

SequenceState StateOf(exactsample_sampler* s, const exactsample_sequence* q) {
  SequenceState st;
  EXPECT_EQ(exactsample_sequence_lengths(q, &st.prompt, &st.generated), EXACTSAMPLE_OK);
  exactsample_rng rng;
  EXPECT_EQ(exactsample_sequence_rng(q, &rng), EXACTSAMPLE_OK);
  st.state = rng.state;
  st.inc = rng.inc;
  st.draws = rng.draws_u32;
  size_t size = 0;
  EXPECT_EQ(exactsample_sequence_snapshot(s, q, nullptr, 0, &size), EXACTSAMPLE_OK);
  st.snapshot.resize(size);
  EXPECT_EQ(exactsample_sequence_snapshot(s, q, st.snapshot.data(), size, &size), EXACTSAMPLE_OK);
  return st;
}

// The stateless side of a comparison: the full history and a generator.
struct Mirror {
  std::vector<int32_t> prompt, generated;
  exactsample_rng rng{};
};

// How a step's token reaches the sequence.
enum class Append { in_request, after_the_fact };

// One step of row `logits` on sequence q (request extras: `step_extras`,
// or the sequence's own when null) and on a stateless request with the
// mirror's history: the same status, id, logprob bits, outputs and
// generator, and exactsample_validate_request's status before it; the
// token is appended to both. False when the step failed
// (on both, the same way, leaving both as they were).
bool ExpectSameStep(Sampler& qs, exactsample_sequence* q, Sampler& ps, Mirror& m,
                    std::span<const float> logits, const exactsample_params& params,
                    CExtras* step_extras, CExtras& plain_extras, Append append,
                    const std::string& where) {
  exactsample_request r = RequestFor(logits.data(), logits.size());
  r.extras = step_extras != nullptr ? &step_extras->extras : nullptr;
  double logprob = 7.0;
  r.logprob = &logprob;
  r.accept = append == Append::in_request ? 1 : 0;
  const SequenceState before = StateOf(qs.s, q);
  // Validating says what sampling will, and changes nothing.
  const exactsample_status validated = exactsample_validate_request(qs.s, q, &r);
  const std::string validate_error = LastError(qs);
  EXPECT_EQ(StateOf(qs.s, q), before) << where;
  EXPECT_EQ(logprob, 7.0) << where;
  exactsample_token t{};
  const exactsample_status st = exactsample_sample_request(qs.s, q, &r, &t);
  EXPECT_EQ(validated, st) << where;
  EXPECT_EQ(validate_error, LastError(qs)) << where;
  int32_t id = -1;
  double plain_logprob = 7.0;
  const exactsample_status pst = SampleStateless(
      ps.s, logits.data(), logits.size(), m.prompt.data(), m.prompt.size(), m.generated.data(),
      m.generated.size(), &params, &plain_extras.extras, &m.rng, &id, &plain_logprob);
  EXPECT_EQ(st, pst) << where << ": " << LastError(qs) << " / " << LastError(ps);
  EXPECT_EQ(t.status, st) << where;
  exactsample_rng rng;
  EXPECT_EQ(exactsample_sequence_rng(q, &rng), EXACTSAMPLE_OK);
  EXPECT_EQ(rng.state, m.rng.state) << where;
  EXPECT_EQ(rng.draws_u32, m.rng.draws_u32) << where;
  if (st != EXACTSAMPLE_OK || pst != EXACTSAMPLE_OK) {
    EXPECT_EQ(LastError(qs), LastError(ps)) << where;
    EXPECT_EQ(StateOf(qs.s, q), before) << where;
    EXPECT_EQ(logprob, 7.0) << where;
    return false;
  }
  EXPECT_EQ(t.id, id) << where;
  EXPECT_EQ(Bits(t.logprob), Bits(plain_logprob)) << where;
  EXPECT_EQ(Bits(logprob), Bits(plain_logprob)) << where;
  if (step_extras != nullptr) {
    EXPECT_EQ(Bits(step_extras->TokenOf(t.id, logprob)), Bits(plain_extras.TokenOf(id, plain_logprob)))
        << where;
  }
  if (append == Append::after_the_fact) {
    EXPECT_EQ(exactsample_sequence_accept(qs.s, q, t.id), EXACTSAMPLE_OK) << LastError(qs);
  }
  m.generated.push_back(id);
  size_t prompt_len = 0, generated_len = 0;
  EXPECT_EQ(exactsample_sequence_lengths(q, &prompt_len, &generated_len), EXACTSAMPLE_OK);
  EXPECT_EQ(prompt_len, m.prompt.size()) << where;
  EXPECT_EQ(generated_len, m.generated.size()) << where;
  return true;
}

// A forced token (a grammar's, an accepted draft) appended to both sides.
void Force(Sampler& qs, exactsample_sequence* q, Mirror& m, int32_t id) {
  ASSERT_EQ(exactsample_sequence_accept(qs.s, q, id), EXACTSAMPLE_OK) << LastError(qs);
  m.generated.push_back(id);
}

// Case c on a sequence with penalty window `window`, its history first
// extended by random prompt and generated ids, then `steps` steps that
// sample (appending in the request or after the fact) or force a token,
// with the sequence's extras or the same ones given on the request.
void CompareWithStateless(exactsample_engine engine, const RandomCase& c, int64_t window,
                          size_t extra_prompt, size_t extra_generated, int steps) {
  const std::string where = "seed " + std::to_string(c.seed) + " engine " +
                            std::to_string(engine) + " window " + std::to_string(window);
  Sampler qs(engine), ps(engine);
  const size_t vocab = c.logits.size();
  exactsample::SamplingParams sp = c.params;
  sp.penalty_last_n = window;
  const exactsample_params params = CParams(sp);
  CExtras config_extras(c), step_extras(c), plain_extras(c);
  const auto config = ConfigFor(vocab, &params, &config_extras.extras, c.seed);
  SequenceHandle q;
  ASSERT_EQ(exactsample_sequence_create(qs.s, &config, &q.p), EXACTSAMPLE_OK) << where << LastError(qs);
  Mirror m;
  m.prompt = c.prompt;
  exactsample_rng_stream(c.seed, EXACTSAMPLE_PURPOSE_SAMPLE, &m.rng);
  SplitMix ids{c.seed};
  const auto any = [&] { return static_cast<int32_t>(ids.Next() % vocab); };
  for (size_t j = 0; j < extra_prompt; ++j) m.prompt.push_back(any());
  ASSERT_EQ(exactsample_sequence_accept_prompt(qs.s, q.p, m.prompt.data(), m.prompt.size()),
            EXACTSAMPLE_OK)
      << LastError(qs);
  m.generated = c.generated;
  for (size_t j = 0; j < extra_generated; ++j) m.generated.push_back(any());
  for (const int32_t id : m.generated) {
    ASSERT_EQ(exactsample_sequence_accept(qs.s, q.p, id), EXACTSAMPLE_OK);
  }
  for (int step = 0; step < steps; ++step) {
    const std::string at = where + " step " + std::to_string(step);
    const uint64_t action = ids.Next() % 4;
    if (action == 3) {
      Force(qs, q.p, m, any());
      continue;
    }
    CExtras* given = action == 1 ? &step_extras : nullptr;
    const Append append = action == 2 ? Append::after_the_fact : Append::in_request;
    if (!ExpectSameStep(qs, q.p, ps, m, c.logits, params, given, plain_extras, append, at)) {
      return;
    }
  }
}

int64_t WindowFor(uint64_t seed) {
  constexpr int64_t kWindows[] = {0, 0, 0, 1, 2, 3, 5, 17, 64, 1000};
  return kWindows[seed % std::size(kWindows)];
}

// The reference engine, then the fast one on every compiled target the CPU
// supports.
TEST(CSequence, TokensEqualTheStatelessCallOnRandomRequests) {
  const auto run = [](exactsample_engine engine) {
    for (uint64_t seed = 0; seed < Share(250); ++seed) {
      CaseMaker maker(seed);
      const RandomCase c = maker.Make(seed, 20000, /*features=*/seed % 2 == 0);
      CompareWithStateless(engine, c, WindowFor(seed), 0, 0, 8);
    }
  };
  run(EXACTSAMPLE_ENGINE_REFERENCE);
  exactsample::test::ForEachTarget([&](int64_t) { run(EXACTSAMPLE_ENGINE_FAST); });
}

TEST(CSequence, TokensEqualTheStatelessCallWithLongHistories) {
  constexpr int64_t kWindows[] = {0, 64, 4096, 100000};
  for (uint64_t seed = 0; seed < Share(8); ++seed) {
    CaseMaker maker(1000 + seed);
    RandomCase c = maker.Make(1000 + seed, 50000, /*features=*/seed % 2 == 1);
    if (c.params.repetition_penalty == 1.0) c.params.repetition_penalty = 1.3;
    if (c.params.frequency_penalty == 0.0) c.params.frequency_penalty = 0.2;
    for (const auto engine : kEngines) {
      CompareWithStateless(engine, c, kWindows[seed % 4], 20000, 30000, 5);
    }
  }
}

// A row with a few strong ids that the penalties keep pushing around.
std::vector<float> PeakedRow(size_t vocab, uint64_t seed) {
  SplitMix g{seed};
  std::vector<float> x(vocab);
  for (auto& v : x) v = static_cast<float>(g.Normal(1.0));
  for (size_t j = 0; j < vocab; j += 7) x[j] += 4.0f;
  return x;
}

exactsample_params PenalisingParams(int64_t window) {
  exactsample_params p;
  exactsample_params_init(&p);
  p.temperature = 0.8;
  p.top_k = 40;
  p.top_p = 0.95;
  p.repetition_penalty = 1.5;
  p.presence_penalty = 0.4;
  p.frequency_penalty = 0.3;
  p.penalty_last_n = window;
  return p;
}

// Every window size on short and long streams: ids leave the window as
// others arrive, prompt ids first.
TEST(CSequence, WindowsFollowTheStatelessWindow) {
  const size_t vocab = 300;
  const auto x = PeakedRow(vocab, 3);
  RandomCase none{0, {}, {}, {}, {}};
  for (const auto engine : kEngines) {
    for (const int64_t window : {1, 2, 3, 8, 50, 400}) {
      Sampler qs(engine), ps(engine);
      const exactsample_params p = PenalisingParams(window);
      CExtras plain(none);
      const auto config = ConfigFor(vocab, &p, nullptr, 9);
      SequenceHandle q;
      ASSERT_EQ(exactsample_sequence_create(qs.s, &config, &q.p), EXACTSAMPLE_OK) << LastError(qs);
      Mirror m;
      exactsample_rng_stream(9, EXACTSAMPLE_PURPOSE_SAMPLE, &m.rng);
      for (int32_t id : {7, 14, 7, 21}) {  // prompt ids, one by one
        ASSERT_EQ(exactsample_sequence_accept_prompt(qs.s, q.p, &id, 1), EXACTSAMPLE_OK);
        m.prompt.push_back(id);
      }
      for (int step = 0; step < 60; ++step) {
        const std::string where = "window " + std::to_string(window) + " step " + std::to_string(step);
        if (step % 9 == 4) {
          Force(qs, q.p, m, 14);
          continue;
        }
        ASSERT_TRUE(ExpectSameStep(qs, q.p, ps, m, x, p, nullptr, plain, Append::in_request, where));
      }
    }
  }
}

// A clone continues alone; a rollback, and a generator put back after
// one, continue as the stateless call; reset starts over.
TEST(CSequence, ClonesContinueAloneAndResetStartsOver) {
  const size_t vocab = 500;
  const auto x = PeakedRow(vocab, 5);
  RandomCase none{0, {}, {}, {}, {}};
  CExtras plain(none);
  for (const auto engine : kEngines) {
    Sampler qs(engine), ps(engine);
    const exactsample_params p = PenalisingParams(16);
    const auto config = ConfigFor(vocab, &p, nullptr, 77);
    SequenceHandle a;
    ASSERT_EQ(exactsample_sequence_create(qs.s, &config, &a.p), EXACTSAMPLE_OK);
    Mirror ma;
    exactsample_rng_stream(77, EXACTSAMPLE_PURPOSE_SAMPLE, &ma.rng);
    const int32_t prompt[] = {1, 2, 3, 499};
    ASSERT_EQ(exactsample_sequence_accept_prompt(qs.s, a.p, prompt, 4), EXACTSAMPLE_OK);
    ma.prompt.assign(prompt, prompt + 4);
    const SequenceState fresh_state = [&] {
      SequenceHandle fresh;
      EXPECT_EQ(exactsample_sequence_create(qs.s, &config, &fresh.p), EXACTSAMPLE_OK);
      return StateOf(qs.s, fresh.p);
    }();
    for (int step = 0; step < 5; ++step) {
      ASSERT_TRUE(ExpectSameStep(qs, a.p, ps, ma, x, p, nullptr, plain, Append::in_request, "a"));
    }
    SequenceHandle b;
    ASSERT_EQ(exactsample_sequence_clone(qs.s, a.p, &b.p), EXACTSAMPLE_OK);
    EXPECT_EQ(StateOf(qs.s, b.p), StateOf(qs.s, a.p));
    Mirror mb = ma;
    Force(qs, a.p, ma, 10);
    Force(qs, b.p, mb, 11);
    for (int step = 0; step < 20; ++step) {
      ASSERT_TRUE(ExpectSameStep(qs, a.p, ps, ma, x, p, nullptr, plain, Append::in_request, "a"));
      ASSERT_TRUE(ExpectSameStep(qs, b.p, ps, mb, x, p, nullptr, plain, Append::after_the_fact, "b"));
    }
    EXPECT_NE(ma.generated, mb.generated);
    // A rollback: the ids go, the generator stays, and the tokens after
    // it equal the stateless call on the shorter history.
    exactsample_rng before_truncate;
    ASSERT_EQ(exactsample_sequence_rng(a.p, &before_truncate), EXACTSAMPLE_OK);
    ASSERT_EQ(exactsample_sequence_truncate(qs.s, a.p, 3), EXACTSAMPLE_OK) << LastError(qs);
    ma.generated.resize(3);
    size_t generated_len = 0;
    ASSERT_EQ(exactsample_sequence_lengths(a.p, nullptr, &generated_len), EXACTSAMPLE_OK);
    EXPECT_EQ(generated_len, 3u);
    exactsample_rng after_truncate;
    ASSERT_EQ(exactsample_sequence_rng(a.p, &after_truncate), EXACTSAMPLE_OK);
    EXPECT_EQ(after_truncate.state, before_truncate.state);
    EXPECT_EQ(after_truncate.draws_u32, before_truncate.draws_u32);
    for (int step = 0; step < 5; ++step) {
      ASSERT_TRUE(ExpectSameStep(qs, a.p, ps, ma, x, p, nullptr, plain, Append::in_request, "a"));
    }
    // A generator read before a token and put back after the token's
    // rollback draws that token again: the same id, logprob bits and
    // generator after it.
    for (int step = 0; step < 12; ++step) {
      const Mirror before = ma;
      exactsample_rng rng;
      ASSERT_EQ(exactsample_sequence_rng(a.p, &rng), EXACTSAMPLE_OK);
      ASSERT_TRUE(ExpectSameStep(qs, a.p, ps, ma, x, p, nullptr, plain, Append::in_request, "a"));
      ASSERT_EQ(exactsample_sequence_truncate(qs.s, a.p, before.generated.size()), EXACTSAMPLE_OK);
      ASSERT_EQ(exactsample_sequence_set_rng(qs.s, a.p, &rng), EXACTSAMPLE_OK);
      exactsample_rng put_back;
      ASSERT_EQ(exactsample_sequence_rng(a.p, &put_back), EXACTSAMPLE_OK);
      EXPECT_EQ(put_back.state, rng.state);
      EXPECT_EQ(put_back.inc, rng.inc);
      EXPECT_EQ(put_back.draws_u32, rng.draws_u32);
      Mirror again = before;
      ASSERT_TRUE(ExpectSameStep(qs, a.p, ps, again, x, p, nullptr, plain, Append::in_request, "again"));
      EXPECT_EQ(again.generated, ma.generated) << "step " << step;
      EXPECT_EQ(again.rng.state, ma.rng.state) << "step " << step;
      EXPECT_EQ(again.rng.draws_u32, ma.rng.draws_u32) << "step " << step;
    }
    ASSERT_EQ(exactsample_sequence_reset(qs.s, a.p), EXACTSAMPLE_OK);
    EXPECT_EQ(StateOf(qs.s, a.p), fresh_state);
  }
}

// Snapshot a sequence mid-request and restore it: the same state, and the
// same tokens as the original from there on.
TEST(CSequence, SnapshotRestoresEverything) {
  RandomCase c = CaseMaker(31).Make(31, 3000, /*features=*/true);
  c.params.temperature = 0.7;
  for (const auto engine : kEngines) {
    Sampler qs(engine), ps(engine);
    exactsample::SamplingParams sp = c.params;
    sp.penalty_last_n = 12;
    const exactsample_params p = CParams(sp);
    CExtras extras(c), plain(c);
    const auto config = ConfigFor(c.logits.size(), &p, &extras.extras, 5);
    SequenceHandle q;
    ASSERT_EQ(exactsample_sequence_create(qs.s, &config, &q.p), EXACTSAMPLE_OK) << LastError(qs);
    Mirror m;
    m.prompt = c.prompt;
    exactsample_rng_stream(5, EXACTSAMPLE_PURPOSE_SAMPLE, &m.rng);
    ASSERT_EQ(exactsample_sequence_accept_prompt(qs.s, q.p, m.prompt.data(), m.prompt.size()),
              EXACTSAMPLE_OK);
    for (int step = 0; step < 4; ++step) {
      ASSERT_TRUE(ExpectSameStep(qs, q.p, ps, m, c.logits, p, nullptr, plain, Append::in_request, "before"));
    }
    size_t size = 0;
    ASSERT_EQ(exactsample_sequence_snapshot(qs.s, q.p, nullptr, 0, &size), EXACTSAMPLE_OK);
    std::vector<unsigned char> bytes(size + 8, 0xAB);
    size_t written = 0;
    ASSERT_EQ(exactsample_sequence_snapshot(qs.s, q.p, bytes.data(), bytes.size(), &written),
              EXACTSAMPLE_OK);
    EXPECT_EQ(written, size);
    EXPECT_EQ(bytes[size], 0xAB) << "nothing beyond the snapshot is written";
    SequenceHandle r;
    ASSERT_EQ(exactsample_sequence_restore(qs.s, bytes.data(), size, &r.p), EXACTSAMPLE_OK)
        << LastError(qs);
    EXPECT_EQ(StateOf(qs.s, r.p), StateOf(qs.s, q.p));
    Mirror mr = m;
    for (int step = 0; step < 6; ++step) {
      ASSERT_TRUE(ExpectSameStep(qs, q.p, ps, m, c.logits, p, nullptr, plain, Append::in_request, "original"));
      ASSERT_TRUE(ExpectSameStep(qs, r.p, ps, mr, c.logits, p, nullptr, plain, Append::in_request, "restored"));
    }
    EXPECT_EQ(m.generated, mr.generated);
  }
}

// Every truncation and every flipped byte of a snapshot is refused, naming
// the snapshot; *out is left alone.
TEST(CSequence, TruncatedOrCorruptSnapshotsAreRefused) {
  Sampler s;
  const auto x = PeakedRow(40, 1);
  const exactsample_params p = PenalisingParams(3);
  const auto config = ConfigFor(40, &p, nullptr, 1);
  SequenceHandle q;
  ASSERT_EQ(exactsample_sequence_create(s.s, &config, &q.p), EXACTSAMPLE_OK);
  const int32_t prompt[] = {5, 6};
  ASSERT_EQ(exactsample_sequence_accept_prompt(s.s, q.p, prompt, 2), EXACTSAMPLE_OK);
  ASSERT_EQ(exactsample_sequence_accept(s.s, q.p, 9), EXACTSAMPLE_OK);
  const std::vector<unsigned char> bytes = StateOf(s.s, q.p).snapshot;
  ASSERT_FALSE(bytes.empty());
  exactsample_sequence* const sentinel = q.p;
  for (size_t len = 0; len < bytes.size(); ++len) {
    exactsample_sequence* out = sentinel;
    EXPECT_NE(exactsample_sequence_restore(s.s, bytes.data(), len, &out), EXACTSAMPLE_OK) << len;
    EXPECT_NE(LastError(s).find("snapshot"), std::string::npos) << LastError(s);
    EXPECT_EQ(out, sentinel);
  }
  for (size_t at = 0; at < bytes.size(); ++at) {
    for (const unsigned char flip : {0x01, 0x80}) {
      std::vector<unsigned char> bad = bytes;
      bad[at] ^= flip;
      exactsample_sequence* out = sentinel;
      EXPECT_NE(exactsample_sequence_restore(s.s, bad.data(), bad.size(), &out), EXACTSAMPLE_OK)
          << "byte " << at;
      EXPECT_NE(LastError(s).find("snapshot"), std::string::npos) << LastError(s);
      EXPECT_EQ(out, sentinel);
    }
  }
  std::vector<unsigned char> longer = bytes;
  longer.push_back(0);
  exactsample_sequence* out = sentinel;
  EXPECT_NE(exactsample_sequence_restore(s.s, longer.data(), longer.size(), &out), EXACTSAMPLE_OK);
  EXPECT_EQ(out, sentinel);
}

// The hand-off between processes: this process samples a few tokens and
// writes the snapshot to a file; a second process (this program again)
// restores it and samples the rest, which must equal this process going on.
const char* kSnapshotIn = "EXACTSAMPLE_TEST_SNAPSHOT_IN";
const char* kTokensOut = "EXACTSAMPLE_TEST_TOKENS_OUT";
constexpr size_t kHandOffVocab = 2000;

// Samples n tokens on q, each row from the last token, "id logprob-bits" lines.
std::string Continue(exactsample_sampler* s, exactsample_sequence* q, int32_t last, int n) {
  std::string out;
  for (int t = 0; t < n; ++t) {
    const auto x = PeakedRow(kHandOffVocab, static_cast<uint64_t>(last));
    exactsample_request r = RequestFor(x.data(), x.size());
    r.accept = 1;
    double logprob = 0;
    r.logprob = &logprob;
    exactsample_token tok;
    if (exactsample_sample_request(s, q, &r, &tok) != EXACTSAMPLE_OK) {
      return out + "error: " + exactsample_sampler_last_error(s) + "\n";
    }
    out += std::to_string(tok.id) + " " + std::to_string(Bits(logprob)) + "\n";
    last = tok.id;
  }
  return out;
}

TEST(CSequence, DISABLED_ContinueTheSnapshotFile) {
  const char* in = std::getenv(kSnapshotIn);
  const char* out = std::getenv(kTokensOut);
  ASSERT_TRUE(in != nullptr && out != nullptr);
  std::ifstream f(in, std::ios::binary);
  const std::vector<char> bytes{std::istreambuf_iterator<char>(f), {}};
  Sampler s;
  SequenceHandle q;
  ASSERT_EQ(exactsample_sequence_restore(s.s, bytes.data(), bytes.size(), &q.p), EXACTSAMPLE_OK)
      << LastError(s);
  // The first process's last token, which the next row depends on.
  std::ifstream last_file(std::string(in) + ".last");
  int32_t last = -1;
  last_file >> last;
  std::ofstream(out) << Continue(s.s, q.p, last, 12);
}

TEST(CSequence, SnapshotContinuesInAnotherProcess) {
  Sampler s;
  const exactsample_params p = PenalisingParams(32);
  const auto config = ConfigFor(kHandOffVocab, &p, nullptr, 2026);
  SequenceHandle q;
  ASSERT_EQ(exactsample_sequence_create(s.s, &config, &q.p), EXACTSAMPLE_OK);
  const int32_t prompt[] = {17, 1999, 4};
  ASSERT_EQ(exactsample_sequence_accept_prompt(s.s, q.p, prompt, 3), EXACTSAMPLE_OK);
  const std::string first = Continue(s.s, q.p, 4, 5);
  ASSERT_EQ(first.find("error"), std::string::npos) << first;
  const int32_t last = std::stoi(first.substr(first.rfind('\n', first.size() - 2) + 1));
  const std::vector<unsigned char> bytes = StateOf(s.s, q.p).snapshot;
  const std::string dir = testing::TempDir();
  const std::string in = dir + "c_sequence_snapshot.bin", out = dir + "c_sequence_tokens.txt";
  std::ofstream(in, std::ios::binary).write(reinterpret_cast<const char*>(bytes.data()),
                                            static_cast<std::streamsize>(bytes.size()));
  std::ofstream(in + ".last") << last;
  std::remove(out.c_str());
  const std::string env = "GTEST_ALSO_RUN_DISABLED_TESTS=1 " + std::string(kSnapshotIn) + "='" +
                          in + "' " + kTokensOut + "='" + out + "'";
  ASSERT_EQ(exactsample::test::RunSelf(env, "CSequence.DISABLED_ContinueTheSnapshotFile"), 0);
  std::ifstream got(out);
  const std::string continued{std::istreambuf_iterator<char>(got), {}};
  EXPECT_EQ(continued, Continue(s.s, q.p, last, 12));
  EXPECT_EQ(std::count(continued.begin(), continued.end(), '\n'), 12);
}

// Candidates: the ids and logits of a few ids equal the full row with -inf
// elsewhere, on sequences and stateless, call after call on one sampler.
TEST(CSequence, CandidatesEqualTheFullRow) {
  for (const auto engine : kEngines) {
    Sampler s(engine);
    for (uint64_t seed = 0; seed < Share(60); ++seed) {
      CaseMaker maker(500 + seed);
      const size_t vocab = 1 + maker.Below(seed % 5 == 0 ? 40000 : 600);
      exactsample::SamplingParams sp = maker.Params(vocab);
      sp.penalty_last_n = WindowFor(seed);
      const exactsample_params p = CParams(sp);
      std::vector<int32_t> order(vocab);
      std::iota(order.begin(), order.end(), 0);
      for (size_t j = vocab; j > 1; --j) std::swap(order[j - 1], order[maker.Below(static_cast<uint32_t>(j))]);
      const size_t count = seed % 7 == 0 ? vocab : 1 + maker.Below(static_cast<uint32_t>(std::min<size_t>(vocab, 64)));
      std::vector<int32_t> ids(order.begin(), order.begin() + static_cast<std::ptrdiff_t>(count));
      std::vector<float> values(count), full(vocab, -INFINITY);
      for (size_t j = 0; j < count; ++j) {
        values[j] = maker.Chance(0.1) ? -INFINITY : static_cast<float>(3 * maker.Normal());
        full[ids[j]] = values[j];
      }
      values[0] = full[ids[0]] = 1.0f;  // one finite logit
      const std::string where = "seed " + std::to_string(seed);

      const auto config = ConfigFor(vocab, &p, nullptr, seed);
      SequenceHandle a, b;
      ASSERT_EQ(exactsample_sequence_create(s.s, &config, &a.p), EXACTSAMPLE_OK) << LastError(s);
      const int32_t prompt_id = ids[0];
      ASSERT_EQ(exactsample_sequence_accept_prompt(s.s, a.p, &prompt_id, 1), EXACTSAMPLE_OK);
      ASSERT_EQ(exactsample_sequence_clone(s.s, a.p, &b.p), EXACTSAMPLE_OK);
      exactsample_rng ra, rb;
      exactsample_rng_stream(seed, EXACTSAMPLE_PURPOSE_SAMPLE, &ra);
      rb = ra;
      for (int step = 0; step < 3; ++step) {
        exactsample_request with = RequestFor(values.data(), vocab);
        with.candidate_ids = ids.data();
        with.candidate_count = count;
        exactsample_request plain = RequestFor(full.data(), vocab);
        double la = 0, lb = 0;
        with.logprob = &la;
        plain.logprob = &lb;
        exactsample_token ta, tb;
        with.accept = plain.accept = 1;
        const auto sa = exactsample_sample_request(s.s, a.p, &with, &ta);
        const auto sb = exactsample_sample_request(s.s, b.p, &plain, &tb);
        ASSERT_EQ(sa, sb) << where << LastError(s);
        EXPECT_EQ(ta.id, tb.id) << where;
        EXPECT_EQ(Bits(la), Bits(lb)) << where;
        EXPECT_EQ(StateOf(s.s, a.p), StateOf(s.s, b.p)) << where;
        // Stateless, with the same history.
        with.accept = plain.accept = 0;
        with.rng = &ra;
        plain.rng = &rb;
        const auto ua = exactsample_sample_request(s.s, nullptr, &with, &ta);
        const auto ub = exactsample_sample_request(s.s, nullptr, &plain, &tb);
        ASSERT_EQ(ua, ub) << where;
        EXPECT_EQ(ta.id, tb.id) << where;
        EXPECT_EQ(Bits(la), Bits(lb)) << where;
        EXPECT_EQ(ra.state, rb.state);
        EXPECT_EQ(ra.draws_u32, rb.draws_u32);
        if (sa != EXACTSAMPLE_OK) break;
      }
    }
  }
}

// The kept output: the C++ distribution (ids ascending, q bits), at most
// kept_capacity entries written, kept_count the full count.
TEST(CSequence, KeptOutputIsTheDistribution) {
  for (const auto engine : kEngines) {
    Sampler s(engine);
    exactsample::Workspace ws;
    for (uint64_t seed = 0; seed < Share(80); ++seed) {
      CaseMaker maker(900 + seed);
      const RandomCase c = maker.Make(900 + seed, 5000);
      const size_t vocab = c.logits.size();
      const exactsample_params p = CParams(c.params);
      std::vector<exactsample::KeptProb> want;
      exactsample::SampleOptions o;
      o.engine = engine == EXACTSAMPLE_ENGINE_FAST ? exactsample::Engine::fast
                                                    : exactsample::Engine::reference;
      o.distribution = &want;
      auto cpp_rng = exactsample::stream(seed, exactsample::Purpose::sample);
      const auto t = exactsample::sample(c.At(c.generated), cpp_rng, ws, o);
      const size_t capacity = seed % 3 == 0 ? vocab : seed % 3 == 1 ? maker.Below(4) : 0;
      std::vector<int32_t> ids(capacity + 1, -5);
      std::vector<double> probs(capacity + 1, -5.0);
      size_t count = 12345;
      exactsample_rng rng;
      exactsample_rng_stream(seed, EXACTSAMPLE_PURPOSE_SAMPLE, &rng);
      exactsample_request r = RequestFor(c.logits.data(), vocab);
      r.prompt = c.prompt.data();
      r.prompt_len = c.prompt.size();
      r.generated = c.generated.data();
      r.generated_len = c.generated.size();
      r.rng = &rng;
      r.params = &p;
      r.kept_ids = seed % 4 == 1 ? nullptr : ids.data();
      r.kept_probs = seed % 4 == 2 ? nullptr : probs.data();
      r.kept_capacity = capacity;
      r.kept_count = &count;
      exactsample_token tok;
      const auto st = exactsample_sample_request(s.s, nullptr, &r, &tok);
      const std::string where = "seed " + std::to_string(seed);
      ASSERT_EQ(st == EXACTSAMPLE_OK, t.ok()) << where << LastError(s);
      if (!t) {
        EXPECT_EQ(count, 12345u) << where;
        continue;
      }
      EXPECT_EQ(tok.id, t->id) << where;
      EXPECT_EQ(rng.draws_u32, cpp_rng.draws_u32()) << where;
      ASSERT_EQ(count, want.size()) << where;
      if (c.params.temperature == 0.0) {
        ASSERT_EQ(want.size(), 1u);
        EXPECT_EQ(want[0].id, t->id);
        EXPECT_EQ(want[0].q, 1.0);
      }
      const size_t written = std::min(capacity, want.size());
      for (size_t j = 0; j < written; ++j) {
        if (r.kept_ids != nullptr) {
          EXPECT_EQ(ids[j], want[j].id) << where << " entry " << j;
        }
        if (r.kept_probs != nullptr) {
          EXPECT_EQ(Bits(probs[j]), Bits(want[j].q)) << where << " entry " << j;
        }
      }
      for (size_t j = written; j <= capacity; ++j) {
        EXPECT_EQ(ids[j], -5) << where << " entry " << j << " is beyond what was written";
        EXPECT_EQ(probs[j], -5.0) << where;
      }
    }
  }
}

// f16 and bf16 words (every finite pattern allowed) on a sequence equal
// a stateless request on them with the full history.
TEST(CSequence, HalfRowsOnASequence) {
  for (const auto engine : kEngines) {
    for (const int type : {EXACTSAMPLE_LOGITS_F16, EXACTSAMPLE_LOGITS_BF16}) {
      Sampler qs(engine), ps(engine);
      const size_t vocab = 3000;
      SplitMix g{static_cast<uint64_t>(type)};
      std::vector<uint16_t> words(vocab);
      // The exponent's top bit clear: finite words with |x| < 2.
      for (auto& w : words) w = static_cast<uint16_t>(g.Next() & 0xBFFF);
      const exactsample_params p = PenalisingParams(type == EXACTSAMPLE_LOGITS_F16 ? 0 : 5);
      const auto config = ConfigFor(vocab, &p, nullptr, 3);
      SequenceHandle q;
      ASSERT_EQ(exactsample_sequence_create(qs.s, &config, &q.p), EXACTSAMPLE_OK);
      Mirror m;
      exactsample_rng_stream(3, EXACTSAMPLE_PURPOSE_SAMPLE, &m.rng);
      for (int step = 0; step < 12; ++step) {
        exactsample_request r = RequestFor(words.data(), vocab, type);
        r.accept = 1;
        double logprob = 0;
        r.logprob = &logprob;
        exactsample_token t;
        ASSERT_EQ(exactsample_sample_request(qs.s, q.p, &r, &t), EXACTSAMPLE_OK) << LastError(qs);
        int32_t id = -1;
        double plain_logprob = 1;
        ASSERT_EQ(
            SampleStateless(ps.s, words.data(), vocab, nullptr, 0, m.generated.data(),
                            m.generated.size(), &p, nullptr, &m.rng, &id, &plain_logprob, type),
            EXACTSAMPLE_OK);
        EXPECT_EQ(t.id, id);
        EXPECT_EQ(Bits(logprob), Bits(plain_logprob));
        m.generated.push_back(id);
        exactsample_rng rng;
        exactsample_sequence_rng(q.p, &rng);
        EXPECT_EQ(rng.state, m.rng.state);
        EXPECT_EQ(rng.draws_u32, m.rng.draws_u32);
      }
    }
  }
}

// A batch mixing sequences and stateless rows, per-row pointers and a
// shared matrix with row_stride, candidates, kept outputs and a bad row:
// every row as exactsample_sample_request alone, on every thread count.
TEST(CSequence, BatchRowsEqualSingleRequests) {
  constexpr size_t kRows = 8, kVocab = 700, kStride = 750;
  std::vector<float> matrix(kRows * kStride, 0.0f);
  for (size_t i = 0; i < kRows; ++i) {
    const auto x = PeakedRow(kVocab, 40 + i);
    std::copy(x.begin(), x.end(), matrix.begin() + static_cast<std::ptrdiff_t>(i * kStride));
  }
  const int32_t candidate_ids[] = {9, 2, 650, 77, 14};
  const float candidate_values[] = {1.0f, 2.5f, 0.5f, -INFINITY, 2.5f};
  std::vector<exactsample_params> params;
  for (size_t i = 0; i < kRows; ++i) params.push_back(PenalisingParams(static_cast<int64_t>(i % 3) * 4));
  params[2].temperature = 0.0;
  for (const auto engine : kEngines) {
    for (const int threads : {1, 3}) {
      Sampler batch_sampler(engine), single_sampler(engine);
      std::vector<SequenceHandle> batch_seqs(kRows), single_seqs(kRows);
      std::vector<exactsample_rng> batch_rngs(kRows), single_rngs(kRows);
      std::vector<exactsample_sequence*> sequences(kRows, nullptr);
      for (size_t i = 0; i < kRows; ++i) {
        exactsample_rng_stream(i, EXACTSAMPLE_PURPOSE_SAMPLE, &batch_rngs[i]);
        single_rngs[i] = batch_rngs[i];
        if (i % 2 == 1) continue;  // odd rows are stateless
        const auto config = ConfigFor(kVocab, &params[i], nullptr, 60 + i);
        ASSERT_EQ(exactsample_sequence_create(batch_sampler.s, &config, &batch_seqs[i].p), EXACTSAMPLE_OK);
        const int32_t prompt[] = {static_cast<int32_t>(i), 9, 650};
        ASSERT_EQ(exactsample_sequence_accept_prompt(batch_sampler.s, batch_seqs[i].p, prompt, 3), EXACTSAMPLE_OK);
        ASSERT_EQ(exactsample_sequence_clone(single_sampler.s, batch_seqs[i].p, &single_seqs[i].p), EXACTSAMPLE_OK);
        sequences[i] = batch_seqs[i].p;
      }
      const int32_t history[] = {9, 9, 14};
      std::vector<exactsample_request> requests(kRows);
      std::vector<double> logprobs(kRows, 0.0), single_logprobs(kRows, 0.0);
      std::vector<std::array<int32_t, 8>> kept(kRows), single_kept(kRows);
      std::vector<size_t> kept_count(kRows, 0), single_kept_count(kRows, 0);
      for (size_t i = 0; i < kRows; ++i) {
        exactsample_request& r = requests[i];
        r = RequestFor(&matrix[i * kStride], kVocab);
        if (i % 4 == 1) {  // the matrix's start, found by row_stride
          r.logits = matrix.data();
          r.row_stride = kStride;
        }
        if (i == 4) {
          r.logits = candidate_values;
          r.candidate_ids = candidate_ids;
          r.candidate_count = 5;
        }
        if (i % 2 == 1) {
          r.rng = &batch_rngs[i];
          r.generated = history;
          r.generated_len = 3;
          r.generated_checked = i == 3 ? 2 : 0;
        } else {
          r.accept = i % 4 == 0;
        }
        r.params = &params[i];
        r.logprob = i == 6 ? nullptr : &logprobs[i];
        if (i == 5 || i == 6) {
          r.kept_ids = kept[i].data();
          r.kept_capacity = kept[i].size();
          r.kept_count = &kept_count[i];
        }
      }
      requests[7].logits_type = 9;  // a bad row
      std::vector<exactsample_token> results(kRows);
      EXPECT_EQ(exactsample_sample_requests(batch_sampler.s, sequences.data(), requests.data(), kRows,
                                            results.data(), threads),
                EXACTSAMPLE_INVALID_ARGUMENT);
      EXPECT_NE(LastError(batch_sampler).find("requests[7].logits_type = 9"), std::string::npos)
          << LastError(batch_sampler);
      for (size_t i = 0; i < kRows; ++i) {
        exactsample_request r = requests[i];
        if (r.row_stride != 0) r.logits = &matrix[i * kStride];  // single calls ignore row_stride
        if (r.rng != nullptr) r.rng = &single_rngs[i];
        if (r.logprob != nullptr) r.logprob = &single_logprobs[i];
        if (r.kept_ids != nullptr) {
          r.kept_ids = single_kept[i].data();
          r.kept_count = &single_kept_count[i];
        }
        exactsample_token t;
        const auto st = exactsample_sample_request(single_sampler.s, single_seqs[i].p, &r, &t);
        const std::string where = "row " + std::to_string(i) + " threads " + std::to_string(threads);
        EXPECT_EQ(results[i].status, st) << where;
        if (st == EXACTSAMPLE_OK) {
          EXPECT_STREQ(exactsample_sampler_row_error(batch_sampler.s, i), "") << where;
        }
        EXPECT_EQ(results[i].id, t.id) << where;
        EXPECT_EQ(Bits(results[i].logprob), Bits(t.logprob)) << where;
        EXPECT_EQ(Bits(logprobs[i]), Bits(single_logprobs[i])) << where;
        EXPECT_EQ(kept[i], single_kept[i]) << where;
        EXPECT_EQ(kept_count[i], single_kept_count[i]) << where;
        EXPECT_EQ(batch_rngs[i].state, single_rngs[i].state) << where;
        EXPECT_EQ(batch_rngs[i].draws_u32, single_rngs[i].draws_u32) << where;
        if (sequences[i] != nullptr) {
          EXPECT_EQ(StateOf(batch_sampler.s, batch_seqs[i].p), StateOf(single_sampler.s, single_seqs[i].p))
              << where;
        }
      }
      EXPECT_EQ(results[6].status, EXACTSAMPLE_OK);
      EXPECT_TRUE(std::isnan(results[6].logprob)) << "no logprob asked for";
      EXPECT_GT(kept_count[5], 0u);
      EXPECT_EQ(results[7].status, EXACTSAMPLE_INVALID_ARGUMENT);
    }
  }
}

// The old struct_size (before penalty_last_n) still works, as window 0;
// exactsample_params_init sets the new field.
TEST(CSequence, ParamsFromOlderCallers) {
  exactsample_params p;
  p.penalty_last_n = 99;
  exactsample_params_init(&p);
  EXPECT_EQ(p.struct_size, sizeof(exactsample_params));
  EXPECT_EQ(p.penalty_last_n, 0);
  const auto x = PeakedRow(200, 8);
  const int32_t history[] = {7, 14, 7, 21, 7};
  exactsample_params old = PenalisingParams(0);
  old.struct_size = offsetof(exactsample_params, penalty_last_n);
  old.penalty_last_n = 2;  // beyond the older struct: not read
  const exactsample_params whole = PenalisingParams(0);
  const exactsample_params windowed = PenalisingParams(2);
  Sampler s;
  std::vector<int32_t> ids;
  for (const exactsample_params* q : std::array<const exactsample_params*, 3>{&old, &whole, &windowed}) {
    exactsample_rng rng;
    exactsample_rng_stream(4, EXACTSAMPLE_PURPOSE_SAMPLE, &rng);
    std::vector<int32_t> got;
    for (int step = 0; step < 30; ++step) {
      int32_t id = -1;
      ASSERT_EQ(SampleStateless(s.s, x.data(), x.size(), history, 5, got.data(), got.size(), q,
                                nullptr, &rng, &id, nullptr),
                EXACTSAMPLE_OK)
          << LastError(s);
      got.push_back(id);
    }
    if (q == &old) {
      ids = got;
    } else if (q == &whole) {
      EXPECT_EQ(got, ids);
    } else {
      EXPECT_NE(got, ids) << "the window changes this stream";
    }
  }
}

// Bad input: every refusal names the field and the value, leaves the
// sequence as it was (its snapshot's bytes, generator and lengths) and
// takes no draw.
class BadInput : public testing::Test {
 protected:
  static constexpr size_t kVocab = 16;

  void SetUp() override {
    const auto config = ConfigFor(kVocab, &params_, nullptr, 1);
    ASSERT_EQ(exactsample_sequence_create(s_.s, &config, &q_.p), EXACTSAMPLE_OK);
    const int32_t prompt[] = {1, 2};
    ASSERT_EQ(exactsample_sequence_accept_prompt(s_.s, q_.p, prompt, 2), EXACTSAMPLE_OK);
    ASSERT_EQ(exactsample_sequence_accept(s_.s, q_.p, 3), EXACTSAMPLE_OK);
    before_ = StateOf(s_.s, q_.p);
    exactsample_rng_stream(2, EXACTSAMPLE_PURPOSE_SAMPLE, &rng_);
  }

  void TearDown() override {
    EXPECT_EQ(StateOf(s_.s, q_.p), before_);
    exactsample_rng fresh;
    exactsample_rng_stream(2, EXACTSAMPLE_PURPOSE_SAMPLE, &fresh);
    EXPECT_EQ(rng_.state, fresh.state);
    EXPECT_EQ(rng_.draws_u32, fresh.draws_u32);
  }

  void Refused(exactsample_status got, exactsample_status want, const std::string& needle) {
    EXPECT_EQ(got, want) << needle << ": " << LastError(s_);
    EXPECT_NE(LastError(s_).find(needle), std::string::npos)
        << "\"" << LastError(s_) << "\" does not name " << needle;
  }

  // A request on the sequence (or stateless: the generator rng_) that must
  // be refused, by exactsample_validate_request too; out gets the status,
  // -1 and 0.
  void RequestRefused(exactsample_sequence* q, const exactsample_request& r,
                      exactsample_status want, const std::string& needle) {
    Refused(exactsample_validate_request(s_.s, q, &r), want, needle);
    exactsample_token t{EXACTSAMPLE_OK, 5, 5.0};
    Refused(exactsample_sample_request(s_.s, q, &r, &t), want, needle);
    EXPECT_EQ(t.status, want);
    EXPECT_EQ(t.id, -1);
  }

  exactsample_request Row() const { return RequestFor(x_.data(), kVocab); }
  exactsample_request Stateless() {
    exactsample_request r = Row();
    r.rng = &rng_;
    return r;
  }

  Sampler s_;
  SequenceHandle q_;
  exactsample_params params_ = PenalisingParams(4);
  std::vector<float> x_ = PeakedRow(kVocab, 2);
  SequenceState before_;
  exactsample_rng rng_{};
};

TEST_F(BadInput, Create) {
  exactsample_sequence* const sentinel = q_.p;
  exactsample_sequence* out = sentinel;
  auto config = ConfigFor(kVocab, nullptr, nullptr, 1);
  Refused(exactsample_sequence_create(s_.s, nullptr, &out), EXACTSAMPLE_INVALID_ARGUMENT, "config is NULL");
  Refused(exactsample_sequence_create(s_.s, &config, nullptr), EXACTSAMPLE_INVALID_ARGUMENT, "out is NULL");
  EXPECT_EQ(exactsample_sequence_create(nullptr, &config, &out), EXACTSAMPLE_INVALID_ARGUMENT);
  config.struct_size = 8;
  Refused(exactsample_sequence_create(s_.s, &config, &out), EXACTSAMPLE_INVALID_ARGUMENT,
          "exactsample_sequence_config.struct_size = 8, expected " +
              std::to_string(sizeof(exactsample_sequence_config)));
  config = ConfigFor(0, nullptr, nullptr, 1);
  Refused(exactsample_sequence_create(s_.s, &config, &out), EXACTSAMPLE_INVALID_LOGITS, "vocab = 0");
  exactsample_params p = params_;
  p.struct_size = 3;
  config = ConfigFor(kVocab, &p, nullptr, 1);
  Refused(exactsample_sequence_create(s_.s, &config, &out), EXACTSAMPLE_INVALID_ARGUMENT,
          "config.params: exactsample_params.struct_size = 3");
  p = params_;
  p.penalty_last_n = -1;
  Refused(exactsample_sequence_create(s_.s, &config, &out), EXACTSAMPLE_INVALID_PARAMETER,
          "penalty_last_n = -1");
  p = params_;
  p.temperature = -2;
  Refused(exactsample_sequence_create(s_.s, &config, &out), EXACTSAMPLE_INVALID_PARAMETER,
          "temperature = -2");
  exactsample_extras x{};
  x.struct_size = 1;
  config = ConfigFor(kVocab, nullptr, &x, 1);
  Refused(exactsample_sequence_create(s_.s, &config, &out), EXACTSAMPLE_INVALID_ARGUMENT,
          "config.extras: exactsample_extras.struct_size = 1");
  x.struct_size = sizeof x;
  x.bias_len = 2;
  Refused(exactsample_sequence_create(s_.s, &config, &out), EXACTSAMPLE_INVALID_ARGUMENT,
          "config.extras.bias_ids is NULL with bias_len = 2");
  const int32_t far[] = {16};
  const double value[] = {1.0};
  x.bias_ids = far;
  x.bias_values = value;
  x.bias_len = 1;
  Refused(exactsample_sequence_create(s_.s, &config, &out), EXACTSAMPLE_INVALID_IDS, "= 16");
  x = {};
  x.struct_size = sizeof x;
  x.top_logprobs = 21;
  Refused(exactsample_sequence_create(s_.s, &config, &out), EXACTSAMPLE_INVALID_PARAMETER,
          "top_logprobs = 21");
  EXPECT_EQ(out, sentinel);
}

TEST_F(BadInput, AcceptAndLifecycle) {
  for (const int32_t id : {-1, 16, INT32_MIN, INT32_MAX}) {
    Refused(exactsample_sequence_accept(s_.s, q_.p, id), EXACTSAMPLE_INVALID_IDS,
            "id = " + std::to_string(id));
  }
  const int32_t ids[] = {4, 5, 16, 6};
  Refused(exactsample_sequence_accept_prompt(s_.s, q_.p, ids, 4), EXACTSAMPLE_INVALID_IDS,
          "prompt[2] = 16");
  Refused(exactsample_sequence_accept_prompt(s_.s, q_.p, nullptr, 3), EXACTSAMPLE_INVALID_ARGUMENT,
          "ids is NULL with n = 3");
  Refused(exactsample_sequence_accept(s_.s, nullptr, 1), EXACTSAMPLE_INVALID_ARGUMENT, "sequence is NULL");
  Refused(exactsample_sequence_accept_prompt(s_.s, nullptr, ids, 1), EXACTSAMPLE_INVALID_ARGUMENT,
          "sequence is NULL");
  Refused(exactsample_sequence_reset(s_.s, nullptr), EXACTSAMPLE_INVALID_ARGUMENT, "sequence is NULL");
  Refused(exactsample_sequence_truncate(s_.s, q_.p, 2), EXACTSAMPLE_INVALID_PARAMETER,
          "length = 2: above the 1 generated ids");
  Refused(exactsample_sequence_truncate(s_.s, nullptr, 0), EXACTSAMPLE_INVALID_ARGUMENT,
          "sequence is NULL");
  EXPECT_EQ(exactsample_sequence_truncate(nullptr, q_.p, 0), EXACTSAMPLE_INVALID_ARGUMENT);
  Refused(exactsample_validate_request(s_.s, q_.p, nullptr), EXACTSAMPLE_INVALID_ARGUMENT,
          "request is NULL");
  EXPECT_EQ(exactsample_validate_request(nullptr, q_.p, nullptr), EXACTSAMPLE_INVALID_ARGUMENT);
  exactsample_sequence* out = q_.p;
  Refused(exactsample_sequence_clone(s_.s, nullptr, &out), EXACTSAMPLE_INVALID_ARGUMENT, "sequence is NULL");
  Refused(exactsample_sequence_clone(s_.s, q_.p, nullptr), EXACTSAMPLE_INVALID_ARGUMENT, "out is NULL");
  EXPECT_EQ(out, q_.p);
  EXPECT_EQ(exactsample_sequence_accept(nullptr, q_.p, 1), EXACTSAMPLE_INVALID_ARGUMENT);
  EXPECT_EQ(exactsample_sequence_reset(nullptr, q_.p), EXACTSAMPLE_INVALID_ARGUMENT);
  exactsample_rng rng;
  EXPECT_EQ(exactsample_sequence_rng(nullptr, &rng), EXACTSAMPLE_INVALID_ARGUMENT);
  EXPECT_EQ(exactsample_sequence_rng(q_.p, nullptr), EXACTSAMPLE_INVALID_ARGUMENT);
  rng = {12, 13, 14};
  Refused(exactsample_sequence_set_rng(s_.s, nullptr, &rng), EXACTSAMPLE_INVALID_ARGUMENT,
          "sequence is NULL");
  Refused(exactsample_sequence_set_rng(s_.s, q_.p, nullptr), EXACTSAMPLE_INVALID_ARGUMENT,
          "rng is NULL");
  EXPECT_EQ(exactsample_sequence_set_rng(nullptr, q_.p, &rng), EXACTSAMPLE_INVALID_ARGUMENT);
  EXPECT_EQ(exactsample_sequence_lengths(nullptr, nullptr, nullptr), EXACTSAMPLE_INVALID_ARGUMENT);
  EXPECT_EQ(exactsample_sequence_lengths(q_.p, nullptr, nullptr), EXACTSAMPLE_OK);
  exactsample_sequence_destroy(nullptr);
}

TEST_F(BadInput, SnapshotArguments) {
  size_t size = 0;
  Refused(exactsample_sequence_snapshot(s_.s, q_.p, nullptr, 0, nullptr), EXACTSAMPLE_INVALID_ARGUMENT,
          "size is NULL");
  Refused(exactsample_sequence_snapshot(s_.s, nullptr, nullptr, 0, &size), EXACTSAMPLE_INVALID_ARGUMENT,
          "sequence is NULL");
  std::vector<unsigned char> small(before_.snapshot.size() - 1, 0xCD);
  size = 77;
  Refused(exactsample_sequence_snapshot(s_.s, q_.p, small.data(), small.size(), &size),
          EXACTSAMPLE_INVALID_ARGUMENT,
          "capacity = " + std::to_string(small.size()) + " is smaller than the snapshot's " +
              std::to_string(before_.snapshot.size()) + " bytes");
  EXPECT_EQ(size, 77u);
  EXPECT_EQ(std::count(small.begin(), small.end(), 0xCD), static_cast<std::ptrdiff_t>(small.size()));
  exactsample_sequence* out = q_.p;
  Refused(exactsample_sequence_restore(s_.s, nullptr, 5, &out), EXACTSAMPLE_INVALID_ARGUMENT,
          "snapshot is NULL with size = 5");
  Refused(exactsample_sequence_restore(s_.s, before_.snapshot.data(), before_.snapshot.size(), nullptr),
          EXACTSAMPLE_INVALID_ARGUMENT, "out is NULL");
  EXPECT_EQ(out, q_.p);
}

TEST_F(BadInput, RequestOnASequence) {
  exactsample_token t;
  Refused(exactsample_sample_request(s_.s, q_.p, nullptr, &t), EXACTSAMPLE_INVALID_ARGUMENT, "request is NULL");
  exactsample_request r = Row();
  Refused(exactsample_sample_request(s_.s, q_.p, &r, nullptr), EXACTSAMPLE_INVALID_ARGUMENT, "out is NULL");
  EXPECT_EQ(exactsample_sample_request(nullptr, q_.p, &r, &t), EXACTSAMPLE_INVALID_ARGUMENT);
  r.struct_size = 5;
  RequestRefused(q_.p, r, EXACTSAMPLE_INVALID_ARGUMENT,
                 "exactsample_request.struct_size = 5, expected " +
                     std::to_string(sizeof(exactsample_request)));
  r = Row();
  r.logits = nullptr;
  RequestRefused(q_.p, r, EXACTSAMPLE_INVALID_ARGUMENT, "request.logits is NULL with vocab = 16");
  r = Row();
  r.logits_type = 3;
  RequestRefused(q_.p, r, EXACTSAMPLE_INVALID_ARGUMENT, "request.logits_type = 3");
  r = Row();
  r.vocab = 15;
  RequestRefused(q_.p, r, EXACTSAMPLE_INVALID_LOGITS, "request.vocab = 15");
  r = Row();
  r.vocab = 17;  // the sequence's V is 16 whatever the row holds
  RequestRefused(q_.p, r, EXACTSAMPLE_INVALID_LOGITS, "request.vocab = 17");
  std::vector<float> nan_row = x_;
  nan_row[3] = NAN;
  r = Row();
  r.logits = nan_row.data();
  RequestRefused(q_.p, r, EXACTSAMPLE_INVALID_LOGITS, "logits[3] = nan");
  // The stateless fields, which a sequence supplies itself.
  const int32_t ids[] = {1};
  exactsample_rng rng;
  exactsample_rng_stream(1, EXACTSAMPLE_PURPOSE_SAMPLE, &rng);
  for (const char* field : {"prompt", "prompt_len", "generated", "generated_len", "generated_checked", "rng"}) {
    r = Row();
    const std::string f = field;
    if (f == "prompt") r.prompt = ids;
    if (f == "prompt_len") r.prompt_len = 1;
    if (f == "generated") r.generated = ids;
    if (f == "generated_len") r.generated_len = 1;
    if (f == "generated_checked") r.generated_checked = 1;
    if (f == "rng") r.rng = &rng;
    RequestRefused(q_.p, r, EXACTSAMPLE_INVALID_ARGUMENT, "request." + f + " is set with a sequence");
  }
  exactsample_params p = params_;
  p.struct_size = 9;
  r = Row();
  r.params = &p;
  RequestRefused(q_.p, r, EXACTSAMPLE_INVALID_ARGUMENT, "request.params: exactsample_params.struct_size = 9");
  p = params_;
  p.penalty_last_n = -2;
  RequestRefused(q_.p, r, EXACTSAMPLE_INVALID_PARAMETER, "penalty_last_n = -2");
  p = params_;
  p.top_p = -0.5;
  RequestRefused(q_.p, r, EXACTSAMPLE_INVALID_PARAMETER, "top_p = -0.5");
  exactsample_extras x{};
  x.struct_size = sizeof x + 1;
  r = Row();
  r.extras = &x;
  RequestRefused(q_.p, r, EXACTSAMPLE_INVALID_ARGUMENT, "request.extras: exactsample_extras.struct_size = " + std::to_string(sizeof x + 1));
  x.struct_size = sizeof x;
  x.top_logprobs = 3;
  RequestRefused(q_.p, r, EXACTSAMPLE_INVALID_ARGUMENT, "request.extras.top_logprobs = 3 needs top_ids and top_logprob_values");
  x.top_logprobs = 0;
  x.allowed_len = 4;
  RequestRefused(q_.p, r, EXACTSAMPLE_INVALID_ARGUMENT, "request.extras.allowed_ids is NULL with allowed_len = 4");
  x.allowed_len = 0;
  const int32_t banned_all[] = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15};
  x.banned_ids = banned_all;
  x.banned_len = 16;
  RequestRefused(q_.p, r, EXACTSAMPLE_DEGENERATE, "");
  int32_t kept[4];
  r = Row();
  r.kept_ids = kept;
  r.kept_capacity = 4;
  RequestRefused(q_.p, r, EXACTSAMPLE_INVALID_ARGUMENT, "request.kept_count is NULL while kept_ids or kept_probs is given");
}

TEST_F(BadInput, Candidates) {
  const float values[] = {1.0f, 2.0f, 3.0f};
  for (const auto& [ids, needle] :
       {std::pair<std::array<int32_t, 3>, std::string>{{4, 16, 5}, "request.candidate_ids[1] = 16: outside [0, 16)"},
        {{-1, 2, 5}, "request.candidate_ids[0] = -1: outside [0, 16)"},
        {{3, 7, 3}, "request.candidate_ids[2] = 3: given twice"}}) {
    exactsample_request r = Row();
    r.logits = values;
    r.candidate_ids = ids.data();
    r.candidate_count = 3;
    RequestRefused(q_.p, r, EXACTSAMPLE_INVALID_IDS, needle);
    r.accept = 0;
    r.rng = &rng_;
    RequestRefused(nullptr, r, EXACTSAMPLE_INVALID_IDS, needle);
  }
  exactsample_request r = Row();
  r.candidate_count = 2;
  RequestRefused(q_.p, r, EXACTSAMPLE_INVALID_ARGUMENT, "request.candidate_ids is NULL with candidate_count = 2");
  const int32_t ids[] = {1, 2};
  const uint16_t words[] = {0x3C00, 0x4000};
  r = RequestFor(words, kVocab, EXACTSAMPLE_LOGITS_F16);
  r.candidate_ids = ids;
  r.candidate_count = 2;
  RequestRefused(q_.p, r, EXACTSAMPLE_INVALID_ARGUMENT, "request.logits_type = 1 with candidate_ids");
  // After the refusals the candidates row is clean: a good call equals the full row.
  r = Row();
  r.logits = values;
  r.candidate_ids = ids;
  r.candidate_count = 2;
  r.rng = &rng_;
  exactsample_token t;
  exactsample_rng saved = rng_;
  ASSERT_EQ(exactsample_sample_request(s_.s, nullptr, &r, &t), EXACTSAMPLE_OK) << LastError(s_);
  EXPECT_TRUE(t.id == 1 || t.id == 2) << t.id;
  rng_ = saved;  // TearDown checks the generator of the refused calls
}

TEST_F(BadInput, StatelessRequest) {
  exactsample_request r = Row();
  RequestRefused(nullptr, r, EXACTSAMPLE_INVALID_ARGUMENT, "request.rng is NULL");
  r = Stateless();
  r.accept = 1;
  RequestRefused(nullptr, r, EXACTSAMPLE_INVALID_ARGUMENT, "request.accept = 1 without a sequence");
  r = Stateless();
  r.prompt_len = 2;
  RequestRefused(nullptr, r, EXACTSAMPLE_INVALID_ARGUMENT, "request.prompt is NULL with prompt_len = 2");
  r = Stateless();
  r.generated_len = 1;
  RequestRefused(nullptr, r, EXACTSAMPLE_INVALID_ARGUMENT, "request.generated is NULL with generated_len = 1");
  const int32_t far[] = {3, 16};
  r = Stateless();
  r.generated = far;
  r.generated_len = 2;
  r.generated_checked = 1;  // only the rest is checked: 16 still is
  RequestRefused(nullptr, r, EXACTSAMPLE_INVALID_IDS, "generated[1] = 16");
  exactsample_params p = params_;
  p.penalty_last_n = -7;
  r = Stateless();
  r.params = &p;
  RequestRefused(nullptr, r, EXACTSAMPLE_INVALID_PARAMETER, "penalty_last_n = -7");
}

TEST_F(BadInput, Batch) {
  std::vector<exactsample_token> results(3);
  exactsample_request rows[3] = {Row(), Row(), Row()};
  exactsample_sequence* seqs[3] = {q_.p, nullptr, q_.p};
  Refused(exactsample_sample_requests(s_.s, seqs, nullptr, 3, results.data(), 1),
          EXACTSAMPLE_INVALID_ARGUMENT, "requests is NULL");
  Refused(exactsample_sample_requests(s_.s, seqs, rows, 3, nullptr, 1), EXACTSAMPLE_INVALID_ARGUMENT,
          "results is NULL");
  EXPECT_EQ(exactsample_sample_requests(s_.s, nullptr, nullptr, 0, nullptr, 1), EXACTSAMPLE_OK);
  // Row 0's vocab is not the sequence's, row 1 has no generator, row 2
  // repeats row 0's sequence: each row gets its own error.
  rows[0].vocab = 15;
  Refused(exactsample_sample_requests(s_.s, seqs, rows, 3, results.data(), 2),
          EXACTSAMPLE_INVALID_LOGITS, "requests[0].vocab = 15: the sequence's V is 16");
  EXPECT_EQ(results[0].status, EXACTSAMPLE_INVALID_LOGITS);
  EXPECT_EQ(results[1].status, EXACTSAMPLE_INVALID_ARGUMENT);
  EXPECT_NE(std::string(exactsample_sampler_row_error(s_.s, 1)).find("requests[1].rng is NULL"), std::string::npos)
      << exactsample_sampler_row_error(s_.s, 1);
  EXPECT_EQ(results[2].status, EXACTSAMPLE_INVALID_ARGUMENT);
  EXPECT_NE(std::string(exactsample_sampler_row_error(s_.s, 2)).find("sequences[2] is sequences[0]"), std::string::npos)
      << exactsample_sampler_row_error(s_.s, 2);
  exactsample_request strided[2] = {Row(), Row()};
  strided[1].rng = &rng_;
  strided[1].row_stride = 3;
  exactsample_sequence* one[2] = {nullptr, nullptr};
  strided[0].rng = &rng_;
  strided[0].vocab = 0;  // refused by the engine: an empty row
  EXPECT_NE(exactsample_sample_requests(s_.s, one, strided, 2, results.data(), 1), EXACTSAMPLE_OK);
  EXPECT_NE(std::string(exactsample_sampler_row_error(s_.s, 1)).find("requests[1].row_stride = 3 is smaller than the row's 16 elements"),
            std::string::npos)
      << exactsample_sampler_row_error(s_.s, 1);
}

}  // namespace
