#include "simd/exp_choice.hpp"

#include <atomic>
#include <bit>
#include <cfenv>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <vector>

#include "scalar_ref/twins/exp_glibc.hpp"

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#endif

namespace exactsample::simd {
namespace {

// The floating-point control register beyond the rounding mode, where the
// architecture has flush-to-zero modes: x86's MXCSR (FTZ, DAZ, exception
// masks) and aarch64's FPCR (FZ, FZ16, trap enables). Elsewhere (ppc64le's
// scalar FPSCR, s390x's FPC) rounding is the only mode that changes exp.
#if defined(__x86_64__) || defined(__i386__)
constexpr const char* kControlName = "MXCSR";
unsigned ReadControl() { return _mm_getcsr(); }
void WriteControl(unsigned c) { _mm_setcsr(c); }
// All exceptions masked, round-to-nearest, no DAZ (bit 6), no FTZ (15); the
// sticky exception flags (bits 0-5) are kept.
unsigned DefaultControl(unsigned c) { return 0x1f80u | (c & 0x3fu); }
#elif defined(__aarch64__)
constexpr const char* kControlName = "FPCR";
unsigned ReadControl() { return __builtin_aarch64_get_fpcr(); }
void WriteControl(unsigned c) { __builtin_aarch64_set_fpcr(c); }
// FZ (bit 24), FZ16 (19) and the trap enables (8-12, 15) clear; the rounding
// mode (22-23) is fesetround's.
unsigned DefaultControl(unsigned c) { return c & ~((1u << 24) | (1u << 19) | 0x9f00u); }
#else
constexpr const char* kControlName = nullptr;
unsigned ReadControl() { return 0; }
void WriteControl(unsigned) {}
unsigned DefaultControl(unsigned c) { return c; }
#endif

// Inputs where glibc's two variants give different bits, found by scanning
// each region once offline (twins::ExpFused vs ExpUnfused): they tell
// the variants apart on every code path that can differ.
// clang-format off
constexpr double kDisagreements[] = {
    // main path, softmax range [-30, 0]
    -0x1.cc9c38b80efdcp+4, -0x1.c7dc1114b10bfp+3, -0x1.599807047154dp+4,
    -0x1.1a94aa66d6ce8p+4, -0x1.c9c7d6e55e21fp+4, -0x1.f50bee5828a58p+2,
    -0x1.0de49dfb0068ep+3, -0x1.1ca9dd182e2e8p+2,
    // main path, |x| < 1
    -0x1.97acf901904ap-4, 0x1.c576a226a45a8p-2, 0x1.7f56eaa899f84p-2,
    -0x1.2d6cb2ceabc7cp-3, -0x1.9b9e5eca3dc5ep-1, -0x1.02a5b832a6402p-2,
    0x1.8b7ec9551beb2p-1, -0x1.b14354232b50dp-1,
    // main path, [-512, 0]
    -0x1.dfcbdad84d464p+8, -0x1.db482e785c42ap+8, -0x1.b0348ccf1f456p+7,
    -0x1.21644deaa5d1p+8, -0x1.d26f6f9c09f54p+6, -0x1.e235957ed23a6p+8,
    -0x1.c5006d83dc8f3p+8, -0x1.4481f65b4056p+8,
    // main path, (0, 512)
    0x1.21a2af20c1a2bp+8, 0x1.74bf716844d46p+8, 0x1.875d5c472a0d7p+8,
    0x1.1de75080df3e6p+8, 0x1.c2a315a13e69ap+7, 0x1.04af4d314ad76p+8,
    0x1.0ee19beaa34d2p+8, 0x1.780a8888ed88fp+8,
    // special path, k < 0, normal result
    -0x1.13aba575e0112p+9, -0x1.5b497bec3242p+9, -0x1.0f9e43950ba52p+9,
    -0x1.4b7984f16f3fdp+9, -0x1.471291de63c3ap+9, -0x1.16568639e568fp+9,
    -0x1.34cc8fcdfa6b8p+9, -0x1.3636e7c0eb859p+9,
    // special path, k < 0, subnormal result (1 in 1e8 of that range)
    -0x1.62cc20f925bd9p+9,
    // special path, k > 0
    0x1.00cd060f68614p+9, 0x1.2c1c468c6c6d1p+9, 0x1.5ce29fef4903cp+9,
    0x1.0bc824709da2bp+9, 0x1.5e0178a04f23bp+9, 0x1.15dd38c5c15aep+9,
    0x1.40469e658704ep+9, 0x1.44540132e4d08p+9,
};
// clang-format on

// One input on every code path of glibc's exp.
// clang-format off
constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kPathInputs[] = {
    0.0, -0.0, 0x1p-60, -0x1p-60,  // tiny: 1 + x
    -1.5, 3.75, -0x1p-54, 0x1.8p-54,  // main path
    -600.25, 600.5,  // special path: k < 0, k > 0
    -740.5, -745.1,  // special path, k < 0, subnormal result
    709.8, 1500.0, -1500.0,  // overflow, underflow
    kInf, -kInf, std::numeric_limits<double>::quiet_NaN(),
};
// clang-format on

// Quasi-random probes: a Weyl sequence over [lo, hi).
void AddWeyl(std::vector<double>& probes, size_t count, double lo, double hi) {
  constexpr double kGolden = 0x1.3c6ef372fe94fp-1;  // (sqrt(5) - 1) / 2
  double u = 0.5;
  for (size_t i = 0; i < count; ++i) {
    u += kGolden;
    u -= std::floor(u);
    probes.push_back(lo + (hi - lo) * u);
  }
}

// Random bit patterns (splitmix64): every exponent, NaN payloads included.
void AddRandomBits(std::vector<double>& probes, size_t count) {
  uint64_t state = 0x9e3779b97f4a7c15;
  for (size_t i = 0; i < count; ++i) {
    uint64_t z = (state += 0x9e3779b97f4a7c15);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9;
    z = (z ^ (z >> 27)) * 0x94d049bb133111eb;
    probes.push_back(std::bit_cast<double>(z ^ (z >> 31)));
  }
}

std::vector<double> Probes() {
  std::vector<double> probes(std::begin(kDisagreements),
                             std::end(kDisagreements));
  probes.insert(probes.end(), std::begin(kPathInputs), std::end(kPathInputs));
  AddWeyl(probes, 8192, -746.0, 0.0);
  AddWeyl(probes, 4096, -40.0, 40.0);
  AddRandomBits(probes, 4096);
  return probes;
}

// The replicas assume round-to-nearest and IEEE subnormals.
bool DefaultFloatEnvironment(std::string& why) {
  if (std::fegetround() != FE_TONEAREST) {
    why = "rounding mode is not round-to-nearest";
    return false;
  }
  const unsigned control = ReadControl();
  if (control != DefaultControl(control)) {
    char buf[64];
    std::snprintf(buf, sizeof(buf), "%s is 0x%04x, not 0x%04x", kControlName, control,
                  DefaultControl(control));
    why = buf;
    return false;
  }
  return true;
}

bool SameBits(double a, double b) {
  return std::bit_cast<uint64_t>(a) == std::bit_cast<uint64_t>(b);
}

}  // namespace

ExpChoice ChooseExp() {
  const char* force = std::getenv("EXACTSAMPLE_FORCE_LIBM_EXP");
  if (force != nullptr && force[0] != '\0' && std::strcmp(force, "0") != 0) {
    return {ExpVariant::libm, "forced by EXACTSAMPLE_FORCE_LIBM_EXP"};
  }
  std::string why;
  if (!DefaultFloatEnvironment(why)) return {ExpVariant::libm, why};
  const std::vector<double> probes = Probes();
  bool fused = true;
  bool unfused = true;
  for (double x : probes) {
    const double e = std::exp(x);
    fused = fused && SameBits(e, twins::ExpFused(x));
    unfused = unfused && SameBits(e, twins::ExpUnfused(x));
  }
  const std::string count = std::to_string(probes.size()) + " probes";
  if (fused) {
    return {ExpVariant::fused, "std::exp is glibc's FMA variant on " + count};
  }
  if (unfused) {
    return {ExpVariant::unfused,
            "std::exp is glibc's non-FMA variant on " + count};
  }
  return {ExpVariant::libm,
          "std::exp matches neither glibc variant on " + count};
}

const ExpChoice& ProcessExp() {
  static const ExpChoice choice = [] {
    // Probe in the default environment, whatever the first caller has set.
    const int round = std::fegetround();
    std::fesetround(FE_TONEAREST);
    const unsigned control = ReadControl();
    WriteControl(DefaultControl(control));
    ExpChoice c = ChooseExp();
    WriteControl(control);
    std::fesetround(round);
    return c;
  }();
  return choice;
}

bool DefaultEnvironment() {
  std::string why;
  return DefaultFloatEnvironment(why);
}

ExpVariant CallerExp() {
  return DefaultEnvironment() ? ProcessExp().variant : ExpVariant::libm;
}

namespace {

std::atomic<ExpTable> forced_table{ExpTable::automatic};

bool GathersAreFast() {
#if defined(__x86_64__) || defined(__i386__)
  static const bool intel = [] {
    __builtin_cpu_init();
    return __builtin_cpu_is("intel") != 0;
  }();
  return intel;
#else
  return false;
#endif
}

}  // namespace

bool ExpTableByGather() {
  const ExpTable table = forced_table.load(std::memory_order_relaxed);
  return table == ExpTable::automatic ? GathersAreFast() : table == ExpTable::gather;
}

void ForceExpTable(ExpTable table) { forced_table.store(table, std::memory_order_relaxed); }

const char* ToString(ExpVariant variant) {
  switch (variant) {
    case ExpVariant::fused:
      return "fused";
    case ExpVariant::unfused:
      return "unfused";
    case ExpVariant::libm:
      return "libm";
  }
  return "unknown";
}

}  // namespace exactsample::simd
