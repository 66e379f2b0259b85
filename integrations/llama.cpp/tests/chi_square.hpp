// The chi-square test of homogeneity for two samples of tokens.
#ifndef EXACTSAMPLE_LLAMA_TESTS_CHI_SQUARE_HPP_
#define EXACTSAMPLE_LLAMA_TESTS_CHI_SQUARE_HPP_

#include <cstddef>
#include <cstdint>
#include <vector>

namespace chi_square {

struct Result {
  double statistic = 0.0;
  size_t bins = 0;    // after pooling
  size_t pooled = 0;  // ids pooled into one bin (expected count below 5)
  double p = 1.0;     // P(chi-square with bins - 1 degrees of freedom >= statistic)
};

// a and b: counts per id of two samples (any sizes, the same length). Ids
// seen in neither are left out; ids whose expected count is below 5 in
// either sample are pooled into one bin, and that bin is merged into the
// smallest other one when it is itself below 5.
Result Homogeneity(const std::vector<uint32_t>& a, const std::vector<uint32_t>& b);

// The upper tail of the chi-square distribution with df degrees of freedom.
double UpperTail(double statistic, double df);

}  // namespace chi_square

#endif  // EXACTSAMPLE_LLAMA_TESTS_CHI_SQUARE_HPP_
