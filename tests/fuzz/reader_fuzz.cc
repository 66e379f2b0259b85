// libFuzzer target: the program's readers on any bytes, as a .npy file and
// as a replay file. They must return a value or an error, never crash,
// overflow the stack or hang; what they accept is sampled (a few tokens of
// a small case) and must give a token or an error.
#include <cstdint>
#include <string_view>
#include <vector>

#include "exactsample/exactsample.hpp"
#include "tools/cli/replay_format.hpp"
#include "tools/lib/npy.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace exactsample;
  const std::string_view bytes(reinterpret_cast<const char*>(data), size);
  static Workspace ws;

  npy::Matrix m;
  if (!npy::Parse(bytes, "input", m)) {
    for (size_t r = 0; r < m.rows && r < 4; ++r) {
      Pcg32 rng = stream(r, Purpose::sample);
      (void)sample(Request{m.row(r), {}, {}, {}}, rng, ws);
    }
  }

  const auto cases = cli::ParseCaseFile(bytes, "input");
  if (!cases) return 0;
  for (const auto& j : *cases) {
    const auto c = cli::ParseCase(j);
    if (!c || c->logits.size() > 4096) continue;
    Pcg32 rng = stream(c->seed, Purpose::sample);
    std::vector<int32_t> generated;
    for (int64_t step = 0; step < c->steps && step < 3; ++step) {
      const auto t = sample(Request{c->logits, c->prompt, generated, c->params}, rng, ws);
      if (!t) break;
      generated.push_back(t->id);
    }
  }
  return 0;
}
