#include "scalar_ref/twins/compact.hpp"

#include <bit>
#include <cmath>

namespace exactsample::twins {

namespace {

template <typename T>
size_t CompactAtLeastOf(const T* e, size_t n, T threshold, uint32_t* ids, size_t capacity) {
  size_t count = 0;
  for (size_t i = 0; i < n; ++i) {
    if (e[i] >= threshold) {
      if (count == capacity) return capacity + 1;
      ids[count++] = static_cast<uint32_t>(i);
    }
  }
  return count;
}

}  // namespace

size_t CompactAtLeast(const double* e, size_t n, double threshold,
                      uint32_t* ids, size_t capacity) {
  return CompactAtLeastOf(e, n, threshold, ids, capacity);
}

size_t CompactAtLeast(const float* x, size_t n, float threshold,
                      uint32_t* ids, size_t capacity) {
  return CompactAtLeastOf(x, n, threshold, ids, capacity);
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

size_t CountAllowed(const uint32_t* words, size_t n) {
  size_t count = 0;
  for (size_t w = 0; w < n / 32; ++w) count += static_cast<size_t>(std::popcount(words[w]));
  if (n % 32 != 0) {
    const uint32_t below_n = (uint32_t{1} << (n % 32)) - 1;
    count += static_cast<size_t>(std::popcount(words[n / 32] & below_n));
  }
  return count;
}

size_t CompactFinite(const double* l, size_t n, double* l_out, int32_t* ids_out) {
  size_t count = 0;
  for (size_t i = 0; i < n; ++i) {
    if (l[i] > -INFINITY) {
      l_out[count] = l[i];
      if (ids_out != nullptr) ids_out[count] = static_cast<int32_t>(i);
      ++count;
    }
  }
  return count;
}

}  // namespace exactsample::twins
