/* exactsample as a llama.cpp sampler (docs/llama-cpp.md): a llama_sampler
 * that samples the next token bit-exactly per the spec (docs/spec.md), used alone
 * or as the last sampler of a llama_sampler_chain in place of llama.cpp's
 * penalties / temp / top-k / top-p / min-p / dist. C and C++17.
 *
 * Its history follows llama.cpp's accept calls: tokens accepted before the
 * first apply (since creation or reset) are the prompt, as llama.cpp's
 * server accepts the prompt first; tokens accepted after it are generated
 * ones (llama_sampler_sample accepts the token it returns).
 *
 * apply reads whatever candidate array it is given: the fresh one that
 * llama_sampler_sample builds (every id in id order) as the dense row; one
 * that earlier samplers filtered or reordered as the spec's row with every
 * id outside the array at -inf. It sets `selected` and the `p` of every
 * candidate: step 9's probability for the kept ids, 0 for the others.
 *
 * llama.cpp's sampler interface has no error return, so bad input falls
 * back, with a message through llama.cpp's log callback (llama_log_set):
 *   - an empty array: `selected` stays -1;
 *   - ids outside [0, V) or repeated, NaN or +inf logits, every logit -inf,
 *     penalties that leave no logit: `selected` is the candidate with the
 *     largest logit (the first one on ties; NaN ones never), its p 1, the
 *     generator untouched;
 *   - accept of an id outside [0, V): ignored (the history is unchanged).
 * exactsample_llama_last tells which happened.
 *
 * The exact logprob costs passes over all V ids (the max, exp and sum of
 * its softmax), with top-k more than the token itself; llama.cpp's chain
 * computes none. exactsample_llama_set_logprob says when it is computed:
 * with every token (the default), on request, or never. The token and the
 * generator are the same in every mode.
 *
 * A sampler is used by one thread at a time, as any llama_sampler;
 * exactsample_llama_last counts as a use (it may compute the logprob).
 */
#ifndef EXACTSAMPLE_LLAMA_H_
#define EXACTSAMPLE_LLAMA_H_

#include <stddef.h>
#include <stdint.h>

#include "exactsample.h"
#include "llama.h"

#ifdef __cplusplus
extern "C" {
#endif

/* A sampler for rows of llama_vocab_n_tokens(vocab) ids: params NULL for
 * the spec's defaults, extras (bias, masks) NULL for none, both copied; the
 * generator is stream(seed, EXACTSAMPLE_PURPOSE_SAMPLE). NULL, with the reason logged, when an
 * argument is bad (a parameter out of range names the field and value). */
struct llama_sampler* exactsample_llama_init(const struct llama_vocab* vocab,
                                             const exactsample_params* params,
                                             const exactsample_extras* extras,
                                             uint64_t seed);

/* llama_sampler_sample(smpl, ctx, idx) without its candidate array: the
 * row read in place from llama_get_logits_ith(ctx, idx) and the token
 * accepted; the same token, logprob, history and generator, at the cost of
 * the sampling alone. No p is written (there is no array). Bad logits take
 * the fallback above over the row; no logits at idx: -1, logged. A sampler
 * that is not exactsample's (a chain) goes to llama_sampler_sample. */
llama_token exactsample_llama_sample(struct llama_sampler* smpl, struct llama_context* ctx,
                                     int32_t idx);

/* The request a snapshot (exactsample_llama_snapshot) holds, continued
 * here, for example in another llama_context or process. Accepted tokens are
 * generated ones when the snapshot's history has any; otherwise the prompt
 * continues until the first apply. NULL, logged, for a corrupt snapshot or
 * one whose V differs from the vocab's. */
struct llama_sampler* exactsample_llama_init_from_snapshot(const struct llama_vocab* vocab,
                                                           const void* snapshot, size_t size);

/* The request as exactsample_sequence_snapshot's byte string: buffer NULL
 * (or capacity too small) writes only *size. INVALID_ARGUMENT when smpl is
 * not an exactsample sampler. */
exactsample_status exactsample_llama_snapshot(const struct llama_sampler* smpl, void* buffer,
                                              size_t capacity, size_t* size);

/* When the sampler computes the token's exact logprob. */
typedef enum exactsample_llama_logprob {
  /* With every token (a new sampler's mode, and a restored one's). */
  EXACTSAMPLE_LLAMA_LOGPROB_EVERY_TOKEN = 0,
  /* When exactsample_llama_last asks for it. The token is sampled without
   * it, and the sampler keeps what its request needs: the generator before
   * the draw, the history before the token and the row (apply's copy of
   * the candidates; exactsample_llama_sample copies llama.cpp's row, which
   * the next decode overwrites). exactsample_llama_last runs that request
   * again on a copy of the sequence: the same draw and token, and
   * EVERY_TOKEN's logprob bit for bit, however late it asks (until the
   * next apply, sample or reset). Not asked, it costs what OFF does, plus
   * that copy in exactsample_llama_sample; asked, about one EVERY_TOKEN
   * token more. */
  EXACTSAMPLE_LLAMA_LOGPROB_ON_REQUEST = 1,
  /* Never: exactsample_llama_last's logprob is NaN. */
  EXACTSAMPLE_LLAMA_LOGPROB_OFF = 2,
  EXACTSAMPLE_LLAMA_LOGPROB_MAX_ENUM = 0x7fffffff
} exactsample_llama_logprob;

/* The mode (an exactsample_llama_logprob, taken as an int so that any
 * other value is an error) for the tokens sampled from now on; a clone
 * keeps the original's. INVALID_ARGUMENT when smpl is not an exactsample
 * sampler, or (logged, naming the value; the mode unchanged) for another
 * mode. */
exactsample_status exactsample_llama_set_logprob(struct llama_sampler* smpl, int mode);

/* The last apply: out->status is EXACTSAMPLE_OK and out->id, out->logprob the
 * token and its exact logprob (the spec's, over the candidates given), or the
 * status that made it fall back, out->id the fallback's id (-1: none) and
 * out->logprob 0. The logprob is NaN when the token was sampled with the
 * mode OFF, or with ON_REQUEST when computing it now fails (out of memory;
 * logged; a later call tries again). INVALID_ARGUMENT when smpl is not an
 * exactsample sampler or has not applied since creation or reset. */
exactsample_status exactsample_llama_last(const struct llama_sampler* smpl,
                                          exactsample_token* out);

/* The generator's position now (for example to check a hand-off). */
exactsample_status exactsample_llama_rng(const struct llama_sampler* smpl, exactsample_rng* out);

#ifdef __cplusplus
}
#endif

#endif /* EXACTSAMPLE_LLAMA_H_ */
