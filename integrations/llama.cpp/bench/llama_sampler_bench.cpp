// Benchmark (not a test): the time of one token inside llama.cpp's sampling
// call, one thread, the same logits every call, exactsample's sampler
// against llama.cpp's own chain with the same settings: penalties over the
// last 64 tokens (repeat 1.1), top-k 40, top-p 0.95, min-p 0.05,
// temperature 0.8, dist; the same with top-k off (llama.cpp's top_k = 0
// case); exactsample in the spec's order (the ten lines of
// docs/llama-cpp.md, temperature first) and in llama.cpp's (the `llama`
// preset, the same distribution as llama.cpp's chain); and in llama.cpp's
// order top-k 40 with one more sampler on in both: DRY (0.8, 1.75, 2, 64,
// no breakers), top-n-sigma 1, typical 0.95, XTC (0.5, 0.1). exactsample with the exact logprob on every token (the default),
// without it (exactsample_llama_set_logprob OFF), and on request, never
// asked (ON_REQUEST). Medians over rounds that interleave the samplers.
//
//   llama_sampler_bench [--rounds N] [--model-seed S] [--rows ROWS.npy]
//
// Without --rows: llama_sampler_sample on the random-weight model's logits
// at V = 128256, its weights from seed S (default 1: other seeds give other
// rows of the same kind). With --rows (tools/trigram_rows output, f32 (R, V)): each
// row as llama_sampler_sample hands it to the samplers (a fresh array of
// every id in id order, then apply and accept), timed the same way.
#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "exactsample_llama.h"
#include "tiny_model.hpp"

namespace {

struct Sampler {
  std::string name;
  llama_sampler* smpl;  // a chain, or exactsample's sampler alone when in_place
  bool in_place;        // exactsample_llama_sample instead of llama_sampler_sample
  std::vector<double> micros;
};

llama_sampler* Chain(std::initializer_list<llama_sampler*> samplers) {
  llama_sampler_chain_params p = llama_sampler_chain_default_params();
  p.no_perf = true;
  llama_sampler* chain = llama_sampler_chain_init(p);
  for (llama_sampler* s : samplers) llama_sampler_chain_add(chain, s);
  return chain;
}

// A sampler beyond the ten lines' settings, on in both chains at its place
// in llama.cpp's common order.
enum class Extra { none, dry, top_n_sigma, typical, xtc };
const char* Name(Extra e) {
  switch (e) {
    case Extra::none: return "";
    case Extra::dry: return " +dry";
    case Extra::top_n_sigma: return " +top-n-sigma";
    case Extra::typical: return " +typical";
    case Extra::xtc: return " +xtc";
  }
  return "";
}

// The settings in the spec's order (the ten lines of docs/llama-cpp.md) or
// in llama.cpp's common order (the `llama` preset), as llama.cpp's chain
// runs them.
exactsample_params Params(int32_t preset, int64_t top_k, Extra extra) {
  exactsample_params p;
  exactsample_params_init(&p);
  p.chain_preset = preset;
  p.temperature = 0.8;
  p.repetition_penalty = 1.1;
  p.penalty_last_n = 64;
  p.top_k = top_k;
  p.top_p = 0.95;
  p.min_p = 0.05;
  if (extra == Extra::dry) p.dry_multiplier = 0.8;
  if (extra == Extra::top_n_sigma) p.top_n_sigma = 1.0;
  if (extra == Extra::typical) p.typical_p = 0.95;
  if (extra == Extra::xtc) {
    p.xtc_probability = 0.5;
    p.xtc_threshold = 0.1;
  }
  return p;
}

llama_sampler* LlamaChain(const llama_vocab* vocab, int32_t top_k, Extra extra) {
  llama_sampler* chain =
      Chain({llama_sampler_init_penalties(llama_vocab_n_tokens(vocab), 64, 1.1f, 0.0f, 0.0f)});
  if (extra == Extra::dry) {
    llama_sampler_chain_add(chain, llama_sampler_init_dry(vocab, 0.8f, 1.75f, 2, 64, nullptr, 0));
  }
  if (extra == Extra::top_n_sigma) llama_sampler_chain_add(chain, llama_sampler_init_top_n_sigma(1.0f));
  if (top_k > 0) llama_sampler_chain_add(chain, llama_sampler_init_top_k(top_k));
  if (extra == Extra::typical) llama_sampler_chain_add(chain, llama_sampler_init_typical(0.95f, 1));
  llama_sampler_chain_add(chain, llama_sampler_init_top_p(0.95f, 1));
  llama_sampler_chain_add(chain, llama_sampler_init_min_p(0.05f, 1));
  if (extra == Extra::xtc) llama_sampler_chain_add(chain, llama_sampler_init_xtc(0.5f, 0.1f, 1, 1));
  llama_sampler_chain_add(chain, llama_sampler_init_temp(0.8f));
  llama_sampler_chain_add(chain, llama_sampler_init_dist(1));
  return chain;
}

// What llama_sampler_sample costs with a sampler that does nothing but pick
// the first candidate: building the candidate array, and accept.
void PickFirst(llama_sampler*, llama_token_data_array* cur) { cur->selected = 0; }
llama_sampler_i MakePickFirst() {
  llama_sampler_i i{};
  i.apply = PickFirst;
  return i;
}
llama_sampler_i g_pick_first = MakePickFirst();

// exactsample's sampler with the logprob computed as `mode` says.
llama_sampler* Exactsample(const llama_vocab* vocab, const exactsample_params& p, int mode) {
  llama_sampler* smpl = exactsample_llama_init(vocab, &p, nullptr, 1);
  exactsample_llama_set_logprob(smpl, mode);
  return smpl;
}

// llama.cpp's chain, then exactsample with the same settings, for top-k 40
// and top-k 0, each with the logprob on every token, off, and on request
// (never asked: the cost of keeping what it needs); each exactsample
// sampler in a chain of one, so that llama_sampler_sample reuses the
// chain's candidate buffer as it does for llama.cpp's; with `in_place`,
// exactsample_llama_sample too.
std::vector<Sampler> Samplers(const llama_vocab* vocab, bool in_place) {
  std::vector<Sampler> s;
  const std::pair<const char*, int> modes[] = {
      {"", EXACTSAMPLE_LLAMA_LOGPROB_EVERY_TOKEN},
      {", logprob off,", EXACTSAMPLE_LLAMA_LOGPROB_OFF},
      {", logprob on request,", EXACTSAMPLE_LLAMA_LOGPROB_ON_REQUEST}};
  // top-k 40 and 0 with the ten lines' settings, in the spec's order and in
  // llama.cpp's, then top-k 40 in llama.cpp's order with each extra sampler.
  struct Settings {
    int32_t preset;
    int32_t top_k;
    Extra extra;
  };
  constexpr int32_t kSpec = EXACTSAMPLE_CHAIN_SPEC;
  constexpr int32_t kLlama = EXACTSAMPLE_CHAIN_LLAMA;
  const Settings chains[] = {{kSpec, 40, Extra::none},        {kSpec, 0, Extra::none},
                             {kLlama, 40, Extra::none},       {kLlama, 0, Extra::none},
                             {kLlama, 40, Extra::dry},        {kLlama, 40, Extra::top_n_sigma},
                             {kLlama, 40, Extra::typical},    {kLlama, 40, Extra::xtc}};
  for (const auto& [preset, top_k, extra] : chains) {
    const exactsample_params p = Params(preset, top_k, extra);
    const std::string k = std::string(preset == kLlama ? " llama order," : "") + " top-k " +
                          std::to_string(top_k) + Name(extra);
    s.push_back({"llama.cpp" + k, LlamaChain(vocab, top_k, extra), false, {}});
    for (bool place : {false, true}) {
      if (place && !in_place) continue;
      for (const auto& [what, mode] : modes) {
        llama_sampler* es = Exactsample(vocab, p, mode);
        s.push_back({std::string(place ? "exactsample in place" : "exactsample") + what + k,
                     place ? es : Chain({es}), place, {}});
      }
    }
  }
  s.push_back({"the array alone", Chain({llama_sampler_init(&g_pick_first, nullptr)}), false, {}});
  return s;
}

double Median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0.0 : v[v.size() / 2];
}

// Medians, each exactsample line with llama.cpp's (the line above it of the
// same top-k) over its own: the whole call, and the samplers' part (the call
// less the array alone).
void Report(const char* title, const std::vector<Sampler>& s) {
  std::printf("%s\n", title);
  const double array_alone = Median(s.back().micros);
  double llama = 0.0;
  for (const Sampler& x : s) {
    const double m = Median(x.micros);
    std::printf("  %-76s median %9.1f us over %zu calls", x.name.c_str(), m, x.micros.size());
    if (x.name.rfind("llama.cpp", 0) == 0) llama = m;
    if (x.name.rfind("exactsample", 0) == 0) {
      std::printf("   llama.cpp / this: %.1fx the call, %.1fx less the array", llama / m,
                  (llama - array_alone) / (m - (x.in_place ? 0.0 : array_alone)));
    }
    std::printf("\n");
  }
}

template <typename F>
double Time(F&& f) {
  const auto t0 = std::chrono::steady_clock::now();
  f();
  return std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0).count();
}

// An f32 (R, V) .npy file (numpy's format 1.0, C order), or exit 2.
std::vector<float> ReadRows(const std::string& path, size_t* rows, size_t* vocab) {
  std::ifstream in(path, std::ios::binary);
  std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const size_t header = bytes.size() >= 10 ? 10 + (static_cast<unsigned char>(bytes[8]) |
                                                    static_cast<unsigned char>(bytes[9]) << 8)
                                           : 0;
  const std::string dict = bytes.substr(0, header);
  const size_t shape = dict.find("'shape': (");
  if (header == 0 || bytes.compare(0, 6, "\x93NUMPY") != 0 || bytes[6] != 1 ||
      dict.find("'descr': '<f4'") == std::string::npos ||
      dict.find("'fortran_order': False") == std::string::npos || shape == std::string::npos ||
      std::sscanf(dict.c_str() + shape, "'shape': (%zu, %zu)", rows, vocab) != 2 ||
      bytes.size() != header + *rows * *vocab * sizeof(float)) {
    std::fprintf(stderr, "llama_sampler_bench: %s is not an f32 (R, V) .npy file\n", path.c_str());
    std::exit(2);
  }
  std::vector<float> values(*rows * *vocab);
  std::memcpy(values.data(), bytes.data() + header, values.size() * sizeof(float));
  return values;
}

void BenchModel(int rounds, uint32_t model_seed) {
  llama_model* model = tiny_model::Make(128256, model_seed);
  llama_context* ctx = tiny_model::MakeContext(model, 256);
  if (!tiny_model::Decode(ctx, {1, 300, 305, 310, 320, 300}, 0)) std::exit(1);
  std::vector<Sampler> s = Samplers(llama_model_get_vocab(model), true);
  for (int r = 0; r < rounds; ++r) {
    for (Sampler& x : s) {
      x.micros.push_back(Time([&] {
        if (x.in_place) {
          exactsample_llama_sample(x.smpl, ctx, -1);
        } else {
          llama_sampler_sample(x.smpl, ctx, -1);
        }
      }));
    }
  }
  Report("llama_sampler_sample, the random-weight model's logits, V = 128256", s);
  for (Sampler& x : s) llama_sampler_free(x.smpl);
  llama_free(ctx);
  llama_model_free(model);
}

void BenchRows(const std::string& path, int rounds) {
  size_t rows = 0, vocab = 0;
  const std::vector<float> values = ReadRows(path, &rows, &vocab);
  // The samplers only read the vocabulary's size.
  llama_model* model = tiny_model::Make(static_cast<uint32_t>(vocab), 1);
  std::vector<Sampler> s = Samplers(llama_model_get_vocab(model), false);
  std::vector<llama_token_data> cur(vocab);
  for (int r = 0; r < rounds; ++r) {
    for (size_t row = 0; row < rows; ++row) {
      const float* logits = values.data() + row * vocab;
      for (Sampler& x : s) {
        x.micros.push_back(Time([&] {
          for (size_t i = 0; i < vocab; ++i) cur[i] = {static_cast<llama_token>(i), logits[i], 0.0f};
          llama_token_data_array a = {cur.data(), cur.size(), -1, false};
          llama_sampler_apply(x.smpl, &a);
          llama_sampler_accept(x.smpl, a.data[a.selected].id);
        }));
      }
    }
  }
  const std::string title = "a fresh candidate array, apply and accept, " + std::to_string(rows) +
                            " trigram rows, V = " + std::to_string(vocab);
  Report(title.c_str(), s);
  for (Sampler& x : s) llama_sampler_free(x.smpl);
  llama_model_free(model);
}

}  // namespace

// A model seed: a decimal number below 2^32, nothing else.
bool ParseSeed(const char* text, uint32_t* seed) {
  char* end = nullptr;
  errno = 0;
  const unsigned long long v = std::strtoull(text, &end, 10);
  if (end == text || *end != '\0' || errno != 0 || text[0] == '-' || v > UINT32_MAX) return false;
  *seed = static_cast<uint32_t>(v);
  return true;
}

int main(int argc, char** argv) {
  int rounds = 200;
  uint32_t model_seed = 1;
  std::string rows;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--rounds" && i + 1 < argc) {
      rounds = std::atoi(argv[++i]);
    } else if (a == "--rows" && i + 1 < argc) {
      rows = argv[++i];
    } else if (a == "--model-seed" && i + 1 < argc && ParseSeed(argv[i + 1], &model_seed)) {
      ++i;
    } else {
      std::fprintf(stderr,
                   "usage: llama_sampler_bench [--rounds N] [--model-seed S] [--rows ROWS.npy]\n");
      return 2;
    }
  }
  if (rounds < 1) {
    std::fprintf(stderr, "llama_sampler_bench: --rounds must be at least 1\n");
    return 2;
  }
  llama_log_set([](ggml_log_level level, const char* text, void*) {
    if (level == GGML_LOG_LEVEL_ERROR) std::fputs(text, stderr);
  }, nullptr);
  tiny_model::LoadBackends(EXACTSAMPLE_LLAMA_BACKENDS);
  if (rows.empty()) {
    BenchModel(rounds, model_seed);
  } else {
    BenchRows(rows, rounds);
  }
  return 0;
}
