#include "scalar_ref/twins/topk.hpp"

#include <algorithm>
#include <cmath>
#include <vector>

namespace exactsample::twins {

size_t TopK(const double* l, double divisor, size_t n, size_t k, int32_t* out) {
  std::vector<int32_t> ids;
  for (size_t i = 0; i < n; ++i) {
    if (l[i] != -INFINITY) ids.push_back(static_cast<int32_t>(i));
  }
  const size_t count = std::min(k, ids.size());
  std::partial_sort(
      ids.begin(), ids.begin() + count, ids.end(), [&](int32_t a, int32_t b) {
        return scalar_ref::Before(scalar_ref::Tempered(l[a], divisor), a,
                                  scalar_ref::Tempered(l[b], divisor), b);
      });
  std::copy(ids.begin(), ids.begin() + count, out);
  return count;
}

}  // namespace exactsample::twins
