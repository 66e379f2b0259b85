// `exactsample bench --speculative G`: one verification of G drafts against
// the sum of the single-token calls on the same rows (G + 1 target rows, G
// draft rows), timed interleaved in one run. The target rows are the row
// with small noise, the draft rows near them, each draft the most likely id
// of its draft row; the generator's seed is the first whose verification
// accepts every draft (the verification then reads every row), else 0.
#pragma once

#include "tools/cli/bench.hpp"

namespace exactsample::cli {

// Exit status: 0 measured, 2 bad input or usage.
int BenchSpeculative(const BenchOptions& options);

}  // namespace exactsample::cli
