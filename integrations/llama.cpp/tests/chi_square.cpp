#include "chi_square.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

namespace chi_square {
namespace {

constexpr double kExpectedMin = 5.0;

// The regularized lower incomplete gamma P(s, x) by its series (x < s + 1)
// and the upper Q(s, x) by Lentz's continued fraction (otherwise), to
// double precision: enough for a threshold of 1e-6.
double SeriesP(double s, double x) {
  double term = 1.0 / s;
  double sum = term;
  for (int n = 1; n < 100000 && std::fabs(term) > std::fabs(sum) * 1e-17; ++n) {
    term *= x / (s + n);
    sum += term;
  }
  return sum * std::exp(-x + s * std::log(x) - std::lgamma(s));
}

double FractionQ(double s, double x) {
  constexpr double tiny =
      std::numeric_limits<double>::min() / std::numeric_limits<double>::epsilon();
  double b = x + 1.0 - s;
  double c = 1.0 / tiny;
  double d = 1.0 / b;
  double h = d;
  for (int i = 1; i < 100000; ++i) {
    const double an = -i * (i - s);
    b += 2.0;
    d = an * d + b;
    if (std::fabs(d) < tiny) d = tiny;
    c = b + an / c;
    if (std::fabs(c) < tiny) c = tiny;
    d = 1.0 / d;
    const double delta = d * c;
    h *= delta;
    if (std::fabs(delta - 1.0) < 1e-16) break;
  }
  return std::exp(-x + s * std::log(x) - std::lgamma(s)) * h;
}

}  // namespace

double UpperTail(double statistic, double df) {
  if (df <= 0.0 || statistic <= 0.0) return 1.0;
  const double s = df / 2.0;
  const double x = statistic / 2.0;
  return x < s + 1.0 ? 1.0 - SeriesP(s, x) : FractionQ(s, x);
}

Result Homogeneity(const std::vector<uint32_t>& a, const std::vector<uint32_t>& b) {
  double na = 0.0, nb = 0.0;
  for (size_t i = 0; i < a.size(); ++i) {
    na += a[i];
    nb += b[i];
  }
  const double fa = na / (na + nb), fb = nb / (na + nb);
  // Bins as (count in a, count in b); the pooled one last.
  std::vector<std::pair<double, double>> bins;
  std::pair<double, double> pool{0.0, 0.0};
  Result r;
  for (size_t i = 0; i < a.size(); ++i) {
    const double total = static_cast<double>(a[i]) + b[i];
    if (total == 0.0) continue;
    if (total * std::min(fa, fb) < kExpectedMin) {
      pool.first += a[i];
      pool.second += b[i];
      ++r.pooled;
    } else {
      bins.push_back({static_cast<double>(a[i]), static_cast<double>(b[i])});
    }
  }
  if (r.pooled > 0) {
    if ((pool.first + pool.second) * std::min(fa, fb) >= kExpectedMin || bins.empty()) {
      bins.push_back(pool);
    } else {
      auto smallest = std::min_element(bins.begin(), bins.end(), [](const auto& x, const auto& y) {
        return x.first + x.second < y.first + y.second;
      });
      smallest->first += pool.first;
      smallest->second += pool.second;
    }
  }
  for (const auto& [x, y] : bins) {
    const double total = x + y;
    const double ea = total * fa, eb = total * fb;
    r.statistic += (x - ea) * (x - ea) / ea + (y - eb) * (y - eb) / eb;
  }
  r.bins = bins.size();
  r.p = UpperTail(r.statistic, static_cast<double>(r.bins) - 1.0);
  return r;
}

}  // namespace chi_square
