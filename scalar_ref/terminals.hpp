// Dynamic temperature and the terminals that replace the spec's draw
// (docs/llama-samplers.md: temperature, mirostat, mirostat v2, adaptive-p).
#pragma once

#include <optional>

#include "scalar_ref/kept.hpp"

namespace exactsample::scalar_ref {

inline const double kLn2 = std::log(2.0);

// temp_ext's T', or none when |K| = 1 (the step changes nothing).
std::optional<double> DynamicTemperature(const Logits& l, const Ids& kept, double t,
                                         double range, double exponent);
// Mirostat v1: the first k ids of order K, k from the Zipf estimate over
// the top m; `vocab` is the row's length.
Ids MirostatV1(const Logits& l, const Ids& kept, double mu, int64_t m, size_t vocab);
// Mirostat v2: the ids whose surprise -lp / ln 2 is <= mu; the first of
// order K if none.
Ids MirostatV2(const Logits& l, const Ids& kept, double mu);
// Adaptive-p's logits over K, from q (the softmax over K before it) and alpha.
Logits AdaptiveLogits(const Logits& l, const Ids& kept, const Softmax& q, double alpha);

}  // namespace exactsample::scalar_ref
