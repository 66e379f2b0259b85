// Random requests for the engine parity tests: every parameter mix, small
// and large vocabularies, masks, exact ties at the top-k and top-p
// boundaries, underflowing exps, histories that hit the top ids. Each case
// is built from its own PCG32 stream, so a failure names a seed to replay.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "exactsample/exactsample.hpp"

namespace exactsample::test {

struct RandomCase {
  uint64_t seed;
  std::vector<float> logits;
  SamplingParams params;
  std::vector<int32_t> prompt;
  std::vector<int32_t> generated;
  // The library's additions (empty: none).
  std::vector<int32_t> bias_ids = {};
  std::vector<double> bias_values = {};
  std::vector<int32_t> allowed = {}, banned = {};
  std::vector<uint32_t> allowed_bits = {};

  // The request for one step with `history` as the generated ids.
  Request At(std::span<const int32_t> history) const {
    return {logits, prompt, history, params, {bias_ids, bias_values},
            {allowed, banned, allowed_bits}};
  }
};

class CaseMaker {
 public:
  explicit CaseMaker(uint64_t seed) : rng_(stream(seed, Purpose::shuffle)) {}

  double Uniform() { return rng_.uniform_f64(); }
  uint32_t Below(uint32_t n) { return static_cast<uint32_t>(Uniform() * n); }
  bool Chance(double p) { return Uniform() < p; }
  double LogUniform(double lo, double hi) {
    return lo * std::pow(hi / lo, Uniform());
  }
  double Normal() {
    return std::sqrt(-2.0 * std::log(1.0 - Uniform())) *
           std::cos(6.283185307179586 * Uniform());
  }

  size_t Vocab(size_t max_vocab) {
    const double r = Uniform();
    const size_t v = r < 0.55   ? 1 + Below(300)
                     : r < 0.85 ? 300 + Below(5000)
                     : r < 0.95 ? 5000 + Below(40000)
                                : 100000 + Below(162145);
    return std::min(v, max_vocab);
  }

  std::vector<float> Logits(size_t vocab) {
    std::vector<float> x(vocab);
    const int shape = static_cast<int>(Below(7));
    const double scale = LogUniform(0.05, 50.0);
    for (size_t i = 0; i < vocab; ++i) {
      switch (shape) {
        case 0:  // normal body
          x[i] = static_cast<float>(scale * Normal());
          break;
        case 1:  // few distinct values: many exact ties
          x[i] = static_cast<float>(Below(4)) * 0.5f;
          break;
        case 2:  // all equal
          x[i] = 1.25f;
          break;
        case 3:  // ascending through many binades
          x[i] = static_cast<float>(std::ldexp(1.0, static_cast<int>(i % 40) - 20));
          break;
        case 4:  // huge spread: most exps underflow
          x[i] = static_cast<float>(2000.0 * Normal());
          break;
        case 5:  // quantised normal: ties inside a realistic body
          x[i] = std::round(static_cast<float>(scale * Normal()) * 8.0f) / 8.0f;
          break;
        default:  // narrow body with a few high peaks
          x[i] = static_cast<float>(0.2 * Normal());
          if (Chance(0.002)) x[i] += static_cast<float>(8 + 6 * Uniform());
      }
    }
    if (Chance(0.35)) {  // a mask, sometimes of almost everything
      const double frac = Chance(0.3) ? 0.99 : Uniform();
      for (auto& v : x) {
        if (Chance(frac)) v = -INFINITY;
      }
      if (Chance(0.5)) x[0] = -INFINITY;  // leading -inf
      x[Below(static_cast<uint32_t>(vocab))] = 0.5f;  // keep one finite
    }
    return x;
  }

  // Ids near the top of the row are the interesting ones to penalise.
  std::vector<int32_t> History(const std::vector<float>& x, size_t max_len) {
    std::vector<int32_t> h;
    const auto top = static_cast<int32_t>(
        std::max_element(x.begin(), x.end()) - x.begin());
    const size_t len = Below(static_cast<uint32_t>(max_len + 1));
    for (size_t j = 0; j < len; ++j) {
      h.push_back(Chance(0.3) ? top
                              : static_cast<int32_t>(Below(static_cast<uint32_t>(x.size()))));
    }
    return h;
  }

  SamplingParams Params(size_t vocab) {
    SamplingParams p;
    const double t = Uniform();
    p.temperature = t < 0.15 ? 0.0 : t < 0.4 ? 1.0 : LogUniform(1e-3, 100.0);
    if (Chance(0.5)) {
      p.top_k = Chance(0.5) ? 1 + Below(64)
                            : 1 + Below(static_cast<uint32_t>(vocab + 2));
    }
    if (Chance(0.5)) {
      const double r = Uniform();
      p.top_p = r < 0.1 ? 0.0 : r < 0.2 ? 0.5 : r < 0.3 ? 0.25 : Uniform();
    }
    if (Chance(0.4)) p.min_p = Chance(0.1) ? 1.0 : Chance(0.5) ? 0.05 : Uniform();
    if (Chance(0.3)) p.repetition_penalty = LogUniform(0.5, 2.0);
    if (Chance(0.3)) p.presence_penalty = 2 * Uniform() - 0.5;
    if (Chance(0.3)) p.frequency_penalty = 2 * Uniform() - 0.5;
    return p;
  }

  // top_p on a running sum of q, min_p on a ratio q / max(q), computed the
  // spec's way over the unpenalised row: thresholds that rounding decides.
  void Borderline(const std::vector<float>& x, SamplingParams& p) {
    if (p.temperature == 0.0) return;
    std::vector<double> t;
    for (float v : x) t.push_back(static_cast<double>(v) / p.temperature);
    const double m = *std::max_element(t.begin(), t.end());
    std::vector<double> e;
    double z = 0;
    for (double v : t) {
      e.push_back(std::exp(v - m));
      z += e.back();
    }
    std::vector<size_t> order(t.size());
    for (size_t i = 0; i < order.size(); ++i) order[i] = i;
    std::sort(order.begin(), order.end(), [&](size_t a, size_t b) {
      return t[a] != t[b] ? t[a] > t[b] : a < b;
    });
    const size_t j = Below(static_cast<uint32_t>(std::min<size_t>(order.size(), 64)));
    if (Chance(0.5)) {
      double s = 0;
      for (size_t r = 0; r <= j; ++r) s += e[order[r]] / z;
      p.top_p = std::min(s, 0.999);
    } else {
      p.min_p = std::min(e[order[j]], 1.0);
    }
  }

  // A logit bias (+-100, small, or one that makes the id tie another id's
  // logit), a mask as ids or a bitmask (keeping one finite id), top-N
  // logprobs, and ties made around the N-th logit.
  void Features(RandomCase& c) {
    const auto vocab = static_cast<uint32_t>(c.logits.size());
    const auto any = [&] { return static_cast<int32_t>(Below(vocab)); };
    if (Chance(0.6)) {
      const uint32_t count = Chance(0.5) ? 1 + Below(4) : 1 + Below(100);
      for (uint32_t j = 0; j < count; ++j) {
        const int32_t id = any();
        const double r = Uniform();
        const int32_t other = any();
        const double tie = static_cast<double>(c.logits[other]) - c.logits[id];
        c.bias_ids.push_back(id);
        c.bias_values.push_back(r < 0.2   ? 100.0
                                : r < 0.4 ? -100.0
                                : r < 0.7 && std::isfinite(tie) ? tie
                                          : 10 * Uniform() - 5);
      }
    }
    int32_t keep = any();
    while (c.logits[keep] == -INFINITY) keep = (keep + 1) % static_cast<int32_t>(vocab);
    if (Chance(0.5)) {
      const double share = Chance(0.5) ? 0.5 : Uniform();
      const double form = Uniform();
      for (uint32_t i = 0; i < vocab; ++i) {
        if (static_cast<int32_t>(i) == keep || !Chance(share)) continue;
        if (form < 0.4) c.banned.push_back(static_cast<int32_t>(i));
      }
      if (form >= 0.4 && form < 0.7) {
        for (uint32_t i = 0; i < vocab; ++i) {
          if (static_cast<int32_t>(i) == keep || Chance(share)) {
            c.allowed.push_back(static_cast<int32_t>(i));
          }
        }
      } else if (form >= 0.7) {
        c.allowed_bits.assign((vocab + 31) / 32 + Below(2), 0);
        for (auto& w : c.allowed_bits) w = static_cast<uint32_t>(Uniform() * 4294967296.0);
        c.allowed_bits[keep / 32] |= uint32_t{1} << (keep % 32);
        const int32_t banned = any();
        if (Chance(0.3) && banned != keep) c.banned.push_back(banned);
      }
    }
    if (Chance(0.7)) {
      c.params.top_logprobs = Chance(0.5) ? 20 : Below(21);
      if (Chance(0.5)) {  // ties around the N-th logit
        std::vector<int32_t> order(vocab);
        for (uint32_t i = 0; i < vocab; ++i) order[i] = static_cast<int32_t>(i);
        const size_t head = std::min<size_t>(vocab, 24);
        std::partial_sort(order.begin(), order.begin() + head, order.end(),
                          [&](int32_t a, int32_t b) {
                            return c.logits[a] != c.logits[b] ? c.logits[a] > c.logits[b]
                                                              : a < b;
                          });
        for (size_t r = 1; r < head; ++r) {
          if (Chance(0.5)) c.logits[order[r]] = c.logits[order[r - 1]];
        }
      }
    }
  }

  RandomCase Make(uint64_t seed, size_t max_vocab, bool features = false) {
    RandomCase c{seed, {}, {}, {}, {}};
    c.logits = Logits(Vocab(max_vocab));
    c.params = Params(c.logits.size());
    if (Chance(0.3)) Borderline(c.logits, c.params);
    c.prompt = History(c.logits, 8);
    c.generated = History(c.logits, 24);
    if (features) Features(c);
    return c;
  }

 private:
  Pcg32 rng_;
};

}  // namespace exactsample::test
