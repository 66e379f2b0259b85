/* exactsample C ABI (C99): next-token sampling, bit-exact with
 * the spec (docs/spec.md, steps 1 to 11). No C++ types and no exceptions cross this header.
 *
 * Threading: an exactsample_sampler holds scratch memory and the last error
 * message; use one per thread (or guard it). Different samplers may be used
 * from different threads at once. exactsample_sample_requests spreads rows over
 * helper threads itself (the library pool, or the sampler's executor). exactsample_testing_force_target (for audits,
 * tests and benchmarks) is process-wide: call it before sampling starts,
 * not while other threads sample. Generators
 * (exactsample_rng) are plain values owned by the caller; a row's generator
 * must not be shared with another row of the same batch.
 */
#ifndef EXACTSAMPLE_H_
#define EXACTSAMPLE_H_

#include <stddef.h>
#include <stdint.h>

#include "exactsample/export.h"
/* EXACTSAMPLE_VERSION_MAJOR, _MINOR, _PATCH, _STRING: the version this
 * header belongs to; exactsample_version() is the loaded library's. */
#include "exactsample/version.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum exactsample_status {
  EXACTSAMPLE_OK = 0,
  EXACTSAMPLE_INVALID_ARGUMENT = 1,  /* null pointer, bad size or struct_size */
  EXACTSAMPLE_INVALID_PARAMETER = 2, /* a sampling parameter out of range */
  EXACTSAMPLE_INVALID_LOGITS = 3,    /* empty, NaN, +inf or every logit -inf */
  EXACTSAMPLE_INVALID_IDS = 4,       /* a prompt or generated id outside [0, V) */
  EXACTSAMPLE_DEGENERATE = 5,        /* penalties/temperature leave no logit */
  EXACTSAMPLE_OUT_OF_MEMORY = 6,
  EXACTSAMPLE_INTERNAL = 7,
  /* Keeps the enum 32-bit wide, so any int a caller passes is in range. */
  EXACTSAMPLE_STATUS_MAX_ENUM = 0x7fffffff
} exactsample_status;

typedef enum exactsample_engine {
  EXACTSAMPLE_ENGINE_REFERENCE = 0,
  EXACTSAMPLE_ENGINE_FAST = 1,
  EXACTSAMPLE_ENGINE_MAX_ENUM = 0x7fffffff
} exactsample_engine;

/* The purposes of stream(seed, purpose) in docs/spec.md, "The generator: PCG32"; the sampler's
 * request generator is stream(seed, EXACTSAMPLE_PURPOSE_SAMPLE). */
typedef enum exactsample_purpose {
  EXACTSAMPLE_PURPOSE_INIT = 1,
  EXACTSAMPLE_PURPOSE_DROPOUT = 2,
  EXACTSAMPLE_PURPOSE_SHUFFLE = 3,
  EXACTSAMPLE_PURPOSE_SAMPLE = 4,
  EXACTSAMPLE_PURPOSE_MUTATION = 5,
  EXACTSAMPLE_PURPOSE_MAX_ENUM = 0x7fffffff
} exactsample_purpose;

/* The chain's steps (docs/llama-samplers.md, "The chain") and presets:
 * EXACTSAMPLE_CHAIN_SPEC the spec's order, _LLAMA llama.cpp's common order,
 * _LIST the steps a request lists. An int that is none of these values is
 * EXACTSAMPLE_INVALID_ARGUMENT, as for logits_type. */
typedef enum exactsample_chain_step {
  EXACTSAMPLE_STEP_PENALTIES = 0,
  EXACTSAMPLE_STEP_DRY = 1,
  EXACTSAMPLE_STEP_TOP_N_SIGMA = 2,
  EXACTSAMPLE_STEP_TOP_K = 3,
  EXACTSAMPLE_STEP_TYPICAL = 4,
  EXACTSAMPLE_STEP_TOP_P = 5,
  EXACTSAMPLE_STEP_MIN_P = 6,
  EXACTSAMPLE_STEP_XTC = 7,
  EXACTSAMPLE_STEP_TEMPERATURE = 8,
  EXACTSAMPLE_STEP_MAX_ENUM = 0x7fffffff
} exactsample_chain_step;

typedef enum exactsample_chain_preset {
  EXACTSAMPLE_CHAIN_SPEC = 0,
  EXACTSAMPLE_CHAIN_LLAMA = 1,
  EXACTSAMPLE_CHAIN_LIST = 2,
  EXACTSAMPLE_CHAIN_MAX_ENUM = 0x7fffffff
} exactsample_chain_preset;

/* A list of ids: len entries at ids (NULL only with len 0). */
typedef struct exactsample_ids {
  const int32_t* ids;
  size_t len;
} exactsample_ids;

/* Set struct_size = sizeof(exactsample_params) (exactsample_params_init
 * does, with the spec's defaults); later versions only append fields. */
typedef struct exactsample_params {
  uint32_t struct_size;
  double temperature;        /* 1.0; 0 = greedy */
  double repetition_penalty; /* 1.0 */
  double presence_penalty;   /* 0.0 */
  double frequency_penalty;  /* 0.0 */
  int64_t top_k;             /* 0 = off */
  double top_p;              /* 1.0 = off */
  double min_p;              /* 0.0 = off */
  /* The library's penalty window (docs/beyond-spec.md): 0 = the
   * spec's whole history; n > 0: the repetition penalty over the distinct
   * ids of the last n tokens of prompt followed by generated, presence and
   * frequency over the counts in the last n generated tokens. A struct_size
   * that ends before this field (an older caller) reads as 0. */
  int64_t penalty_last_n;
  /* The chain and llama.cpp's samplers (docs/llama-samplers.md), with the
   * C++ SamplingParams' names; each default turns its step off. A
   * struct_size that ends at penalty_last_n (an older caller) reads them
   * all as these defaults. */
  /* An exactsample_chain_preset: EXACTSAMPLE_CHAIN_SPEC (the default), _LLAMA,
   * or _LIST: the chain_len steps of chain_steps (exactsample_chain_step
   * values), read only then. */
  int32_t chain_preset;
  const int32_t* chain_steps;
  size_t chain_len;
  int64_t min_keep;         /* 0 */
  double top_n_sigma;       /* 0.0 = off */
  double typical_p;         /* 1.0 = off */
  double xtc_probability;   /* 0.0 = off */
  double xtc_threshold;     /* 0.1; above 0.5 = off */
  double dry_multiplier;    /* 0.0 = off */
  double dry_base;          /* 1.75 */
  int64_t dry_allowed_length; /* 2 */
  int64_t dry_penalty_last_n; /* 64; 0 = off */
  /* dry_sequence_breakers_len breakers, each 1 to 21 ids; read, never
   * written, during the call (a sequence keeps its own copy). */
  const exactsample_ids* dry_sequence_breakers;
  size_t dry_sequence_breakers_len;
  double dynatemp_range;    /* 0.0 = off */
  double dynatemp_exponent; /* 1.0 */
  int64_t mirostat;         /* 0 = off; 1 or 2: the terminal is mirostat v1 or v2 */
  double mirostat_tau;      /* 5.0 */
  double mirostat_eta;      /* 0.1 */
  int64_t mirostat_m;       /* 100 */
  double adaptive_target;   /* -1.0; below 0 = off */
  double adaptive_decay;    /* 0.9 */
} exactsample_params;

/* The request generator (PCG32) as plain fields, so a prefill worker can
 * hand a request to a decode worker. draws_u32 counts next_u32 outputs:
 * two per sampled token, none per greedy token. */
typedef struct exactsample_rng {
  uint64_t state;
  uint64_t inc;
  uint64_t draws_u32;
} exactsample_rng;

typedef struct exactsample_sampler exactsample_sampler;

/* The library's additions around the spec for a request (the rules are in
 * docs/beyond-spec.md): a logit bias, a mask, the processed logprob, the
 * top-N logprobs and the rank. Zero it and set struct_size =
 * sizeof(exactsample_extras); a NULL pointer with length 0 is "none", and
 * each output pointer may be NULL (not wanted). */
typedef struct exactsample_extras {
  uint32_t struct_size;
  /* bias_values[j] (finite) is added to the logit of bias_ids[j]. */
  const int32_t* bias_ids;
  const double* bias_values;
  size_t bias_len;
  /* Masks: only allowed ids (if any are given), no banned id, and only ids
   * whose bit (bit i % 32 of word i / 32) is set in allowed_bitmask (if
   * given: at least ceil(vocab / 32) words). allowed_ids not NULL with
   * allowed_len 0 is an empty list, which allows no id:
   * EXACTSAMPLE_INVALID_ARGUMENT (NULL: every id allowed). */
  const int32_t* allowed_ids;
  size_t allowed_len;
  const int32_t* banned_ids;
  size_t banned_len;
  const uint32_t* allowed_bitmask;
  size_t allowed_bitmask_words;
  /* N, 0 to 20: top_ids and top_logprobs (N entries each) receive the N ids
   * with the largest logprob, (logprob desc, id asc), -inf ones left out;
   * *top_count how many were written. */
  int64_t top_logprobs;
  int32_t* top_ids;
  double* top_logprob_values;
  size_t* top_count;
  /* (t[id] - M_K) - log(Z_K) over the final kept set; 0.0 when greedy. */
  double* processed_logprob;
  /* The token's place among all V ids in the order of the top logprobs,
   * (logprob desc, id asc), from 1 (C++ Token::rank); NULL: not computed
   * (it costs an O(V) count and the logprob's softmax). */
  int64_t* rank;
} exactsample_extras;

/* The element type of a row of logits (exactsample_request.logits_type):
 * f32, or 16-bit words in host byte order: IEEE binary16 or bfloat16 (the upper half of an f32). A word widens to f32 exactly,
 * and the result is the one for that f32 row; a NaN or +inf word is
 * rejected as a NaN or +inf float is (EXACTSAMPLE_INVALID_LOGITS). */
typedef enum exactsample_logits_type {
  EXACTSAMPLE_LOGITS_F32 = 0,
  EXACTSAMPLE_LOGITS_F16 = 1,
  EXACTSAMPLE_LOGITS_BF16 = 2,
  EXACTSAMPLE_LOGITS_MAX_ENUM = 0x7fffffff
} exactsample_logits_type;

typedef struct exactsample_token {
  exactsample_status status;
  int32_t id;
  double logprob;
} exactsample_token;

/* The loaded library's version, "MAJOR.MINOR.PATCH"; a program built
 * against this header can compare it with EXACTSAMPLE_VERSION_STRING. */
EXACTSAMPLE_API const char* exactsample_version(void);
EXACTSAMPLE_API const char* exactsample_status_name(exactsample_status status);

EXACTSAMPLE_API void exactsample_params_init(exactsample_params* params);

/* stream(seed, purpose) of docs/spec.md, "The generator: PCG32": the sampler's request generator
 * is stream(seed, EXACTSAMPLE_PURPOSE_SAMPLE). */
EXACTSAMPLE_API exactsample_status exactsample_rng_stream(uint64_t seed,
                                                          uint64_t purpose,
                                                          exactsample_rng* out);
/* Jumps ahead by n next_u32 outputs in O(log n). */
EXACTSAMPLE_API exactsample_status exactsample_rng_advance(exactsample_rng* rng,
                                                           uint64_t n);
EXACTSAMPLE_API exactsample_status exactsample_rng_next_u32(exactsample_rng* rng,
                                                            uint32_t* out);
/* Two outputs a then b: ((a >> 5) * 2^26 + (b >> 6)) * 2^-53, in [0, 1). */
EXACTSAMPLE_API exactsample_status exactsample_rng_uniform_f64(exactsample_rng* rng,
                                                               double* out);
/* pcg32(initstate, seq), the spec's raw seeding (its default seq is 54),
 * for its test vectors: not a request generator (exactsample_rng_stream
 * derives the initstate and seq of those). draws_u32 starts at 0. */
EXACTSAMPLE_API exactsample_status exactsample_rng_seeded(uint64_t initstate, uint64_t seq,
                                                          exactsample_rng* out);

/* engine: an exactsample_engine value, taken as an int so that any other
 * value is an error (EXACTSAMPLE_INVALID_ARGUMENT) and not undefined. */
EXACTSAMPLE_API exactsample_status exactsample_sampler_create(
    int engine, exactsample_sampler** out);
EXACTSAMPLE_API void exactsample_sampler_destroy(exactsample_sampler* sampler);
/* Threads that split one row's work in exactsample_sample_request (the
 * fast engine's SampleOptions::threads; 1 after create): 1 to 64. Results are
 * the same bits for every count. Inside a batch each row runs on one
 * thread. Any other value returns EXACTSAMPLE_INVALID_ARGUMENT, names the
 * value in the last error and keeps the previous count. */
EXACTSAMPLE_API exactsample_status exactsample_sampler_set_threads(
    exactsample_sampler* sampler, int threads);
/* The message of the sampler's last error ("" after success); valid until
 * the next call on this sampler. */
EXACTSAMPLE_API const char* exactsample_sampler_last_error(
    const exactsample_sampler* sampler);

/* Sequences and requests (docs/c-sequence.md): the one way through. A
 * sequence follows one request from step to step: its parameters and
 * extras, its generator, its prompt and generated ids and the per-id counts
 * the penalties need, kept up to date as tokens arrive, so that a token
 * costs the same at step 1 and at step 100,000. Its tokens equal a
 * stateless exactsample_sample_request with the same row, full history,
 * parameters, extras and generator, bit for bit. A sequence is a plain object: one call at a time
 * on it (calls on different sequences may run on different threads, each
 * with its own sampler). Every call that fails leaves the sequence as it
 * was and takes no draw; the sampler's last error names the field and the
 * value. */
typedef struct exactsample_sequence exactsample_sequence;

/* Zero it and set struct_size = sizeof(exactsample_sequence_config). */
typedef struct exactsample_sequence_config {
  uint32_t struct_size;
  size_t vocab;                      /* V of every row this sequence samples */
  const exactsample_params* params;  /* copied; NULL: the spec's defaults */
  /* Bias, masks and top_logprobs N copied; its output pointers are
   * ignored (a request's extras receive outputs); NULL: none. */
  const exactsample_extras* extras;
  uint64_t seed;                     /* the generator: stream(seed, EXACTSAMPLE_PURPOSE_SAMPLE) */
  const exactsample_rng* rng;        /* non-NULL: this handed-over state instead */
} exactsample_sequence_config;

/* Every call taking a sampler uses it as the thread's context (engine,
 * threads, scratch memory, last error). *out is written on success only. */
EXACTSAMPLE_API exactsample_status exactsample_sequence_create(
    exactsample_sampler* sampler, const exactsample_sequence_config* config,
    exactsample_sequence** out);
EXACTSAMPLE_API void exactsample_sequence_destroy(exactsample_sequence* sequence);
/* A copy of everything, the generator included (n > 1, beams). */
EXACTSAMPLE_API exactsample_status exactsample_sequence_clone(
    exactsample_sampler* sampler, const exactsample_sequence* sequence,
    exactsample_sequence** out);
/* Clears the prompt and generated ids; the generator goes back to where it
 * was at create (or restore). */
EXACTSAMPLE_API exactsample_status exactsample_sequence_reset(
    exactsample_sampler* sampler, exactsample_sequence* sequence);
/* Appends a generated token chosen elsewhere (a forced token, a grammar's,
 * an accepted draft); EXACTSAMPLE_INVALID_IDS for an id outside [0, V). */
EXACTSAMPLE_API exactsample_status exactsample_sequence_accept(
    exactsample_sampler* sampler, exactsample_sequence* sequence, int32_t id);
/* Appends prompt ids (one or many); an id outside [0, V) appends none. */
EXACTSAMPLE_API exactsample_status exactsample_sequence_accept_prompt(
    exactsample_sampler* sampler, exactsample_sequence* sequence,
    const int32_t* ids, size_t n);
/* Keeps the first `length` generated ids and drops the rest (a rollback:
 * tokens the caller rejects, another branch); the generator stays where it
 * is. A length above the generated ids' count is
 * EXACTSAMPLE_INVALID_PARAMETER (as C++ Sequence::truncate), and nothing
 * changes. */
EXACTSAMPLE_API exactsample_status exactsample_sequence_truncate(
    exactsample_sampler* sampler, exactsample_sequence* sequence, size_t length);
/* The generator's current state. */
EXACTSAMPLE_API exactsample_status exactsample_sequence_rng(
    const exactsample_sequence* sequence, exactsample_rng* out);
/* Puts the generator at *rng (C++ Sequence::rng() = g, Python
 * Sequence.rng = g): a state read earlier, to draw again from there; the
 * ids stay. */
EXACTSAMPLE_API exactsample_status exactsample_sequence_set_rng(
    exactsample_sampler* sampler, exactsample_sequence* sequence,
    const exactsample_rng* rng);
/* How many prompt and generated ids it holds; either pointer may be NULL. */
EXACTSAMPLE_API exactsample_status exactsample_sequence_lengths(
    const exactsample_sequence* sequence, size_t* prompt_len,
    size_t* generated_len);
/* Everything a second worker needs to continue the request, as bytes (the
 * format is in docs/sequence.md). buffer NULL: *size gets the length (a
 * size query). Otherwise the snapshot is written when capacity holds it
 * and *size gets its length; a smaller capacity is EXACTSAMPLE_INVALID_ARGUMENT
 * with nothing written. */
EXACTSAMPLE_API exactsample_status exactsample_sequence_snapshot(
    exactsample_sampler* sampler, const exactsample_sequence* sequence,
    void* buffer, size_t capacity, size_t* size);
/* A new sequence from a snapshot's size bytes; a truncated or corrupt one
 * (or one of another format version) is EXACTSAMPLE_INVALID_ARGUMENT. */
EXACTSAMPLE_API exactsample_status exactsample_sequence_restore(
    exactsample_sampler* sampler, const void* snapshot, size_t size,
    exactsample_sequence** out);

/* One sampling call: the same struct for single and batch calls, on a
 * sequence or stateless. Zero it and set struct_size =
 * sizeof(exactsample_request); zero fields are "none" / "the default". */
typedef struct exactsample_request {
  uint32_t struct_size;
  const void* logits;  /* the row: `vocab` values of logits_type */
  int logits_type;     /* EXACTSAMPLE_LOGITS_F32 (0), _F16 or _BF16 */
  size_t vocab;
  /* exactsample_sample_requests only: row i's values start
   * i * row_stride elements after logits, so every row of a matrix can
   * point at its start (row_stride at least the row's element count). 0:
   * logits is the row itself. Ignored by exactsample_sample_request. */
  size_t row_stride;
  /* Candidates (f32 only): with candidate_ids non-NULL, logits holds
   * candidate_count f32 values, logits[j] the logit of id candidate_ids[j]
   * (ids in [0, vocab), distinct, in any order), and every other id is
   * -inf: the result is the one for that V-row. */
  const int32_t* candidate_ids;
  size_t candidate_count;
  /* Stateless calls only (no sequence): the history and the generator,
   * advanced when a token is sampled. generated_checked: the first N
   * generated ids are known to be in [0, V) (an earlier call checked
   * them), so only the rest are checked. With a sequence these stay
   * NULL / 0: the sequence's are used. */
  const int32_t* prompt;
  size_t prompt_len;
  const int32_t* generated;
  size_t generated_len;
  size_t generated_checked;
  exactsample_rng* rng;
  /* Overrides for this call: NULL = the sequence's (stateless: the
   * defaults / none). A non-NULL extras replaces the sequence's bias,
   * masks and N, and receives the outputs. */
  const exactsample_params* params;
  const exactsample_extras* extras;
  /* With a sequence: nonzero appends the sampled token (else call
   * exactsample_sequence_accept after the fact). Stateless: must be 0. */
  int accept;
  /* Receives the logprob; NULL: not computed (faster for top-k, greedy). */
  double* logprob;
  /* The distribution the token was drawn from: the ids of the final kept
   * set K whose probability q (step 9's e / Z) is > 0, ascending, and
   * their q; for a greedy token the one id with 1.0. kept_ids and
   * kept_probs may each be NULL (not wanted); at most kept_capacity
   * entries are written, and *kept_count gets the full count, which may
   * exceed it. kept_count is required when either array is given. */
  int32_t* kept_ids;
  double* kept_probs;
  size_t kept_capacity;
  size_t* kept_count;
} exactsample_request;

/* One token: out gets the status, the id and the logprob (NaN when
 * request->logprob is NULL); -1 and 0 on error, with nothing else written
 * and no draw taken. sequence NULL: a stateless request. */
EXACTSAMPLE_API exactsample_status exactsample_sample_request(
    exactsample_sampler* sampler, exactsample_sequence* sequence,
    const exactsample_request* request, exactsample_token* out);
/* The status exactsample_sample_request would return for this request,
 * with the same last error, without sampling: the whole sampling path runs
 * on a scratch generator (C++ validate), so a bias, mask, penalty or
 * temperature that only the steps find wrong is reported too. Nothing is
 * written: no output, no generator, no sequence change. */
EXACTSAMPLE_API exactsample_status exactsample_validate_request(
    exactsample_sampler* sampler, exactsample_sequence* sequence,
    const exactsample_request* request);
/* A batch across threads (threads <= 0: the hardware's count; on the
 * library pool no more than the cores no other runnable thread holds at
 * the call): requests[i] on sequences[i] (sequences NULL, or sequences[i]
 * NULL: a stateless row); a sequence appears at most once. results[i] is
 * what exactsample_sample_request gives for row i alone; a bad row does not
 * stop the others, and exactsample_sampler_row_error gives its message.
 * Returns EXACTSAMPLE_OK when every row was sampled, else the first failing
 * row's status. */
EXACTSAMPLE_API exactsample_status exactsample_sample_requests(
    exactsample_sampler* sampler, exactsample_sequence* const* sequences,
    const exactsample_request* requests, size_t rows,
    exactsample_token* results, int threads);
/* The message of row `row` of the sampler's last batch
 * (exactsample_sample_requests, exactsample_verify_batch): "" for a row
 * that succeeded; valid until the next call on this sampler. */
EXACTSAMPLE_API const char* exactsample_sampler_row_error(
    const exactsample_sampler* sampler, size_t row);

/* Speculative decoding, exact (docs/spec.md, "Speculative decoding"; docs/speculative.md).
 *
 * dist(row, params, history) for one f32 row: the ids of the final kept set
 * whose q is > 0, ascending, and their q (step 9, f64); for a greedy request
 * (temperature 0) step 4's id with 1.0. extras: the bias and mask (its
 * top-N and output pointers unused), or NULL. No generator is read. At
 * most `capacity` entries are written to ids and probs (NULL when
 * capacity is 0); *count gets how many there are, which may exceed
 * capacity (call again with a larger one: nothing else changes). */
EXACTSAMPLE_API exactsample_status exactsample_distribution(
    exactsample_sampler* sampler, const float* logits, size_t vocab,
    const int32_t* prompt, size_t prompt_len, const int32_t* generated,
    size_t generated_len, const exactsample_params* params,
    const exactsample_extras* extras, int32_t* ids, double* probs,
    size_t capacity, size_t* count);

/* gamma >= 1 draft tokens proposed after the history, the gamma + 1 target
 * rows (row j computed with the first j drafts appended) and the gamma
 * draft rows they were proposed from, f32, each of `vocab` logits. Rows
 * are given as an array of row pointers (target_rows) or as a matrix whose
 * row j starts at target_logits + j * target_stride (target_stride >=
 * vocab); one of the two. The same for the draft rows, which a greedy
 * target does not read (both NULL: none). Zero it and set struct_size =
 * sizeof(exactsample_drafts). */
typedef struct exactsample_drafts {
  uint32_t struct_size;
  size_t gamma;
  const int32_t* draft_ids;               /* gamma ids in [0, vocab) */
  size_t vocab;
  const float* const* target_rows;        /* gamma + 1 pointers, or NULL */
  const float* target_logits;             /* or a matrix */
  size_t target_stride;
  const float* const* draft_rows;         /* gamma pointers, or NULL */
  const float* draft_logits;              /* or a matrix */
  size_t draft_stride;
  /* The draft side's parameters, complete in themselves; NULL: the
   * target's. The bias and mask of the extras apply to the target rows
   * only. */
  const exactsample_params* draft_params;
} exactsample_drafts;

/* A verification's results. The caller sets struct_size =
 * sizeof(exactsample_verified) and the arrays it wants (NULL: not
 * written), each of gamma + 1 entries: ids (required), logprobs,
 * processed_logprobs; for extras->top_logprobs = N > 0, top_ids and
 * top_logprob_values of (gamma + 1) * N entries (token t's N at t * N) and
 * top_counts of gamma + 1. The call fills the rest. */
typedef struct exactsample_verified {
  uint32_t struct_size;
  int32_t* ids;
  double* logprobs;
  double* processed_logprobs;
  int32_t* top_ids;
  double* top_logprob_values;
  size_t* top_counts;
  size_t count;     /* tokens emitted: accepted + 1 */
  size_t accepted;  /* drafts emitted as drafts, before the first rejection or mismatch */
  uint64_t draws;   /* uniform_f64 draws (2 next_u32 each) taken from rng */
} exactsample_verified;

/* Verifies the drafts on the request's generator: prompt and generated are
 * the history before the drafts, params the target's, extras (or NULL) the
 * target rows' bias, mask and N (its output pointers unused). Each emitted
 * token has the logprob, processed and top-N logprobs of its target row.
 * rng is advanced by 2 * draws next_u32. Errors (no draft, a draft id
 * outside [0, vocab), a draft whose draft probability is 0, missing rows,
 * any error of a row the verification reaches, bad arguments) name the
 * field and the value; nothing is written and rng is unchanged. */
EXACTSAMPLE_API exactsample_status exactsample_verify(
    exactsample_sampler* sampler, const exactsample_drafts* drafts,
    const int32_t* prompt, size_t prompt_len, const int32_t* generated,
    size_t generated_len, const exactsample_params* params,
    const exactsample_extras* extras, exactsample_rng* rng,
    exactsample_verified* out);

/* One verification of a batch: exactsample_verify's arguments. */
typedef struct exactsample_verification {
  const exactsample_drafts* drafts;
  const int32_t* prompt;
  size_t prompt_len;
  const int32_t* generated;
  size_t generated_len;
  const exactsample_params* params;
  const exactsample_extras* extras;
  exactsample_rng* rng;
  exactsample_verified* out;
} exactsample_verification;

/* Each of `count` verifications, one after the other on the calling
 * thread (C++ verify_batch; each one's rows are already its own passes);
 * statuses[i] gets its status, exactsample_sampler_row_error(sampler, i)
 * its message. A bad
 * verification does not stop the others. Returns EXACTSAMPLE_OK when all
 * succeeded, else the first failing one's status. */
EXACTSAMPLE_API exactsample_status exactsample_verify_batch(
    exactsample_sampler* sampler, const exactsample_verification* verifications,
    size_t count, exactsample_status* statuses);

/* exactsample_verify on a sequence: its prompt and generated ids, params,
 * bias, mask and N (config.extras->top_logprobs) are the target's, its
 * generator the request's. The emitted tokens are appended to its
 * generated ids and its generator advances by 2 * out->draws next_u32.
 * drafts->vocab must be the sequence's. Errors as exactsample_verify's,
 * and a NULL sequence; the sequence is unchanged then. */
EXACTSAMPLE_API exactsample_status exactsample_sequence_verify(
    exactsample_sampler* sampler, exactsample_sequence* sequence,
    const exactsample_drafts* drafts, exactsample_verified* out);

/* SIMD targets: count, names (best first), whether supported. */
EXACTSAMPLE_API size_t exactsample_target_count(void);
EXACTSAMPLE_API const char* exactsample_target_name(size_t index);
EXACTSAMPLE_API int exactsample_target_supported(size_t index);
/* Which of glibc's exp variants this process's exp is and why the fast
 * engine believes it: "fused: ...", "unfused: ...", or "libm: ..." (C++
 * exp_choice()). Fixed for the process: a static string, not to be freed. */
EXACTSAMPLE_API const char* exactsample_exp_choice(void);

/* Testing: runs the fast engine on the named target from now on,
 * process-wide, for audits, tests and benchmarks ("" or NULL restores the
 * best supported target). */
EXACTSAMPLE_API exactsample_status exactsample_testing_force_target(
    const char* name);

/* Threads. A batch (and a row split across threads) uses helper threads
 * from the library's pool by default: created on first use, as many as the
 * largest team asked for, asleep when idle, joined at exit. A host that runs
 * its own threads lends them instead with an executor: submit must arrange
 * for task(arg) to run n times on the host's threads, at any time or never,
 * and must not run it on the calling thread before returning. The library
 * never waits for a task to start: what no task has done when the caller
 * runs out of work, the caller does itself, and a task that runs after its
 * call returned does nothing. */
typedef struct exactsample_executor {
  void* user;
  void (*submit)(void* user, size_t n, void (*task)(void* arg), void* arg);
} exactsample_executor;

/* The executor this sampler's calls use from now on (the struct is
 * copied; `user` must stay valid while calls run). NULL restores the
 * library pool. INVALID_ARGUMENT when submit is NULL. */
EXACTSAMPLE_API exactsample_status exactsample_sampler_set_executor(
    exactsample_sampler* sampler, const exactsample_executor* executor);

/* Joins the library pool's threads now (a later call starts them again);
 * call it while no sampling call runs. */
EXACTSAMPLE_API void exactsample_shutdown_library_pool(void);

#ifdef __cplusplus
}
#endif

#endif /* EXACTSAMPLE_H_ */
