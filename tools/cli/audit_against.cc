#include "tools/cli/audit_against.hpp"

#include <algorithm>
#include <bit>
#include <optional>

#include "tools/cli/json_lines.hpp"
#include "tools/cli/json_values.hpp"

namespace exactsample::cli {
namespace {

using nlohmann::json;

// A logprob as replay lines write it: a number, or a numeric string such as
// "-inf"; nullopt for anything else.
std::optional<double> Logprob(const json& v) {
  const auto d = ParseReal(v, "logprob");
  return d ? std::optional<double>(*d) : std::nullopt;
}

// "[id, logprob]", or nullopt.
std::optional<TopLogprob> TopEntry(const json& pair) {
  if (!pair.is_array() || pair.size() != 2 || !pair[0].is_number_integer() ||
      pair[0].get<int64_t>() < INT32_MIN || pair[0].get<int64_t>() > INT32_MAX) {
    return std::nullopt;
  }
  const auto logprob = Logprob(pair[1]);
  if (!logprob) return std::nullopt;
  return TopLogprob{pair[0].get<int32_t>(), *logprob};
}

// The optional "processed_logprobs" and "top_logprobs" of a line whose
// tokens are read; "" when they fit.
std::string ParseOutputs(const json& j, OtherResult& out) {
  const size_t n = out.tokens.size();
  if ((out.processed = j.contains("processed_logprobs"))) {
    const json& p = j["processed_logprobs"];
    if (!p.is_array() || p.size() != n) return "processed_logprobs: expected one number per id";
    for (size_t t = 0; t < n; ++t) {
      const auto v = Logprob(p[t]);
      if (!v) return "processed_logprobs[" + std::to_string(t) + "]: not a number";
      out.tokens[t].processed_logprob = *v;
    }
  }
  if ((out.top = j.contains("top_logprobs"))) {
    const json& top = j["top_logprobs"];
    if (!top.is_array() || top.size() != n) return "top_logprobs: expected one list per id";
    for (size_t t = 0; t < n; ++t) {
      const std::string where = "top_logprobs[" + std::to_string(t) + "]";
      if (!top[t].is_array() || top[t].size() > kMaxTopLogprobs) {
        return where + ": expected at most 20 [id, logprob] pairs";
      }
      Token& token = out.tokens[t];
      token.top_count = top[t].size();
      for (size_t r = 0; r < token.top_count; ++r) {
        const auto entry = TopEntry(top[t][r]);
        if (!entry) return where + "[" + std::to_string(r) + "]: expected [id, logprob]";
        token.top[r] = *entry;
      }
    }
  }
  return "";
}

// The fields of one line; "" when they fit.
std::string ParseOther(const json& j, OtherResult& out) {
  if (!j.is_object()) return "expected an object";
  if (j.contains("name")) {
    if (!j["name"].is_string()) return "name: not a string";
    out.name = j["name"].get<std::string>();
  }
  if (j.contains("error")) {
    out.error = j["error"].is_string() ? j["error"].get<std::string>() : Brief(j["error"]);
    return "";
  }
  if (!j.contains("ids") || !j["ids"].is_array() || !j.contains("logprobs") ||
      !j["logprobs"].is_array() || j["ids"].size() != j["logprobs"].size()) {
    return "expected \"ids\" and \"logprobs\" arrays of one length, or \"error\"";
  }
  for (size_t t = 0; t < j["ids"].size(); ++t) {
    const auto id = ParseInt(j["ids"][t], "ids[" + std::to_string(t) + "]", INT32_MIN,
                             INT32_MAX);
    if (!id) return id.error().message;
    const auto lp = Logprob(j["logprobs"][t]);
    if (!lp) return "logprobs[" + std::to_string(t) + "]: not a number";
    out.tokens.push_back({static_cast<int32_t>(*id), *lp});
  }
  if (j.contains("accepted") || j.contains("rng_draws_consumed")) {
    const auto accepted = ParseInt(j.value("accepted", json()), "accepted", 0, INT64_MAX);
    if (!accepted) return accepted.error().message;
    const auto draws = ParseUnsigned(j.value("rng_draws_consumed", json()), "rng_draws_consumed");
    if (!draws) return draws.error().message;
    out.counts = VerifyCounts{static_cast<size_t>(*accepted), *draws};
  }
  return ParseOutputs(j, out);
}

bool SameBits(const Token& a, const Token& b) {
  return a.id == b.id &&
         std::bit_cast<uint64_t>(a.logprob) == std::bit_cast<uint64_t>(b.logprob);
}

std::string OtherOutcome(const OtherResult& o, size_t t) {
  if (o.error) return "error: " + *o.error;
  if (t < o.tokens.size()) {
    return "id " + std::to_string(o.tokens[t].id) + ", logprob " +
           Decimal(o.tokens[t].logprob) + " (" + HexBits(o.tokens[t].logprob) + ")";
  }
  return "no token (" + std::to_string(o.tokens.size()) + " in all)";
}

}  // namespace

Result<std::vector<OtherResult>> ReadOtherResults(const std::string& path) {
  const auto lines = ReadJsonLines(path);
  if (!lines) return lines.error();
  std::vector<OtherResult> out;
  for (const JsonLine& line : *lines) {
    OtherResult o;
    if (const std::string why = ParseOther(line.value, o); !why.empty()) {
      return Error{ErrorCode::invalid_parameter, "against", Where(path, line) + why};
    }
    out.push_back(std::move(o));
  }
  return out;
}

bool CompareWithOther(const RequestRef& r, const EngineRun& library,
                      const std::string& other_name, const OtherResult& other,
                      AuditReport& report) {
  if (library.error && other.error) return true;
  // An error line has no tokens: the outcomes part at token 0.
  const size_t n = other.error ? 0 : std::min(library.tokens.size(), other.tokens.size());
  for (size_t t = 0; t < n; ++t) {
    const Token& ours = library.tokens[t].token;
    if (!SameBits(ours, other.tokens[t])) {
      report.AgainstMismatch(r, t, other_name, library.tokens[t], other.tokens[t],
                             ExplainOther(library.tokens[t], other.tokens[t]));
      return false;
    }
    // What the other side does not give compares equal.
    Token given = other.tokens[t];
    if (!other.processed) given.processed_logprob = ours.processed_logprob;
    if (!other.top) given.top_count = 0;
    Token compared = ours;
    if (!other.top) compared.top_count = 0;
    if (const auto d = OutputDifference(compared, given)) {
      report.AgainstMismatch(r, t, other_name, library.tokens[t], other.tokens[t], *d);
      return false;
    }
  }
  if (!library.error && !other.error && library.tokens.size() == other.tokens.size()) {
    if (library.counts == other.counts) return true;
    report.OutcomeMismatch(r, n, "library", CountsText(library.counts), other_name,
                           CountsText(other.counts));
    return false;
  }
  report.OutcomeMismatch(r, n, "library", Outcome(library, n), other_name,
                         OtherOutcome(other, n));
  return false;
}

}  // namespace exactsample::cli
