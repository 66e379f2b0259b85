/* The generation loop on a sequence (docs/c-sequence.md): the prompt is
 * accepted once, each call samples the next token and appends it, a forced
 * token joins through exactsample_sequence_accept, one step also asks for
 * the distribution it drew from, and a snapshot taken mid-request is
 * restored as a second sequence that continues with the same tokens. */
#include <exactsample.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define VOCAB 1000
#define STEPS 12

/* Stand-in for a model: logits that depend on the last token. */
static void model_logits(int32_t last, float* out) {
  for (int i = 0; i < VOCAB; ++i) out[i] = (float)(sin(0.01 * i * (last + 1)) * 3.0);
}

static int fail(exactsample_sampler* s, const char* what, exactsample_status st) {
  fprintf(stderr, "%s: %s: %s\n", what, exactsample_status_name(st),
          exactsample_sampler_last_error(s));
  return 1;
}

/* A request for an f32 row of logits; every other field zero (none). */
static exactsample_request row_request(const float* logits) {
  exactsample_request r;
  memset(&r, 0, sizeof r);
  r.struct_size = sizeof r;
  r.logits = logits;
  r.logits_type = EXACTSAMPLE_LOGITS_F32;
  r.vocab = VOCAB;
  return r;
}

/* One step: the next token of sequence q after token `last`. */
static exactsample_status step(exactsample_sampler* s, exactsample_sequence* q,
                               int32_t last, exactsample_token* token) {
  static float logits[VOCAB];
  exactsample_request r = row_request(logits);
  r.accept = 1; /* append the sampled token */
  model_logits(last, logits);
  return exactsample_sample_request(s, q, &r, token);
}

int main(void) {
  exactsample_sampler* s = NULL;
  exactsample_status st = exactsample_sampler_create(EXACTSAMPLE_ENGINE_FAST, &s);
  if (st != EXACTSAMPLE_OK) return 1;

  exactsample_params params;
  exactsample_params_init(&params);
  params.temperature = 0.8;
  params.top_k = 40;
  params.repetition_penalty = 1.2;
  params.penalty_last_n = 64; /* penalise the last 64 tokens only */
  exactsample_sequence_config config;
  memset(&config, 0, sizeof config);
  config.struct_size = sizeof config;
  config.vocab = VOCAB;
  config.params = &params;
  config.seed = 42; /* the generator: stream(42, EXACTSAMPLE_PURPOSE_SAMPLE) */
  exactsample_sequence* q = NULL;
  st = exactsample_sequence_create(s, &config, &q);
  if (st != EXACTSAMPLE_OK) return fail(s, "create", st);
  const int32_t prompt[] = {1, 500, 999};
  st = exactsample_sequence_accept_prompt(s, q, prompt, 3);
  if (st != EXACTSAMPLE_OK) return fail(s, "accept_prompt", st);

  int32_t last = prompt[2];
  int32_t tokens[STEPS];
  exactsample_sequence* restored = NULL;
  for (int t = 0; t < STEPS; ++t) {
    exactsample_token token;
    if (t == 3) { /* a token chosen elsewhere (a grammar's, a draft's) */
      token.id = 7;
      st = exactsample_sequence_accept(s, q, token.id);
    } else {
      st = step(s, q, last, &token);
    }
    if (st != EXACTSAMPLE_OK) return fail(s, "step", st);
    tokens[t] = last = token.id;
    printf("%d%s", token.id, t + 1 < STEPS ? " " : "\n");
    if (t == 5) { /* hand the request over: snapshot, restore */
      size_t size = 0;
      st = exactsample_sequence_snapshot(s, q, NULL, 0, &size);
      unsigned char* bytes = st == EXACTSAMPLE_OK ? malloc(size) : NULL;
      if (bytes == NULL) return fail(s, "snapshot size", st);
      st = exactsample_sequence_snapshot(s, q, bytes, size, &size);
      if (st == EXACTSAMPLE_OK) st = exactsample_sequence_restore(s, bytes, size, &restored);
      free(bytes);
      if (st != EXACTSAMPLE_OK) return fail(s, "snapshot", st);
    }
  }

  /* The restored sequence continues exactly where the snapshot was taken. */
  last = tokens[5];
  for (int t = 6; t < STEPS; ++t) {
    exactsample_token token;
    st = step(s, restored, last, &token);
    if (st != EXACTSAMPLE_OK) return fail(s, "restored step", st);
    if (token.id != tokens[t]) {
      fprintf(stderr, "the restored sequence gave %d at step %d, not %d\n", token.id, t, tokens[t]);
      return 1;
    }
    last = token.id;
  }

  /* The distribution of the next token: K's ids and probabilities. */
  static float logits[VOCAB];
  int32_t kept_ids[8];
  double kept_probs[8];
  size_t kept = 0;
  exactsample_request r = row_request(logits);
  r.kept_ids = kept_ids;
  r.kept_probs = kept_probs;
  r.kept_capacity = 8;
  r.kept_count = &kept;
  model_logits(last, logits);
  exactsample_token token;
  st = exactsample_sample_request(s, q, &r, &token); /* accept = 0: not appended */
  if (st != EXACTSAMPLE_OK) return fail(s, "distribution", st);
  printf("next %d from %zu kept ids, the first with q = %.6f\n", token.id, kept, kept_probs[0]);

  exactsample_sequence_destroy(restored);
  exactsample_sequence_destroy(q);
  exactsample_sampler_destroy(s);
  return 0;
}
