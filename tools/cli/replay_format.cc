#include "tools/cli/replay_format.hpp"

#include <algorithm>
#include <cmath>
#include <optional>
#include <set>

#include "tools/lib/input_file.hpp"

namespace exactsample::cli {

using nlohmann::json;

Result<float> ParseLogit(const json& v, const std::string& field) {
  const auto d = ParseReal(v, field);
  if (!d) return d.error();
  const float f = static_cast<float>(*d);
  if (std::isinf(f) && !std::isinf(*d)) {
    return FieldError(field, Brief(v) +
                                 " is beyond the f32 range (largest 3.4028235e+38); "
                                 "write \"inf\" or \"-inf\" for an infinite logit");
  }
  return f;
}

namespace {

// logit_bias: an object whose keys are ids in canonical decimal (OpenAI's
// form), each id once.
Result<std::monostate> ParseBias(const json& v, size_t vocab, BiasAndMaskLists& lists) {
  if (!v.is_object()) return FieldError("logit_bias", "expected an object {\"id\": bias}");
  for (const auto& [key, value] : v.items()) {
    const auto id = BiasKeyId(key, vocab);
    if (!id) return id.error();
    const auto bias = ParseReal(value, "logit_bias[\"" + key + "\"]");
    if (!bias) return bias.error();
    lists.bias_ids.push_back(*id);
    lists.bias_values.push_back(*bias);
  }
  return std::monostate{};
}

// The fields of a case: the request's, and the expected results a case may
// carry (the golden fixtures' ids and logprobs, or error), which replay does
// not read.
bool IsCaseField(const std::string& key) {
  static const std::set<std::string> kFields{
      "name",   "logits", "params", "prompt",           "seed",
      "steps",  "ids",    "logprobs", "processed_logprobs", "top_logprobs", "error"};
  return kFields.contains(key);
}

// A logprob as the replay grammar writes it: a number, or "-inf" (and
// "inf", "nan") where JSON has none, so that every value reads back.
nlohmann::ordered_json LogprobValue(double v) {
  if (std::isfinite(v)) return v;
  return std::isnan(v) ? "nan" : v > 0 ? "inf" : "-inf";
}

}  // namespace

Error IdOutside(const std::string& field, const std::string& id, size_t vocab) {
  return {ErrorCode::invalid_ids, field,
          id + ": outside [0, V) with V = " + std::to_string(vocab)};
}

Result<int32_t> BiasKeyId(const std::string& key, size_t vocab) {
  const bool canonical = !key.empty() &&
                         key.find_first_not_of("0123456789") == std::string::npos &&
                         (key == "0" || key[0] != '0');
  if (!canonical) {
    return Error{ErrorCode::invalid_ids, "logit_bias",
                 "logit_bias key " + Brief(json(key)) +
                     ": not an id in canonical decimal (digits, no sign, spaces or "
                     "leading zeros: \"0\", \"17\")"};
  }
  // At most 10 digits fit an int64 here; more lie beyond every V.
  const int64_t id = key.size() <= 10 ? std::stoll(key) : INT64_MAX;
  if ((vocab > 0 && static_cast<uint64_t>(id) >= vocab) || id > INT32_MAX) {
    return IdOutside("logit_bias", "logit_bias key \"" + key + "\"", vocab);
  }
  return static_cast<int32_t>(id);
}

Error EmptyAllowList() {
  return {ErrorCode::degenerate, "allowed_token_ids",
          "allowed_token_ids: empty, so no id may be drawn; leave it out to allow every id"};
}

namespace {

// The field of `fields` named `key`, or null.
template <class T, size_t N>
T* Named(const std::pair<const char*, T*> (&fields)[N], const std::string& key) {
  for (const auto& [name, field] : fields) {
    if (key == name) return field;
  }
  return nullptr;
}

double* RealField(SamplingParams& p, const std::string& key) {
  const std::pair<const char*, double*> fields[] = {
      {"temperature", &p.temperature},
      {"top_p", &p.top_p},
      {"min_p", &p.min_p},
      {"repetition_penalty", &p.repetition_penalty},
      {"presence_penalty", &p.presence_penalty},
      {"frequency_penalty", &p.frequency_penalty},
      {"top_n_sigma", &p.top_n_sigma},
      {"typical_p", &p.typical_p},
      {"xtc_probability", &p.xtc_probability},
      {"xtc_threshold", &p.xtc_threshold},
      {"dry_multiplier", &p.dry_multiplier},
      {"dry_base", &p.dry_base},
      {"dynatemp_range", &p.dynatemp_range},
      {"dynatemp_exponent", &p.dynatemp_exponent},
      {"mirostat_tau", &p.mirostat_tau},
      {"mirostat_eta", &p.mirostat_eta},
      {"adaptive_target", &p.adaptive_target},
      {"adaptive_decay", &p.adaptive_decay},
  };
  return Named(fields, key);
}

int64_t* IntegerField(SamplingParams& p, const std::string& key) {
  const std::pair<const char*, int64_t*> fields[] = {
      {"top_k", &p.top_k},
      {"top_logprobs", &p.top_logprobs},
      {"penalty_last_n", &p.penalty_last_n},
      {"min_keep", &p.min_keep},
      {"dry_allowed_length", &p.dry_allowed_length},
      {"dry_penalty_last_n", &p.dry_penalty_last_n},
      {"mirostat", &p.mirostat},
      {"mirostat_m", &p.mirostat_m},
  };
  return Named(fields, key);
}

// The step a name is, or nullopt.
std::optional<ChainStep> StepNamed(std::string_view name) {
  for (size_t i = 0; i < kChainSteps; ++i) {
    if (chain_step_name(static_cast<ChainStep>(i)) == name) return static_cast<ChainStep>(i);
  }
  return std::nullopt;
}

// "chain": a preset's name or a list of step names (tools/spec_sampler.py's
// read_chain; the names are checked by the sampler's words). With `lists`,
// an unknown name is kept there and refused by the checks in the page's
// order, after the other fields (Chain::unknown); without, it is refused
// here.
Result<Chain> ParseChain(const json& v, BiasAndMaskLists* lists) {
  if (v.is_string()) {
    Result<Chain> chain = chain_from_preset(v.get<std::string>());
    if (chain || lists == nullptr) return chain;
    lists->chain_unknown = v.get<std::string>();
    return Chain{ChainPreset::list, 0, {}, {}};
  }
  const bool names = v.is_array() && std::all_of(v.begin(), v.end(), [](const json& a) {
                       return a.is_string();
                     });
  if (!names) return Error{ErrorCode::invalid_parameter, "chain",
                           "chain: not a preset name or a list of step names"};
  std::vector<std::string> owned;
  for (const json& a : v) owned.push_back(a.get<std::string>());
  const std::vector<std::string_view> views(owned.begin(), owned.end());
  Result<Chain> chain = chain_from_names(views);
  if (chain || lists == nullptr) return chain;
  // The list up to its first unknown name, which a step past the last
  // marks (a longer list repeats a step among the entries kept).
  Chain kept{ChainPreset::list, 0, {}, {}};
  for (const std::string& name : owned) {
    if (kept.count == kept.list.size()) break;
    const std::optional<ChainStep> step = StepNamed(name);
    kept.list[kept.count++] = step.value_or(static_cast<ChainStep>(kChainSteps));
    if (!step) {
      lists->chain_unknown = name;
      break;
    }
  }
  return kept;
}

}  // namespace

Result<std::monostate> ParseParams(const json& v, SamplingParams& p,
                                   BiasAndMaskLists* lists, size_t vocab) {
  if (!v.is_object()) return FieldError("params", "expected an object");
  for (const auto& [key, value] : v.items()) {
    if (double* real = RealField(p, key)) {
      const auto r = ParseReal(value, key);
      if (!r) return r.error();
      *real = *r;
    } else if (int64_t* integer = IntegerField(p, key)) {
      const auto r = ParseInt(value, key, INT64_MIN, INT64_MAX);
      if (!r) return r.error();
      *integer = *r;
    } else if (key == "chain") {
      auto chain = ParseChain(value, lists);
      if (!chain) return chain.error();
      p.chain = *chain;
    } else if (lists != nullptr && key == "dry_sequence_breakers") {
      if (!value.is_array()) return FieldError(key, "must be a list of lists of ids");
      for (size_t j = 0; j < value.size(); ++j) {
        auto& ids = lists->breakers.emplace_back();
        if (auto r = ParseIds(value[j], key + "[" + std::to_string(j) + "]", 0, ids); !r) {
          return r.error();
        }
      }
    } else if (lists != nullptr && key == "logit_bias") {
      if (auto r = ParseBias(value, vocab, *lists); !r) return r.error();
    } else if (lists != nullptr && (key == "allowed_token_ids" || key == "banned_token_ids")) {
      auto& ids = key == "allowed_token_ids" ? lists->allowed : lists->banned;
      if (auto r = ParseIds(value, key, vocab, ids); !r) return r.error();
      if (key == "allowed_token_ids" && ids.empty()) return EmptyAllowList();
    } else {
      return FieldError("params." + key, "unknown sampling parameter");
    }
  }
  return std::monostate{};
}

Result<std::monostate> ParseIds(const json& v, const std::string& field,
                                size_t vocab, std::vector<int32_t>& ids) {
  if (!v.is_array()) return FieldError(field, "expected an array of ids, got " + Brief(v));
  // vocab 0: ids are only int32 here, and the sampler checks [0, V) in
  // its own words (replay, so that its messages are the library's). With a
  // vocab, an integer outside [0, V) gets the library's words too.
  for (size_t j = 0; j < v.size(); ++j) {
    const std::string at = field + "[" + std::to_string(j) + "]";
    const bool outside = vocab > 0 && v[j].is_number_integer() &&
                         (v[j].is_number_unsigned() ? v[j].get<uint64_t>() >= vocab
                                                    : v[j].get<int64_t>() < 0 ||
                                                          v[j].get<uint64_t>() >= vocab);
    if (outside) return IdOutside(field, at + " = " + Brief(v[j]), vocab);
    const auto id = ParseInt(v[j], at, INT32_MIN, INT32_MAX);
    if (!id) return Error{ErrorCode::invalid_ids, field, id.error().message};
    ids.push_back(static_cast<int32_t>(*id));
  }
  return std::monostate{};
}

Result<std::monostate> ParseSeedAndSteps(const json& j, uint64_t& seed, int64_t& steps) {
  if (!j.contains("seed")) return FieldError("seed", "missing");
  const auto s = ParseUnsigned(j["seed"], "seed");
  if (!s) return s.error();
  seed = *s;
  if (j.contains("steps")) {
    const auto n = ParseInt(j["steps"], "steps", 0, kMaxSteps);
    if (!n) return n.error();
    steps = *n;
  }
  return std::monostate{};
}

Result<ReplayCase> ParseCase(const json& j) {
  ReplayCase c;
  if (!j.is_object()) return FieldError("case", "expected an object");
  for (const auto& [key, value] : j.items()) {
    if (!IsCaseField(key)) {
      return FieldError(key,
                        "unknown case field; a case has name, logits, params, prompt, seed "
                        "and steps (and may carry expected ids and logprobs, or an error)");
    }
  }
  if (!j.contains("name") || !j["name"].is_string()) {
    return FieldError("name", "missing or not a string");
  }
  c.name = j["name"].get<std::string>();
  if (!j.contains("logits") || !j["logits"].is_array()) {
    return FieldError("logits", "missing or not an array");
  }
  if (auto r = ParseRow(j["logits"], "logits", c.logits); !r) return r.error();
  if (j.contains("params")) {
    if (auto r = ParseParams(j["params"], c.params, &c.lists, c.logits.size()); !r) {
      return r.error();
    }
  }
  if (j.contains("prompt")) {
    if (auto r = ParseIds(j["prompt"], "prompt", 0, c.prompt); !r) {
      return r.error();
    }
  }
  if (auto r = ParseSeedAndSteps(j, c.seed, c.steps); !r) return r.error();
  return c;
}

Result<std::monostate> ParseRow(const json& v, const std::string& field,
                                std::vector<float>& row) {
  if (!v.is_array()) return FieldError(field, "expected an array of logits, got " + Brief(v));
  row.reserve(v.size());
  for (size_t i = 0; i < v.size(); ++i) {
    const auto f = ParseLogit(v[i], field + "[" + std::to_string(i) + "]");
    if (!f) return f.error();
    row.push_back(*f);
  }
  return std::monostate{};
}

Result<json> ParseCaseFile(std::string_view text, const std::string& where) {
  auto doc = ParseJson(text, where);
  if (!doc) return doc.error();
  if (!doc->is_object() || !doc->contains("cases") || !(*doc)["cases"].is_array()) {
    return FieldError(where, "has no \"cases\" array");
  }
  return std::move((*doc)["cases"]);
}

Result<json> ReadCaseFile(const std::string& path) {
  const auto text = ReadInputFile(path);
  if (!text) return text.error();
  return ParseCaseFile(*text, path);
}

std::string CaseName(const json& j, size_t index) {
  return j.is_object() && j.contains("name") && j["name"].is_string()
             ? j["name"].get<std::string>()
             : "case " + std::to_string(index);
}

nlohmann::ordered_json ResultJson(const std::string& name, std::span<const Token> tokens,
                                  bool top_logprobs) {
  nlohmann::ordered_json line;
  line["name"] = name;
  line["ids"] = json::array();
  line["logprobs"] = json::array();
  line["processed_logprobs"] = json::array();
  if (top_logprobs) line["top_logprobs"] = json::array();
  for (const Token& t : tokens) {
    line["ids"].push_back(t.id);
    // nlohmann writes the shortest decimal that round-trips.
    line["logprobs"].push_back(LogprobValue(t.logprob));
    line["processed_logprobs"].push_back(LogprobValue(t.processed_logprob));
    if (!top_logprobs) continue;
    nlohmann::ordered_json top = nlohmann::ordered_json::array();
    for (const TopLogprob& e : t.top_logprobs()) {
      top.push_back(nlohmann::ordered_json::array({e.id, LogprobValue(e.logprob)}));
    }
    line["top_logprobs"].push_back(std::move(top));
  }
  return line;
}

std::string ResultLine(const std::string& name, std::span<const Token> tokens,
                       bool top_logprobs) {
  return ResultJson(name, tokens, top_logprobs).dump();
}

std::string ErrorLine(const std::string& name, const std::string& error) {
  nlohmann::ordered_json line;
  line["name"] = name;
  line["error"] = error;
  return line.dump();
}

}  // namespace exactsample::cli
