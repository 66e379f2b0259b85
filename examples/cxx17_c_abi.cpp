// A C++17 runtime (llama.cpp, say, which pins C++17) using exactsample
// through the C ABI only: no C++20 header is included. It samples a few
// tokens with and without the logprob and across row threads, in single and
// batch calls, and checks that ids and generator positions agree.
//
//   c++ -std=c++17 examples/cxx17_c_abi.cpp $(pkg-config --cflags --libs exactsample)
#include <exactsample.h>

#include <cmath>
#include <cstdio>
#include <cstring>
#include <vector>

#if __cplusplus > 201703L
#error "this example checks that the C ABI works from C++17: build it with -std=c++17"
#endif

namespace {

constexpr size_t kVocab = 40000;

// A stateless request on `vocab` f32 logits (no history).
exactsample_request Request(const float* logits, const exactsample_params* params,
                            exactsample_rng* rng, double* logprob) {
  exactsample_request r;
  std::memset(&r, 0, sizeof r);
  r.struct_size = sizeof r;
  r.logits = logits;
  r.logits_type = EXACTSAMPLE_LOGITS_F32;
  r.vocab = kVocab;
  r.params = params;
  r.rng = rng;
  r.logprob = logprob;
  return r;
}

int Check(exactsample_sampler* s, exactsample_status st, const char* what) {
  if (st == EXACTSAMPLE_OK) return 0;
  std::fprintf(stderr, "%s: %s: %s\n", what, exactsample_status_name(st),
               exactsample_sampler_last_error(s));
  return 1;
}

}  // namespace

int main() {
  if (std::strcmp(exactsample_version(), EXACTSAMPLE_VERSION_STRING) != 0) {
    std::fprintf(stderr, "header %s, library %s\n", EXACTSAMPLE_VERSION_STRING,
                 exactsample_version());
    return 1;
  }
  std::vector<float> logits(2 * kVocab);
  for (size_t i = 0; i < logits.size(); ++i) {
    logits[i] = static_cast<float>(4.0 * std::sin(0.0013 * static_cast<double>(i)));
  }
  exactsample_params params;
  exactsample_params_init(&params);
  params.temperature = 0.8;
  params.top_k = 40;

  exactsample_sampler* s = nullptr;
  if (Check(s, exactsample_sampler_create(EXACTSAMPLE_ENGINE_FAST, &s), "create")) return 1;
  int rc = 0;
  // The same request with the logprob, without it, and on 1 to 4 threads.
  int32_t first_id = -1;
  uint64_t first_draws = 0;
  for (int threads = 1; threads <= 4 && rc == 0; ++threads) {
    for (int with_logprob = 1; with_logprob >= 0 && rc == 0; --with_logprob) {
      rc |= Check(s, exactsample_sampler_set_threads(s, threads), "set_threads");
      exactsample_rng rng;
      exactsample_rng_stream(2024, EXACTSAMPLE_PURPOSE_SAMPLE, &rng);
      double logprob = NAN;
      const exactsample_request r =
          Request(logits.data(), &params, &rng, with_logprob ? &logprob : nullptr);
      exactsample_token token;
      rc |= Check(s, exactsample_sample_request(s, nullptr, &r, &token), "sample_request");
      if (rc != 0) break;
      const int32_t id = token.id;
      if (first_id < 0) {
        first_id = id;
        first_draws = rng.draws_u32;
        std::printf("token %d logprob %a draws %llu\n", id, logprob,
                    static_cast<unsigned long long>(rng.draws_u32));
      } else if (id != first_id || rng.draws_u32 != first_draws) {
        std::fprintf(stderr, "threads %d logprob %d: id %d, want %d\n", threads,
                     with_logprob, id, first_id);
        rc = 1;
      }
    }
  }
  // A batch of two rows of one matrix, without logprobs.
  exactsample_rng rngs[2];
  exactsample_request rows[2];
  for (int r = 0; r < 2 && rc == 0; ++r) {
    exactsample_rng_stream(2024, EXACTSAMPLE_PURPOSE_SAMPLE, &rngs[r]);
    rows[r] = Request(logits.data(), &params, &rngs[r], nullptr);
    rows[r].row_stride = kVocab;  // row r starts r * kVocab floats after logits
  }
  exactsample_token tokens[2];
  if (rc == 0) {
    rc |= Check(s, exactsample_sample_requests(s, nullptr, rows, 2, tokens, 2), "sample_requests");
  }
  if (rc == 0) {
    std::printf("batch ids %d %d\n", tokens[0].id, tokens[1].id);
    if (tokens[0].id != first_id) rc = 1;
  }
  exactsample_sampler_destroy(s);
  std::printf("cxx17_c_abi: %s (exactsample %s)\n", rc == 0 ? "ok" : "FAILED",
              exactsample_version());
  return rc;
}
