// Sequence::snapshot and restore. The format (docs/sequence.md), all
// little-endian, whatever the host's byte order:
//   "XSSQ", u32 version (2), u64 V,
//   the spec's SamplingParams fields as u64 (f64 bits or int64) in
//   declaration order: temperature, repetition_penalty, presence_penalty,
//   frequency_penalty, top_k, top_p, min_p, top_logprobs, penalty_last_n,
//   the chain block (docs/sequence.md; version 1 has none), the
//   generator's start and current position (u64 state, inc, draws_u32
//   each), then seven arrays, each a u64 count and its elements: bias ids
//   (i32), bias values (f64 bits), allowed (i32), banned (i32), the allowed
//   bitmask (u32), prompt (i32), generated (i32); then (version 2) a u64
//   count of DRY breakers, each an i32 array; and last the FNV-1a 64 hash
//   of every byte before it.
#include <array>
#include <bit>
#include <cstring>
#include <string>

#include "exactsample/sequence.hpp"
#include "lib/api/sequence_state.hpp"

namespace exactsample {
namespace {

constexpr uint32_t kVersion = 2;  // 1 is still read: it has no chain block
constexpr char kMagic[4] = {'X', 'S', 'S', 'Q'};

uint64_t Fnv1a(std::span<const uint8_t> bytes) {
  uint64_t h = 0xcbf29ce484222325ULL;
  for (const uint8_t b : bytes) h = (h ^ b) * 0x100000001b3ULL;
  return h;
}

class Writer {
 public:
  // Byte by byte, as the numbers: GCC 12 at -O2 reports a false
  // -Wstringop-overflow for a range insert into the empty vector.
  void Bytes(const char* p, size_t n) {
    for (size_t i = 0; i < n; ++i) out.push_back(static_cast<uint8_t>(p[i]));
  }
  void U64(uint64_t v) {
    for (int i = 0; i < 8; ++i) out.push_back(static_cast<uint8_t>(v >> (8 * i)));
  }
  void U32(uint32_t v) {
    for (int i = 0; i < 4; ++i) out.push_back(static_cast<uint8_t>(v >> (8 * i)));
  }
  void F64(double v) { U64(std::bit_cast<uint64_t>(v)); }
  void Rng(const Pcg32& r) {
    U64(r.state());
    U64(r.inc());
    U64(r.draws_u32());
  }
  template <typename T>
  void Array(const std::vector<T>& values) {
    U64(values.size());
    for (const T v : values) {
      if constexpr (sizeof(T) == 8) {
        U64(std::bit_cast<uint64_t>(v));
      } else {
        U32(std::bit_cast<uint32_t>(v));
      }
    }
  }
  std::vector<uint8_t> out;
};

class Reader {
 public:
  explicit Reader(std::span<const uint8_t> in) : in_(in) {}
  bool Has(size_t n) const { return in_.size() - at_ >= n; }
  uint64_t U64() {
    uint64_t v = 0;
    for (int i = 0; i < 8; ++i) v |= uint64_t{in_[at_ + i]} << (8 * i);
    at_ += 8;
    return v;
  }
  uint32_t U32() {
    uint32_t v = 0;
    for (int i = 0; i < 4; ++i) v |= uint32_t{in_[at_ + i]} << (8 * i);
    at_ += 4;
    return v;
  }
  // An array of `what`, or false when the bytes left cannot hold it.
  template <typename T>
  bool Array(std::vector<T>& values) {
    if (!Has(8)) return false;
    const uint64_t n = U64();
    if (n > (in_.size() - at_) / sizeof(T)) return false;
    values.resize(n);
    for (T& v : values) {
      if constexpr (sizeof(T) == 8) {
        v = std::bit_cast<T>(U64());
      } else {
        v = std::bit_cast<T>(U32());
      }
    }
    return true;
  }
  size_t at() const { return at_; }

 private:
  std::span<const uint8_t> in_;
  size_t at_ = 0;
};

// The chain's fields, in the order version 2 writes them.
template <class P>
auto ChainIntegers(P& p) {
  return std::array{&p.min_keep, &p.dry_allowed_length, &p.dry_penalty_last_n, &p.mirostat,
                    &p.mirostat_m};
}
template <class P>
auto ChainReals(P& p) {
  return std::array{&p.top_n_sigma,    &p.typical_p,       &p.xtc_probability,
                    &p.xtc_threshold,  &p.dry_multiplier,  &p.dry_base,
                    &p.dynatemp_range, &p.dynatemp_exponent, &p.mirostat_tau,
                    &p.mirostat_eta,   &p.adaptive_target, &p.adaptive_decay};
}
constexpr size_t kChainBlock = (5 + 12 + 2 + kChainSteps + 1 + 4) * 8;

Error Bad(const std::string& what) {
  return Error{ErrorCode::invalid_parameter, "snapshot", "snapshot: " + what};
}

}  // namespace

std::vector<uint8_t> Sequence::snapshot() const {
  const State& s = *s_;
  Writer w;
  w.Bytes(kMagic, 4);
  w.U32(kVersion);
  w.U64(s.vocab);
  const SamplingParams& p = s.params;
  w.F64(p.temperature);
  w.F64(p.repetition_penalty);
  w.F64(p.presence_penalty);
  w.F64(p.frequency_penalty);
  w.U64(static_cast<uint64_t>(p.top_k));
  w.F64(p.top_p);
  w.F64(p.min_p);
  w.U64(static_cast<uint64_t>(p.top_logprobs));
  w.U64(static_cast<uint64_t>(p.penalty_last_n));
  for (const int64_t* v : ChainIntegers(p)) w.U64(static_cast<uint64_t>(*v));
  for (const double* v : ChainReals(p)) w.F64(*v);
  w.U64(static_cast<uint64_t>(p.chain.preset));
  w.U64(p.chain.count);
  for (const ChainStep step : p.chain.list) w.U64(static_cast<uint64_t>(step));
  w.U64((s.chain.mu ? 1u : 0u) | (s.chain.average ? 2u : 0u));
  w.F64(s.chain.mu.value_or(0.0));
  w.F64(s.chain.average ? s.chain.average->weight : 0.0);
  w.F64(s.chain.average ? s.chain.average->total : 0.0);
  w.Rng(s.start);
  w.Rng(s.rng);
  w.Array(s.extras.bias_ids);
  w.Array(s.extras.bias_values);
  w.Array(s.extras.allowed);
  w.Array(s.extras.banned);
  w.Array(s.extras.allowed_bits);
  w.Array(s.prompt);
  w.Array(s.generated);
  w.U64(s.breakers.size());
  for (const std::vector<int32_t>& b : s.breakers) w.Array(b);
  w.U64(Fnv1a(w.out));
  return std::move(w.out);
}

Result<Sequence> Sequence::restore(std::span<const uint8_t> bytes) {
  constexpr size_t kHeader = 4 + 4 + 8 + 9 * 8 + 6 * 8;
  constexpr size_t kLeast = kHeader + 7 * 8 + 8;  // version 1's least
  if (bytes.size() < kLeast) {
    return Bad("truncated: " + std::to_string(bytes.size()) + " bytes, at least " +
               std::to_string(kLeast) + " needed");
  }
  if (std::memcmp(bytes.data(), kMagic, 4) != 0) return Bad("not a sequence snapshot (magic)");
  Reader r(bytes.subspan(4));
  const uint32_t version = r.U32();
  if (version != 1 && version != kVersion) {
    return Bad("format version " + std::to_string(version) + ", this library reads 1 and " +
               std::to_string(kVersion));
  }
  if (version == 2 && bytes.size() < kLeast + kChainBlock + 8) {
    return Bad("truncated: " + std::to_string(bytes.size()) + " bytes, at least " +
               std::to_string(kLeast + kChainBlock + 8) + " needed");
  }
  const auto body = bytes.first(bytes.size() - 8);
  Reader tail(bytes.last(8));
  if (tail.U64() != Fnv1a(body)) return Bad("checksum mismatch (corrupt or truncated)");
  const uint64_t vocab = r.U64();
  SamplingParams p;
  p.temperature = std::bit_cast<double>(r.U64());
  p.repetition_penalty = std::bit_cast<double>(r.U64());
  p.presence_penalty = std::bit_cast<double>(r.U64());
  p.frequency_penalty = std::bit_cast<double>(r.U64());
  p.top_k = static_cast<int64_t>(r.U64());
  p.top_p = std::bit_cast<double>(r.U64());
  p.min_p = std::bit_cast<double>(r.U64());
  p.top_logprobs = static_cast<int64_t>(r.U64());
  p.penalty_last_n = static_cast<int64_t>(r.U64());
  ChainState chain;
  if (version == 2) {
    for (int64_t* v : ChainIntegers(p)) *v = static_cast<int64_t>(r.U64());
    for (double* v : ChainReals(p)) *v = std::bit_cast<double>(r.U64());
    const uint64_t preset = r.U64();
    const uint64_t count = r.U64();
    if (preset > static_cast<uint64_t>(ChainPreset::list) || count > p.chain.list.size()) {
      return Bad("not a chain: preset " + std::to_string(preset) + ", " +
                 std::to_string(count) + " steps");
    }
    p.chain.preset = static_cast<ChainPreset>(preset);
    p.chain.count = static_cast<uint8_t>(count);
    for (ChainStep& step : p.chain.list) {
      const uint64_t v = r.U64();
      if (v >= kChainSteps) return Bad("a chain step " + std::to_string(v) + " is not a step");
      step = static_cast<ChainStep>(v);
    }
    const uint64_t has = r.U64();
    const double mu = std::bit_cast<double>(r.U64());
    const double weight = std::bit_cast<double>(r.U64());
    const double total = std::bit_cast<double>(r.U64());
    if (has > 3) return Bad("the chain state's flags " + std::to_string(has) + " are not 0 to 3");
    if ((has & 1) != 0) chain.mu = mu;
    if ((has & 2) != 0) chain.average = ChainState::Average{weight, total};
  }
  uint64_t g[6];
  for (uint64_t& v : g) v = r.U64();
  if ((g[1] & 1) == 0 || (g[4] & 1) == 0) return Bad("a generator's inc is even");
  Constraints extras;
  std::vector<int32_t> prompt, generated;
  Reader arrays(body.subspan(4 + r.at()));
  if (!arrays.Array(extras.bias_ids) || !arrays.Array(extras.bias_values) ||
      !arrays.Array(extras.allowed) || !arrays.Array(extras.banned) ||
      !arrays.Array(extras.allowed_bits) || !arrays.Array(prompt) ||
      !arrays.Array(generated)) {
    return Bad("the arrays do not match the snapshot's length");
  }
  // Each breaker read takes at least its 8-byte count, so a count beyond
  // the bytes stops at the first that does not fit.
  std::vector<std::vector<int32_t>> breakers;
  bool fits = version == 1 || arrays.Has(8);
  const uint64_t n = version == 2 && fits ? arrays.U64() : 0;
  for (uint64_t j = 0; j < n && fits; ++j) fits = arrays.Array(breakers.emplace_back());
  if (!fits || arrays.Has(1)) return Bad("the arrays do not match the snapshot's length");
  const std::vector<std::span<const int32_t>> views(breakers.begin(), breakers.end());
  p.dry_sequence_breakers = views;
  Result<Sequence> seq = create(static_cast<size_t>(vocab), p,
                                Pcg32::from_state(g[0], g[1], g[2]), std::move(extras));
  if (!seq) return Bad(seq.error().message);
  Sequence out = std::move(seq.value());
  if (auto ok = out.accept_prompt(prompt); !ok) return Bad(ok.error().message);
  for (size_t j = 0; j < generated.size(); ++j) {
    if (auto ok = out.accept(generated[j]); !ok) {
      return Bad("generated[" + std::to_string(j) + "]: " + ok.error().message);
    }
  }
  out.rng() = Pcg32::from_state(g[3], g[4], g[5]);
  out.s_->chain = chain;
  return out;
}

}  // namespace exactsample
