// libFuzzer target: bytes become logits (f32, or f16 or bf16 words: the
// upper halves of the f32 bits), parameters, a history, a logit bias, a
// mask, top-N logprobs and a target; the fast engine must return exactly
// what the reference returns (every output, or the same error), with the
// generator at the same position, and a 16-bit row what its row widened to
// f32 returns.
#include <bit>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <cstring>
#include <vector>

#include "exactsample/exactsample.hpp"
#include "exactsample/targets.hpp"
#include "exactsample/testing.hpp"
#include "scalar_ref/twins/half.hpp"

namespace {

class Bytes {
 public:
  Bytes(const uint8_t* data, size_t size) : data_(data), size_(size) {}
  template <class T>
  T Take() {
    T v{};
    const size_t n = std::min(sizeof(T), size_ - pos_);
    std::memcpy(&v, data_ + pos_, n);
    pos_ += n;
    return v;
  }
  size_t Left() const { return size_ - pos_; }

 private:
  const uint8_t* data_;
  size_t size_;
  size_t pos_ = 0;
};

// A parameter: often its "off" value, sometimes any double the bytes spell.
double Param(Bytes& b, double off, double lo, double hi) {
  const uint8_t mode = b.Take<uint8_t>();
  if (mode < 96) return off;
  if (mode < 250) return lo + (hi - lo) * (b.Take<uint16_t>() / 65535.0);
  return b.Take<double>();
}

// Every output of a token as bits.
std::vector<uint64_t> Bits(const exactsample::Token& t) {
  std::vector<uint64_t> out{static_cast<uint64_t>(t.id), std::bit_cast<uint64_t>(t.logprob),
                            std::bit_cast<uint64_t>(t.processed_logprob)};
  for (const exactsample::TopLogprob& e : t.top_logprobs()) {
    out.push_back(static_cast<uint64_t>(e.id));
    out.push_back(std::bit_cast<uint64_t>(e.logprob));
  }
  return out;
}

std::string Describe(const exactsample::Result<exactsample::Token>& r) {
  if (!r) return "error: " + r.error().message;
  char buf[96];
  std::snprintf(buf, sizeof buf, "id %d logprob %a", r->id, r->logprob);
  return buf;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace exactsample;
  Bytes b(data, size);
  SamplingParams p;
  p.temperature = Param(b, 1.0, 0.0, 4.0);
  // Off, small, or at least 4096 (top-k's radix sort of its candidates).
  const uint8_t k_mode = b.Take<uint8_t>();
  p.top_k = k_mode < 128   ? 0
            : k_mode < 224 ? b.Take<uint8_t>()
                           : 4096 + b.Take<uint16_t>() % 4096;
  p.top_p = Param(b, 1.0, 0.0, 1.0);
  p.min_p = Param(b, 0.0, 0.0, 1.0);
  p.repetition_penalty = Param(b, 1.0, 0.5, 2.0);
  p.presence_penalty = Param(b, 0.0, -1.0, 1.0);
  p.frequency_penalty = Param(b, 0.0, -1.0, 1.0);
  p.top_logprobs = b.Take<uint8_t>() % 24 - 1;  // -1 and 21 to 22 are errors
  // Bias and mask ids as raw codes (mapped into [0, V) below, or left out
  // of it); a bitmask of words, sometimes one word short.
  std::vector<int32_t> bias_ids(b.Take<uint8_t>() % 8), banned(b.Take<uint8_t>() % 4),
      allowed(b.Take<uint8_t>() % 4);
  std::vector<double> bias_values;
  for (int32_t& id : bias_ids) {
    id = b.Take<int16_t>();
    bias_values.push_back(Param(b, 100.0, -100.0, 100.0));
  }
  for (int32_t& id : banned) id = b.Take<int16_t>();
  for (int32_t& id : allowed) id = b.Take<int16_t>();
  const uint8_t bits_mode = b.Take<uint8_t>();
  const uint32_t bits_word = b.Take<uint32_t>();
  const uint8_t target_pick = b.Take<uint8_t>();
  const auto type = static_cast<LogitType>(b.Take<uint8_t>() % 3);
  const uint64_t seed = b.Take<uint64_t>();
  std::vector<int32_t> history(b.Take<uint8_t>() % 8);
  std::vector<float> logits;
  // Logits: small codes for ties and masks, raw floats for everything else.
  while (b.Left() > 0 && logits.size() < 16384) {
    const uint8_t code = b.Take<uint8_t>();
    logits.push_back(code < 64    ? static_cast<float>(code % 8) * 0.5f
                     : code < 80  ? -INFINITY
                     : code < 200 ? static_cast<float>(b.Take<int16_t>()) / 256.0f
                                  : b.Take<float>());
  }
  for (size_t j = 0; j < history.size(); ++j) {
    history[j] = logits.empty() ? 0 : static_cast<int32_t>((seed >> (8 * j)) % logits.size());
  }

  // Ids: mostly in [0, V), a negative or too large one when the code says.
  const auto map_ids = [&](std::vector<int32_t>& ids) {
    for (int32_t& id : ids) {
      if (id >= 0 && !logits.empty()) id %= static_cast<int32_t>(logits.size());
    }
  };
  map_ids(bias_ids);
  map_ids(banned);
  map_ids(allowed);
  std::vector<uint32_t> bits;
  if (bits_mode >= 160) {
    bits.assign((logits.size() + 31) / 32 - (bits_mode >= 250 && !logits.empty()),
                bits_word);
  }

  std::vector<TargetInfo> supported;
  for (const TargetInfo& t : compiled_targets()) {
    if (t.supported) supported.push_back(t);
  }
  testing::force_target(supported[target_pick % supported.size()].name);

  static Workspace ref_ws, fast_ws;
  Request req{logits, {}, history, p, {bias_ids, bias_values}, {allowed, banned, bits}};
  std::vector<uint16_t> words;
  std::vector<float> widened;
  if (type != LogitType::f32) {
    for (float x : logits) {
      words.push_back(static_cast<uint16_t>(std::bit_cast<uint32_t>(x) >> 16));
      widened.push_back(twins::Widen16(words.back(), type));
    }
    req.logits = {};
    req.logits16 = words;
    req.logits_type = type;
    // The oracle: the same row widened to f32 by the caller.
    Request f32 = req;
    f32.logits = widened;
    f32.logits16 = {};
    f32.logits_type = LogitType::f32;
    Pcg32 a = stream(seed, Purpose::sample), c = a;
    const auto half = sample(req, a, ref_ws, {Engine::reference});
    const auto wide = sample(f32, c, ref_ws, {Engine::reference});
    if (half.ok() != wide.ok() || a != c ||
        (half.ok() ? Bits(*half) != Bits(*wide)
                   : half.error().message != wide.error().message)) {
      std::fprintf(stderr, "a %s row differs from its widened row: %s vs %s\n",
                   type == LogitType::f16 ? "f16" : "bf16", Describe(half).c_str(),
                   Describe(wide).c_str());
      std::abort();
    }
  }
  Pcg32 ref_rng = stream(seed, Purpose::sample);
  Pcg32 fast_rng = ref_rng;
  const auto want = sample(req, ref_rng, ref_ws, {Engine::reference});
  const auto got = sample(req, fast_rng, fast_ws, {Engine::fast});
  const bool same =
      want.ok() == got.ok() && ref_rng == fast_rng &&
      (want.ok() ? Bits(*want) == Bits(*got) : want.error().message == got.error().message);
  if (!same) {
    std::fprintf(stderr,
                 "engines differ on %s: V=%zu T=%a k=%lld p=%a m=%a r=%a pres=%a "
                 "freq=%a seed=%llu history=%zu N=%lld bias=%zu allowed=%zu banned=%zu "
                 "bits=%zu\n  reference: %s\n  fast:      %s\n",
                 supported[target_pick % supported.size()].name.c_str(), logits.size(),
                 p.temperature, static_cast<long long>(p.top_k), p.top_p, p.min_p,
                 p.repetition_penalty, p.presence_penalty, p.frequency_penalty,
                 static_cast<unsigned long long>(seed), history.size(),
                 static_cast<long long>(p.top_logprobs), bias_ids.size(), allowed.size(),
                 banned.size(), bits.size(), Describe(want).c_str(), Describe(got).c_str());
    std::abort();
  }
  return 0;
}
