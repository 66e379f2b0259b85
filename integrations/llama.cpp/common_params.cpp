// llama.cpp's common parameters and chains as exactsample_params
// (common_params.hpp). Read from llama.cpp v0.4.0: common/sampling.cpp
// (common_sampler_init, common_sampler_types_from_names) and
// src/llama-sampler.cpp (each sampler's name, when it is made off, and
// llama_sampler_init_dry's breakers).
#include "common_params.hpp"

#include <algorithm>
#include <array>
#include <cctype>
#include <cstdint>
#include <limits>
#include <set>
#include <string>
#include <utility>
#include <vector>

namespace exactsample_llama {
namespace {

constexpr int32_t kNoStep = -1;
constexpr int32_t kAdaptive = -2;  // common's "adaptive_p": the terminal
constexpr int32_t kInfill = -3;

// common's canonical names, as common_sampler_type_to_str writes them.
struct CommonName {
  const char* name;
  int32_t step;
};
constexpr std::array<CommonName, 11> kCommonNames = {{
    {"penalties", EXACTSAMPLE_STEP_PENALTIES},
    {"dry", EXACTSAMPLE_STEP_DRY},
    {"top_n_sigma", EXACTSAMPLE_STEP_TOP_N_SIGMA},
    {"top_k", EXACTSAMPLE_STEP_TOP_K},
    {"typ_p", EXACTSAMPLE_STEP_TYPICAL},
    {"top_p", EXACTSAMPLE_STEP_TOP_P},
    {"min_p", EXACTSAMPLE_STEP_MIN_P},
    {"xtc", EXACTSAMPLE_STEP_XTC},
    {"temperature", EXACTSAMPLE_STEP_TEMPERATURE},
    {"adaptive_p", kAdaptive},
    {"infill", kInfill},
}};

// common's order (common_params_sampling::samplers), the `llama` preset.
constexpr std::array<int32_t, 9> kCommonOrder = {
    EXACTSAMPLE_STEP_PENALTIES, EXACTSAMPLE_STEP_DRY,   EXACTSAMPLE_STEP_TOP_N_SIGMA,
    EXACTSAMPLE_STEP_TOP_K,     EXACTSAMPLE_STEP_TYPICAL, EXACTSAMPLE_STEP_TOP_P,
    EXACTSAMPLE_STEP_MIN_P,     EXACTSAMPLE_STEP_XTC,   EXACTSAMPLE_STEP_TEMPERATURE};

// A name as common_sampler_types_from_names reads it with its aliases: any
// case; a canonical name, its kebab-case and its no-dash forms; "nucleus",
// "temp", "typ".
int32_t CommonStep(std::string name) {
  std::transform(name.begin(), name.end(), name.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  if (name == "nucleus") return EXACTSAMPLE_STEP_TOP_P;
  if (name == "temp") return EXACTSAMPLE_STEP_TEMPERATURE;
  if (name == "typ") return EXACTSAMPLE_STEP_TYPICAL;
  for (const CommonName& c : kCommonNames) {
    std::string kebab = c.name;
    std::replace(kebab.begin(), kebab.end(), '_', '-');
    std::string no_dash = c.name;
    no_dash.erase(std::remove(no_dash.begin(), no_dash.end(), '_'), no_dash.end());
    if (name == c.name || name == kebab || name == no_dash) return c.step;
  }
  return kNoStep;
}

// The order and the terminal a chain or common's names give.
struct Order {
  std::vector<int32_t> steps;
  int64_t mirostat = 0;
  bool adaptive = false;
  bool plain_temperature = false;  // llama.cpp's "temp": no dynamic temperature
};

std::string Quoted(const std::string& s) { return "'" + s + "'"; }

// The token's text as llama.cpp's DRY reads it: detokenize({t}, special).
std::string Piece(const llama_vocab* vocab, llama_token t, std::vector<char>& buf) {
  int32_t n = llama_detokenize(vocab, &t, 1, buf.data(), static_cast<int32_t>(buf.size()),
                               false, true);
  if (n < 0) {
    buf.resize(static_cast<size_t>(-n));
    n = llama_detokenize(vocab, &t, 1, buf.data(), static_cast<int32_t>(buf.size()), false, true);
  }
  return std::string(buf.data(), static_cast<size_t>(std::max(n, 0)));
}

// tokenize(text, add_special = false, parse_special = false).
std::vector<int32_t> Tokenize(const llama_vocab* vocab, const std::string& text) {
  std::vector<llama_token> ids(text.size() + 2);
  int32_t n = llama_tokenize(vocab, text.data(), static_cast<int32_t>(text.size()), ids.data(),
                             static_cast<int32_t>(ids.size()), false, false);
  if (n < 0) {
    ids.resize(static_cast<size_t>(-n));
    n = llama_tokenize(vocab, text.data(), static_cast<int32_t>(text.size()), ids.data(),
                       static_cast<int32_t>(ids.size()), false, false);
  }
  ids.resize(static_cast<size_t>(std::max(n, 0)));
  return std::vector<int32_t>(ids.begin(), ids.end());
}

// llama_sampler_init_dry's breakers (get_overlapping_token_sequences): for
// each string, cut to 40 bytes, every token whose text contains it is a
// one-id breaker; every token whose text ends in a proper prefix of it is
// that token followed by the tokenization of the rest, cut to 20 ids. Each
// distinct sequence once.
std::string Breakers(const llama_vocab* vocab, const exactsample_llama_common& c, Mapped& out) {
  constexpr size_t kMaxChars = 40;
  constexpr size_t kMaxTail = 20;
  if (c.dry_sequence_breakers == nullptr && c.n_dry_sequence_breakers != 0) {
    return "dry_sequence_breakers is NULL with n_dry_sequence_breakers = " +
           std::to_string(c.n_dry_sequence_breakers);
  }
  std::vector<std::string> strings;
  for (size_t j = 0; j < c.n_dry_sequence_breakers; ++j) {
    const char* s = c.dry_sequence_breakers[j];
    const std::string field = "dry_sequence_breakers[" + std::to_string(j) + "]";
    if (s == nullptr) return field + " is NULL";
    if (*s == '\0') return field + " = \"\": empty";
    strings.emplace_back(s);
    if (strings.back().size() > kMaxChars) strings.back().resize(kMaxChars);
  }
  if (strings.empty()) return {};
  const llama_token vocab_size = llama_vocab_n_tokens(vocab);
  std::vector<std::string> pieces(static_cast<size_t>(std::max(vocab_size, 0)));
  std::vector<char> buf(64);
  for (llama_token t = 0; t < vocab_size; ++t) pieces[t] = Piece(vocab, t, buf);
  std::set<std::vector<int32_t>> seen;
  const auto add = [&](std::vector<int32_t> seq) {
    if (seen.insert(seq).second) out.breaker_ids.push_back(std::move(seq));
  };
  for (const std::string& str : strings) {
    for (llama_token t = 0; t < vocab_size; ++t) {
      const std::string& word = pieces[t];
      if (word.find(str) != std::string::npos) {
        add({t});
        continue;
      }
      for (size_t pos = word.find(str[0]); pos != std::string::npos;
           pos = word.find(str[0], pos + 1)) {
        size_t i = 1;
        while (i < str.size() && pos + i < word.size() && word[pos + i] == str[i]) ++i;
        if (pos + i != word.size()) continue;  // not a prefix of str ending the word
        std::vector<int32_t> seq = Tokenize(vocab, str.substr(i));
        if (seq.size() > kMaxTail) seq.resize(kMaxTail);
        seq.insert(seq.begin(), t);
        add(std::move(seq));
      }
    }
  }
  for (const std::vector<int32_t>& b : out.breaker_ids) out.breakers.push_back({b.data(), b.size()});
  return {};
}

// Fills out.params from c in `order`: a sampler the order lacks is off, as
// llama.cpp skips it; the values as common_sampler_init passes them.
std::string Fill(const llama_vocab* vocab, const exactsample_llama_common& c, const Order& order,
                 Mapped& out) {
  exactsample_params& p = out.params;
  exactsample_params_init(&p);
  bool listed[EXACTSAMPLE_STEP_TEMPERATURE + 1] = {};
  for (const int32_t step : order.steps) listed[step] = true;
  const auto on = [&](int32_t step) { return listed[step]; };

  if (on(EXACTSAMPLE_STEP_PENALTIES) && c.penalty_last_n != 0) {
    p.repetition_penalty = c.penalty_repeat;
    p.frequency_penalty = c.penalty_freq;
    p.presence_penalty = c.penalty_present;
    // -1: the context, which the history cannot exceed.
    p.penalty_last_n = c.penalty_last_n == -1 ? 0 : c.penalty_last_n;
  }
  if (on(EXACTSAMPLE_STEP_DRY) && !(c.dry_base < 1.0f)) {
    p.dry_multiplier = c.dry_multiplier;
    p.dry_base = c.dry_base;
    p.dry_allowed_length = c.dry_allowed_length;
    p.dry_penalty_last_n =
        c.dry_penalty_last_n == -1 ? std::numeric_limits<int64_t>::max() : c.dry_penalty_last_n;
  }
  if (on(EXACTSAMPLE_STEP_TOP_N_SIGMA) && c.top_n_sigma > 0) p.top_n_sigma = c.top_n_sigma;
  if (on(EXACTSAMPLE_STEP_TOP_K) && c.top_k > 0) p.top_k = c.top_k;
  if (on(EXACTSAMPLE_STEP_TYPICAL)) p.typical_p = c.typ_p;
  if (on(EXACTSAMPLE_STEP_TOP_P)) p.top_p = c.top_p;
  if (on(EXACTSAMPLE_STEP_MIN_P)) p.min_p = c.min_p;
  if (on(EXACTSAMPLE_STEP_XTC)) {
    p.xtc_probability = c.xtc_probability;
    p.xtc_threshold = c.xtc_threshold;
  }
  if (on(EXACTSAMPLE_STEP_TEMPERATURE)) {
    p.temperature = c.temp < 0 ? 0.0 : c.temp;  // llama.cpp: temp <= 0 is greedy
    if (!order.plain_temperature) {
      p.dynatemp_range = c.dynatemp_range;
      p.dynatemp_exponent = c.dynatemp_exponent;
    }
  }
  p.min_keep = c.min_keep;
  p.mirostat = order.mirostat;
  p.mirostat_tau = c.mirostat_tau;
  p.mirostat_eta = c.mirostat_eta;
  if (order.adaptive) {
    p.adaptive_target = c.adaptive_target;
    p.adaptive_decay = c.adaptive_decay;
  }
  out.steps = order.steps;
  const bool common_order = std::equal(order.steps.begin(), order.steps.end(),
                                       kCommonOrder.begin(), kCommonOrder.end());
  if (common_order) {
    p.chain_preset = EXACTSAMPLE_CHAIN_LLAMA;
  } else {
    p.chain_preset = EXACTSAMPLE_CHAIN_LIST;
    p.chain_steps = out.steps.data();
    p.chain_len = out.steps.size();
  }
  if (p.dry_multiplier > 0 && p.dry_penalty_last_n > 0) {
    if (std::string e = Breakers(vocab, c, out); !e.empty()) return e;
    p.dry_sequence_breakers = out.breakers.data();
    p.dry_sequence_breakers_len = out.breakers.size();
  }
  return {};
}

std::string SizeProblem(const exactsample_llama_common& c) {
  if (c.struct_size == sizeof(exactsample_llama_common)) return {};
  return "exactsample_llama_common.struct_size = " + std::to_string(c.struct_size) +
         ", expected " + std::to_string(sizeof(exactsample_llama_common)) +
         " (exactsample_llama_common_init sets it)";
}

// llama.cpp's sampler names (llama_sampler_name) as steps; kNoStep for the
// terminals and any other name.
int32_t ChainStep(const std::string& name) {
  struct Named {
    const char* name;
    int32_t step;
  };
  static const Named names[] = {
      {"penalties", EXACTSAMPLE_STEP_PENALTIES}, {"dry", EXACTSAMPLE_STEP_DRY},
      {"top-n-sigma", EXACTSAMPLE_STEP_TOP_N_SIGMA}, {"top-k", EXACTSAMPLE_STEP_TOP_K},
      {"typical", EXACTSAMPLE_STEP_TYPICAL}, {"top-p", EXACTSAMPLE_STEP_TOP_P},
      {"min-p", EXACTSAMPLE_STEP_MIN_P}, {"xtc", EXACTSAMPLE_STEP_XTC},
      {"temp", EXACTSAMPLE_STEP_TEMPERATURE}, {"temp-ext", EXACTSAMPLE_STEP_TEMPERATURE},
  };
  for (const Named& n : names) {
    if (name == n.name) return n.step;
  }
  return kNoStep;
}

}  // namespace

std::string FromCommon(const llama_vocab* vocab, const exactsample_llama_common& c, Mapped& out) {
  if (std::string e = SizeProblem(c); !e.empty()) return e;
  if (c.samplers == nullptr && c.n_samplers != 0) {
    return "samplers is NULL with n_samplers = " + std::to_string(c.n_samplers);
  }
  Order order;
  if (c.mirostat != 0) {
    // common_sampler_init: temp and mirostat alone.
    order.steps = {EXACTSAMPLE_STEP_TEMPERATURE};
    order.mirostat = c.mirostat;
    order.plain_temperature = true;
    return Fill(vocab, c, order, out);
  }
  for (size_t j = 0; j < c.n_samplers; ++j) {
    const std::string field = "samplers[" + std::to_string(j) + "]";
    if (c.samplers[j] == nullptr) return field + " is NULL";
    const int32_t step = CommonStep(c.samplers[j]);
    if (step == kAdaptive) {
      order.adaptive = true;
    } else if (step == kInfill) {
      return field + " = " + Quoted(c.samplers[j]) +
             ": infill needs the tokenizer's strings; keep it a llama.cpp sampler in front";
    } else if (step == kNoStep) {
      return field + " = " + Quoted(c.samplers[j]) +
             ": not one of common's samplers (penalties, dry, top_n_sigma, top_k, typ_p, top_p, "
             "min_p, xtc, temperature, adaptive_p, or their aliases)";
    } else {
      order.steps.push_back(step);
    }
  }
  return Fill(vocab, c, order, out);
}

std::string FromChain(const llama_vocab* vocab, llama_sampler* chain,
                      const exactsample_llama_common& c, Mapped& out) {
  if (std::string e = SizeProblem(c); !e.empty()) return e;
  if (chain == nullptr) return "chain is NULL";
  const std::string kind = llama_sampler_name(chain);
  if (kind != "chain") return "chain is " + Quoted(kind) + ", not a llama_sampler_chain";
  const int n = llama_sampler_chain_n(chain);
  Order order;
  bool terminal = false;
  for (int i = 0; i < n; ++i) {
    std::string name = llama_sampler_name(llama_sampler_chain_get(chain, i));
    const std::string field = "chain[" + std::to_string(i) + "] = " + Quoted(name);
    if (terminal) return field + ": after the chain's terminal, which picked the token";
    // "?name": llama.cpp's placeholder for a sampler made off.
    const bool off = !name.empty() && name[0] == '?';
    if (off) name.erase(0, 1);
    const int32_t step = ChainStep(name);
    if (step != kNoStep) {
      if (!off) order.steps.push_back(step);
      if (!off && name == "temp") order.plain_temperature = true;
      continue;
    }
    if (off) continue;  // a placeholder does nothing
    terminal = name == "dist" || name == "mirostat" || name == "mirostat-v2" || name == "adaptive-p";
    if (name == "mirostat") order.mirostat = 1;
    if (name == "mirostat-v2") order.mirostat = 2;
    if (name == "adaptive-p") order.adaptive = true;
    if (terminal) continue;
    if (name == "logit-bias") {
      return field + ": llama.cpp's API does not expose its biases; pass them in extras";
    }
    if (name == "grammar" || name == "infill") {
      return field + ": it needs the tokenizer's strings; keep it a llama.cpp sampler in front";
    }
    return field + ": not a sampler exactsample runs (penalties, dry, top-n-sigma, top-k, "
                   "typical, top-p, min-p, xtc, temp, temp-ext; dist, mirostat, mirostat-v2, "
                   "adaptive-p last)";
  }
  if (!terminal) {
    return "chain: no terminal (dist, mirostat, mirostat-v2 or adaptive-p) picks the token";
  }
  return Fill(vocab, c, order, out);
}

}  // namespace exactsample_llama
