#include "scalar_ref/twins/compact.hpp"

namespace exactsample::twins {

size_t CompactAtLeast(const double* e, size_t n, double threshold,
                      uint32_t* ids, size_t capacity) {
  size_t count = 0;
  for (size_t i = 0; i < n; ++i) {
    if (e[i] >= threshold) {
      if (count == capacity) return capacity + 1;
      ids[count++] = static_cast<uint32_t>(i);
    }
  }
  return count;
}

void CountAtLeast(const double* e, size_t n, const double* thresholds, size_t k,
                  size_t* counts, double* masses) {
  for (size_t j = 0; j < k; ++j) {
    counts[j] = 0;
    masses[j] = 0.0;
  }
  for (size_t i = 0; i < n; ++i) {
    for (size_t j = 0; j < k; ++j) {
      if (e[i] >= thresholds[j]) {
        ++counts[j];
        masses[j] += e[i];
      }
    }
  }
}

}  // namespace exactsample::twins
