#include "scalar_ref/dry.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

namespace exactsample::scalar_ref {
namespace {

using Breakers = std::span<const std::span<const int32_t>>;

// R: the window tokens after the breaker occurrence that starts last (the
// longest of those), or the window's length when none occurs.
size_t RestartLimit(const std::vector<int32_t>& w, Breakers breakers) {
  const size_t n = w.size();
  for (size_t s = n; s-- > 0;) {
    size_t longest = 0;  // 1 + the breaker's last offset k
    for (const std::span<const int32_t> b : breakers) {
      if (b.size() > longest && s + b.size() <= n &&
          std::equal(b.begin(), b.end(), w.begin() + static_cast<std::ptrdiff_t>(s))) {
        longest = b.size();
      }
    }
    if (longest > 0) return n - (s + longest);
  }
  return n;
}

// {id: len}: for each end e, the longest suffix of w that also ends at e
// (capped by R); the id after e gets the largest such length >= a. Written
// as the definition (quadratic in the window), not as a Z-algorithm.
std::map<int32_t, int64_t> Lengths(const std::vector<int32_t>& w, Breakers breakers,
                                   int64_t allowed_length) {
  const size_t n = w.size();
  const size_t restart = RestartLimit(w, breakers);
  std::map<int32_t, int64_t> lengths;
  for (size_t e = 0; e + 1 < n; ++e) {
    size_t length = 0;
    while (length < e + 1 && w[e - length] == w[n - 1 - length]) ++length;
    const auto capped = static_cast<int64_t>(std::min(length, restart));
    if (capped >= allowed_length) {
      int64_t& best = lengths.try_emplace(w[e + 1], capped).first->second;
      best = std::max(best, capped);
    }
  }
  return lengths;
}

}  // namespace

std::vector<std::pair<int32_t, double>> DryAmounts(const Request& request) {
  const SamplingParams& p = request.params;
  const size_t history = request.prompt.size() + request.generated.size();
  const size_t n = std::min(static_cast<size_t>(p.dry_penalty_last_n), history);
  std::vector<int32_t> w;  // the window: the last n of prompt followed by generated
  for (size_t i = history - n; i < history; ++i) {
    w.push_back(i < request.prompt.size() ? request.prompt[i]
                                          : request.generated[i - request.prompt.size()]);
  }
  const std::map<int32_t, int64_t> lengths =
      Lengths(w, p.dry_sequence_breakers, p.dry_allowed_length);
  std::set<int32_t> single;  // a breaker of one id is never penalised
  for (const std::span<const int32_t> b : p.dry_sequence_breakers) {
    if (b.size() == 1) single.insert(b[0]);
  }
  // llama.cpp's guard against float overflow: the floats 1.000001f and 88.7228391f.
  constexpr double kBaseCap = 1.00000095367431640625;
  constexpr double kFloatMaxLog = 88.72283935546875;
  const double cap = p.dry_base > kBaseCap ? std::trunc(kFloatMaxLog / std::log(p.dry_base)) : 0;
  std::vector<std::pair<int32_t, double>> amounts;
  for (const auto& [c, length] : lengths) {
    if (single.count(c) != 0) continue;
    double x = static_cast<double>(length - p.dry_allowed_length);
    if (cap > 0 && x > cap) x = cap;
    amounts.emplace_back(c, p.dry_multiplier * std::exp(x * std::log(p.dry_base)));  // pow(b, x)
  }
  return amounts;
}

void Dry(Logits& l, const Ids& kept, const Request& request) {
  for (const auto& [c, amount] : DryAmounts(request)) {
    if (std::binary_search(kept.begin(), kept.end(), c)) l[c] = l[c] - amount;
  }
}

}  // namespace exactsample::scalar_ref
