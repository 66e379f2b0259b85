#include "scalar_ref/twins/nucleus.hpp"

#include <algorithm>
#include <vector>

#include "scalar_ref/order.hpp"

namespace exactsample::twins {

Cut NucleusCut(const double* l, double divisor, const double* e, size_t n,
               double z, double p) {
  auto t = [&](uint32_t i) { return scalar_ref::Tempered(l[i], divisor); };
  std::vector<uint32_t> ids;
  for (size_t i = 0; i < n; ++i) {
    if (e[i] > 0) ids.push_back(static_cast<uint32_t>(i));
  }
  std::sort(ids.begin(), ids.end(), [&](uint32_t a, uint32_t b) {
    return scalar_ref::Before(t(a), a, t(b), b);
  });
  double s = 0.0;
  for (size_t k = 0; k < ids.size(); ++k) {
    s += e[ids[k]] / z;
    if (s >= p) return Cut{true, t(ids[k]), ids[k], k + 1};
  }
  return Cut{false, 0.0, 0, ids.size()};
}

}  // namespace exactsample::twins
