// Scalar twin of simd/nucleus.hpp: the nucleus cut of spec step 7 as a full
// sort and a walk.
#pragma once

#include <cstddef>
#include <cstdint>

namespace exactsample::twins {

// Where the top-p walk stops. The caller keeps the ids ordered up to and
// including (t, id) in (t desc, id asc) order and drops the others.
struct Cut {
  bool found = false;  // false: s never reached p, nothing is dropped
  double t = 0.0;      // t of the cut id (when found)
  uint32_t id = 0;     // the cut id, which stays (when found)
  size_t kept = 0;     // ids with e > 0 up to and including the cut (all of
                       // them when not found)
};

// Step 7 over the ids with e[i] > 0, with t[i] = l[i] / divisor (divisor > 0;
// l[i] itself when divisor == 1) and q[i] = e[i] / z: walk them in (t desc,
// id asc) order adding q to s = 0, and cut at the first id where s >= p. Ids
// with e[i] == 0 (masked, or exp underflowed) order after every id with
// e > 0 and add nothing, so they never hold the cut. n < 2^31.
Cut NucleusCut(const double* l, double divisor, const double* e, size_t n,
               double z, double p);

}  // namespace exactsample::twins
