#include "scalar_ref/twins/rank.hpp"

namespace exactsample::twins {
namespace {

template <class T>
size_t Count(const T* l, size_t n, double max, double log_z, double bound) {
  size_t count = 0;
  for (size_t i = 0; i < n; ++i) {
    count += (static_cast<double>(l[i]) - max) - log_z >= bound ? 1 : 0;
  }
  return count;
}

}  // namespace

size_t CountLogprobsAtLeast(const double* l, size_t n, double max, double log_z,
                            double bound) {
  return Count(l, n, max, log_z, bound);
}

size_t CountLogprobsAtLeast(const float* x, size_t n, double max, double log_z,
                            double bound) {
  return Count(x, n, max, log_z, bound);
}

}  // namespace exactsample::twins
