#include <algorithm>
#include <chrono>
#include <cstdio>
#include <vector>

#include "exactsample/targets.hpp"
#include "exactsample/testing.hpp"
#include "tools/lib/standard_inputs.hpp"
#include "tools/cli/commands.hpp"

namespace exactsample::cli {
namespace {

constexpr size_t kVocab = 128256;
constexpr int kTokens = 16;
constexpr uint64_t kSeed = 42;

struct Run {
  std::string label;
  std::vector<Token> tokens;
  uint64_t draws_u32 = 0;
  double median_us = 0;
};

Run Generate(const std::string& label, const std::vector<float>& logits,
             const Request& base, Engine engine) {
  Run run{label, {}, 0, 0};
  Workspace ws;
  Pcg32 rng = stream(kSeed, Purpose::sample);
  std::vector<int32_t> generated;
  std::vector<double> micros;
  for (int step = 0; step < kTokens; ++step) {
    Request req = base;
    req.logits = logits;
    req.generated = generated;
    const auto start = std::chrono::steady_clock::now();
    const auto t = sample(req, rng, ws, {engine});
    const auto stop = std::chrono::steady_clock::now();
    if (!t) {
      std::fprintf(stderr, "demo: %s\n", t.error().message.c_str());
      std::exit(1);
    }
    micros.push_back(std::chrono::duration<double, std::micro>(stop - start).count());
    run.tokens.push_back(*t);
    generated.push_back(t->id);
  }
  std::sort(micros.begin(), micros.end());
  run.median_us = (micros[kTokens / 2 - 1] + micros[kTokens / 2]) / 2;
  run.draws_u32 = rng.draws_u32();
  return run;
}

bool SameBits(const Run& a, const Run& b) {
  if (a.draws_u32 != b.draws_u32) return false;
  for (int i = 0; i < kTokens; ++i) {
    if (a.tokens[i].id != b.tokens[i].id ||
        std::bit_cast<uint64_t>(a.tokens[i].logprob) !=
            std::bit_cast<uint64_t>(b.tokens[i].logprob)) {
      return false;
    }
  }
  return true;
}

}  // namespace

int Demo() {
  const std::vector<float> logits = StandardRow(kVocab);
  const std::vector<int32_t> prompt{101, 2023, 2003, 1037, 3231, 1012, 7592, 2088};
  Request base;
  base.prompt = prompt;
  base.params.temperature = 0.7;
  base.params.top_k = 50;
  base.params.top_p = 0.95;
  base.params.repetition_penalty = 1.1;

  std::printf(
      "exactsample demo\n"
      "  logits: V = %zu f32 values, N(0, 1.5^2) with 20 raised peaks (seed %llu)\n"
      "  request: temperature 0.7, top_k 50, top_p 0.95, repetition_penalty 1.1,\n"
      "           %zu prompt ids, seed %llu, %d tokens\n\n",
      kVocab, static_cast<unsigned long long>(kStandardRowSeed), prompt.size(),
      static_cast<unsigned long long>(kSeed), kTokens);

  std::vector<Run> runs;
  runs.push_back(Generate("reference", logits, base, Engine::reference));
  for (const TargetInfo& t : compiled_targets()) {
    if (!t.supported) continue;
    testing::force_target(t.name);
    runs.push_back(Generate("fast/" + t.name, logits, base, Engine::fast));
  }
  testing::force_target("");

  const Run& ref = runs.front();
  std::printf("  step      id   logprob\n");
  for (int i = 0; i < kTokens; ++i) {
    std::printf("  %4d  %6d   %.17g\n", i + 1, ref.tokens[i].id,
                ref.tokens[i].logprob);
  }
  std::printf("\n  engine          agrees with reference   median us/token\n");
  bool all_agree = true;
  for (const Run& r : runs) {
    const bool same = SameBits(ref, r);
    all_agree &= same;
    std::printf("  %-14s  %-22s  %10.1f\n", r.label.c_str(),
                &r == &ref ? "(is the reference)"
                : same     ? "yes, bit for bit"
                           : "NO",
                r.median_us);
  }
  std::printf("\n  %s\n", all_agree
                              ? "every engine returned the same ids, logprob bits "
                                "and generator position"
                              : "MISMATCH between engines");
  return all_agree ? 0 : 1;
}

}  // namespace exactsample::cli
