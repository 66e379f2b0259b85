/* A C runtime's view of exactsample: sample a stream of tokens, or split it
 * between a prefill worker and a decode worker in separate processes,
 * statelessly (the history passed on every call) or on a sequence.
 *
 *   c_consumer stream SEED N           N tokens in one process
 *   c_consumer prefill SEED            first token, then the draws consumed
 *   c_consumer decode SEED DRAWS ID N  resume after `prefill` printed DRAWS
 *                                      and ID; prints tokens 2..N
 *   c_consumer seq-stream SEED N       N tokens on a sequence (as `stream`)
 *   c_consumer seq-prefill SEED FILE   first token on a sequence, whose
 *                                      snapshot goes to FILE
 *   c_consumer seq-decode FILE ID N    restores FILE after `seq-prefill`
 *                                      printed ID; prints tokens 2..N
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

static const int32_t prompt[] = {17, 4242, 31000};

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

static exactsample_params request_params(void) {
  exactsample_params params;
  exactsample_params_init(&params);
  params.temperature = 0.8;
  params.top_k = 40;
  params.top_p = 0.95;
  params.repetition_penalty = 1.1;
  return params;
}

/* Samples tokens [from, to) of the request, history in `ids`. */
static int run(exactsample_sampler* s, exactsample_rng* rng, int32_t* ids,
               int from, int to) {
  static float logits[VOCAB];
  const exactsample_params params = request_params();
  for (int t = from; t < to; ++t) {
    exactsample_request r;
    exactsample_token token;
    double logprob = 0.0;
    memset(&r, 0, sizeof r);
    r.struct_size = sizeof r;
    r.logits = logits;
    r.logits_type = EXACTSAMPLE_LOGITS_F32;
    r.vocab = VOCAB;
    r.prompt = prompt;
    r.prompt_len = 3;
    r.generated = ids;
    r.generated_len = (size_t)t;
    r.params = &params;
    r.rng = rng; /* advanced when a token is sampled */
    r.logprob = &logprob;
    model_logits(t == 0 ? prompt[2] : ids[t - 1], logits);
    exactsample_status st = exactsample_sample_request(s, NULL, &r, &token);
    if (st != EXACTSAMPLE_OK) return fail(s, st);
    ids[t] = token.id;
    printf("%d %a\n", ids[t], logprob);
  }
  return 0;
}

/* The request on a sequence, which keeps the history itself: samples
 * tokens [from, to), `last` being the token before. */
static int run_sequence(exactsample_sampler* s, exactsample_sequence* q,
                        int32_t last, int from, int to) {
  static float logits[VOCAB];
  for (int t = from; t < to; ++t) {
    exactsample_request r;
    exactsample_token token;
    double logprob = 0.0;
    memset(&r, 0, sizeof r);
    r.struct_size = sizeof r;
    r.logits = logits;
    r.logits_type = EXACTSAMPLE_LOGITS_F32;
    r.vocab = VOCAB;
    r.accept = 1; /* the token joins the sequence's history */
    r.logprob = &logprob;
    model_logits(last, logits);
    exactsample_status st = exactsample_sample_request(s, q, &r, &token);
    if (st != EXACTSAMPLE_OK) return fail(s, st);
    printf("%d %a\n", token.id, logprob);
    last = token.id;
  }
  return 0;
}

/* A sequence with the request's parameters, generator and prompt. */
static exactsample_status new_sequence(exactsample_sampler* s, uint64_t seed,
                                       exactsample_sequence** out) {
  const exactsample_params params = request_params();
  exactsample_sequence_config config;
  memset(&config, 0, sizeof config);
  config.struct_size = sizeof config;
  config.vocab = VOCAB;
  config.params = &params;
  config.seed = seed;
  exactsample_status st = exactsample_sequence_create(s, &config, out);
  if (st != EXACTSAMPLE_OK) return st;
  return exactsample_sequence_accept_prompt(s, *out, prompt, 3);
}

/* The prefill worker: the first token, then the snapshot into `path`. */
static int sequence_prefill(exactsample_sampler* s, uint64_t seed, const char* path) {
  exactsample_sequence* q = NULL;
  exactsample_status st = new_sequence(s, seed, &q);
  if (st != EXACTSAMPLE_OK) return fail(s, st);
  int rc = run_sequence(s, q, prompt[2], 0, 1);
  size_t size = 0;
  unsigned char* bytes = NULL;
  if (rc == 0) {
    st = exactsample_sequence_snapshot(s, q, NULL, 0, &size); /* the size */
    bytes = st == EXACTSAMPLE_OK ? malloc(size) : NULL;
    if (bytes != NULL) st = exactsample_sequence_snapshot(s, q, bytes, size, &size);
    if (st != EXACTSAMPLE_OK) rc = fail(s, st);
  }
  FILE* f = rc == 0 ? fopen(path, "wb") : NULL;
  if (rc == 0 && (bytes == NULL || f == NULL || fwrite(bytes, 1, size, f) != size)) {
    fprintf(stderr, "c_consumer: cannot write %s\n", path);
    rc = 1;
  }
  if (f != NULL && fclose(f) != 0) rc = 1;
  free(bytes);
  exactsample_sequence_destroy(q);
  return rc;
}

/* The decode worker: the sequence from the snapshot in `path`. */
static int sequence_decode(exactsample_sampler* s, const char* path, int32_t first, int n) {
  static unsigned char bytes[1 << 16];
  FILE* f = fopen(path, "rb");
  if (f == NULL) {
    fprintf(stderr, "c_consumer: cannot read %s\n", path);
    return 1;
  }
  const size_t size = fread(bytes, 1, sizeof bytes, f);
  fclose(f);
  exactsample_sequence* q = NULL;
  exactsample_status st = exactsample_sequence_restore(s, bytes, size, &q);
  if (st != EXACTSAMPLE_OK) return fail(s, st);
  const int rc = run_sequence(s, q, first, 1, n);
  exactsample_sequence_destroy(q);
  return rc;
}

int main(int argc, char** argv) {
  if (argc == 2 && strcmp(argv[1], "version") == 0) {
    printf("header %s, library %s\n", EXACTSAMPLE_VERSION_STRING,
           exactsample_version());
    return strcmp(EXACTSAMPLE_VERSION_STRING, exactsample_version()) == 0 ? 0 : 1;
  }
  if (argc < 3) {
    fprintf(stderr, "usage: c_consumer [seq-]stream|prefill|decode ... | version\n");
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
  } else if (strcmp(argv[1], "seq-stream") == 0 && argc == 4) {
    exactsample_sequence* q = NULL;
    st = new_sequence(s, seed, &q);
    rc = st == EXACTSAMPLE_OK ? run_sequence(s, q, prompt[2], 0, atoi(argv[3])) : fail(s, st);
    exactsample_sequence_destroy(q);
  } else if (strcmp(argv[1], "seq-prefill") == 0 && argc == 4) {
    rc = sequence_prefill(s, seed, argv[3]);
  } else if (strcmp(argv[1], "seq-decode") == 0 && argc == 5) {
    rc = sequence_decode(s, argv[2], (int32_t)atoi(argv[3]), atoi(argv[4]));
  } else {
    fprintf(stderr, "c_consumer: bad arguments\n");
  }
  exactsample_sampler_destroy(s);
  return rc;
}
