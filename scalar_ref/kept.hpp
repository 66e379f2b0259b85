// What every step of the reference's chain reads: the logits l (indexed by
// id) and the kept set K (ascending ids), step 9's softmax over K and the
// order (l desc, id asc) over K (docs/llama-samplers.md, The samplers).
#pragma once

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace exactsample::scalar_ref {

using Logits = std::vector<double>;  // indexed by id
using Ids = std::vector<int32_t>;    // a kept set, ascending ids

// Step 9 over K: M, Z (ascending ids) and q[j] for the id K[j].
struct Softmax {
  double max = -INFINITY;
  double z = 0.0;
  std::vector<double> q;
};
Softmax SoftmaxOver(const Logits& l, const Ids& kept);

// lp[j] = (l[K[j]] - M) - log(Z), the log of q[j] without its underflow.
std::vector<double> LogProbs(const Logits& l, const Ids& kept, const Softmax& s);
// H = -(the sum over K of q[j] * lp[j]), ascending ids.
double Entropy(const Softmax& s, const std::vector<double>& lp);

// Positions of K in (l desc, id asc) order.
std::vector<size_t> DescendingOrder(const Logits& l, const Ids& kept);
// The ids of K at the first n positions of `order`, ascending.
Ids FirstOf(const Ids& kept, const std::vector<size_t>& order, size_t n);
// The ids of K whose `keep` is set, ascending.
Ids Select(const Ids& kept, const std::vector<bool>& keep);

}  // namespace exactsample::scalar_ref
