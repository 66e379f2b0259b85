/* A C runtime's view of exactsample: sample a stream of tokens, or split it
 * between a prefill worker and a decode worker in separate processes.
 *
 *   c_consumer stream SEED N           N tokens in one process
 *   c_consumer prefill SEED            first token, then the draws consumed
 *   c_consumer decode SEED DRAWS ID N  resume after `prefill` printed DRAWS
 *                                      and ID; prints tokens 2..N
 *   c_consumer version                 the header's and the library's version
 *
 * Every token line is "id logprob" with the logprob in hex (%a), so two runs
 * can be compared bit for bit. */
#include <exactsample.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define VOCAB 32000

/* Stand-in for a model: logits that depend on the last token. */
static void model_logits(int32_t last, float* out) {
  for (int i = 0; i < VOCAB; ++i) {
    out[i] = (float)(sin(0.001 * i * (last + 3)) * 4.0);
  }
}

static int fail(exactsample_sampler* s, exactsample_status st) {
  fprintf(stderr, "exactsample: %s: %s\n", exactsample_status_name(st),
          exactsample_sampler_last_error(s));
  return 1;
}

/* Samples tokens [from, to) of the request, history in `ids`. */
static int run(exactsample_sampler* s, exactsample_rng* rng, int32_t* ids,
               int from, int to) {
  static float logits[VOCAB];
  const int32_t prompt[] = {17, 4242, 31000};
  exactsample_params params;
  exactsample_params_init(&params);
  params.temperature = 0.8;
  params.top_k = 40;
  params.top_p = 0.95;
  params.repetition_penalty = 1.1;
  for (int t = from; t < to; ++t) {
    double logprob = 0.0;
    model_logits(t == 0 ? prompt[2] : ids[t - 1], logits);
    exactsample_status st = exactsample_sample(s, logits, VOCAB, prompt, 3, ids,
                                               (size_t)t, &params, rng, &ids[t],
                                               &logprob);
    if (st != EXACTSAMPLE_OK) return fail(s, st);
    printf("%d %a\n", ids[t], logprob);
  }
  return 0;
}

int main(int argc, char** argv) {
  if (argc == 2 && strcmp(argv[1], "version") == 0) {
    printf("header %s, library %s\n", EXACTSAMPLE_VERSION_STRING,
           exactsample_version());
    return strcmp(EXACTSAMPLE_VERSION_STRING, exactsample_version()) == 0 ? 0 : 1;
  }
  if (argc < 3) {
    fprintf(stderr, "usage: c_consumer stream|prefill|decode SEED ... | version\n");
    return 2;
  }
  const uint64_t seed = strtoull(argv[2], NULL, 10);
  int32_t ids[256];
  exactsample_sampler* s = NULL;
  exactsample_rng rng;
  exactsample_status st = exactsample_sampler_create(EXACTSAMPLE_ENGINE_FAST, &s);
  if (st != EXACTSAMPLE_OK) return fail(s, st);
  exactsample_rng_stream(seed, EXACTSAMPLE_PURPOSE_SAMPLE, &rng);
  int rc = 2;
  if (strcmp(argv[1], "stream") == 0 && argc == 4) {
    rc = run(s, &rng, ids, 0, atoi(argv[3]));
  } else if (strcmp(argv[1], "prefill") == 0 && argc == 3) {
    rc = run(s, &rng, ids, 0, 1);
    /* The spec's rng_draws_consumed counts uniform draws: two u32 each. */
    if (rc == 0) printf("draws %llu\n", (unsigned long long)(rng.draws_u32 / 2));
  } else if (strcmp(argv[1], "decode") == 0 && argc == 6) {
    exactsample_rng_advance(&rng, 2 * strtoull(argv[3], NULL, 10));
    ids[0] = (int32_t)atoi(argv[4]);
    rc = run(s, &rng, ids, 1, atoi(argv[5]));
  } else {
    fprintf(stderr, "c_consumer: bad arguments\n");
  }
  exactsample_sampler_destroy(s);
  return rc;
}
