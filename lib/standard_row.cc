#include "lib/standard_row.hpp"

#include <cmath>

#include "exactsample/pcg32.hpp"

namespace exactsample {

std::vector<float> StandardRow(size_t vocab, uint64_t seed) {
  Pcg32 rng = stream(seed, Purpose::init);
  std::vector<float> row(vocab);
  // Box-Muller; 1 - u keeps the log's argument in (0, 1].
  for (size_t i = 0; i < vocab; ++i) {
    const double u1 = 1.0 - rng.uniform_f64();
    const double u2 = rng.uniform_f64();
    const double normal =
        std::sqrt(-2.0 * std::log(u1)) * std::cos(2.0 * M_PI * u2);
    row[i] = static_cast<float>(1.5 * normal);
  }
  for (int peak = 0; peak < 20 && vocab > 0; ++peak) {
    const size_t id = rng.next_u32() % vocab;
    row[id] += static_cast<float>(8.0 + 6.0 * rng.uniform_f64());
  }
  return row;
}

}  // namespace exactsample
