// Which exp the fast engine replicates: the process's std::exp is glibc's
// FMA variant or its non-FMA variant (an ifunc picks one per CPU), and the
// two differ on a few softmax inputs. ProcessExp() finds out once
// by probing; kernels then run the matching vector replica, or call std::exp
// per element (libm) when neither replica is proven to match.
#pragma once

#include <string>

namespace exactsample::simd {

enum class ExpVariant {
  fused,    // glibc's FMA variant: twins::ExpFused
  unfused,  // glibc's non-FMA variant: twins::ExpUnfused
  libm,     // std::exp per element
};

struct ExpChoice {
  ExpVariant variant;
  std::string reason;  // why, for logs and diagnostics
};

// Computed on first use (thread-safe) in the default floating-point
// environment (round-to-nearest, no FTZ/DAZ; the caller's is restored), then
// fixed for the process. Chooses libm when EXACTSAMPLE_FORCE_LIBM_EXP is set
// to a value other than "" or "0", or when std::exp matches neither replica
// on every probe. Costs well under a millisecond.
const ExpChoice& ProcessExp();

// Whether this thread's floating-point environment is the default one:
// round-to-nearest, IEEE subnormals (no FTZ/DAZ). The replicas assume it, and
// so do the error bounds of simd/exp_bound.
bool DefaultEnvironment();

// What a call from this thread uses: ProcessExp()'s variant in the default
// environment, libm in any other (FTZ/DAZ or another rounding mode change
// exp's results). Checked per call, in a few nanoseconds.
ExpVariant CallerExp();

// The same decision taken now, in this thread's floating-point environment;
// ProcessExp() keeps the first one.
ExpChoice ChooseExp();

const char* ToString(ExpVariant variant);

// How the vector replica reads its table on x86 with AVX2 or AVX-512:
// by gathers on Intel CPUs, whose gathers are fast, by 128-bit loads
// elsewhere (AMD's gathers are microcoded). The same values either way;
// tests force each.
enum class ExpTable { automatic, gather, loads };
bool ExpTableByGather();
void ForceExpTable(ExpTable table);

}  // namespace exactsample::simd
