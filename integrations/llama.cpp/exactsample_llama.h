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
 * the spec's defaults (params carries the chain and every sampler's
 * fields, the DRY breakers as ids), extras (bias, masks) NULL for none,
 * both copied; the
 * generator is stream(seed, EXACTSAMPLE_PURPOSE_SAMPLE). NULL, with the reason logged, when an
 * argument is bad (a parameter out of range names the field and value). */
struct llama_sampler* exactsample_llama_init(const struct llama_vocab* vocab,
                                             const exactsample_params* params,
                                             const exactsample_extras* extras,
                                             uint64_t seed);

/* llama.cpp's common sampling parameters (common_params_sampling in
 * common/common.h), with its names, types and meaning, as a llama-server
 * user writes them; exactsample_llama_common_init sets common's defaults.
 * exactsample_llama_init_common maps them onto the library's fields
 * (docs/llama-cpp.md, "Keeping a llama-server user's order"):
 *   - samplers: common's names for the order (canonical "penalties",
 *     "dry", "top_n_sigma", "top_k", "typ_p", "top_p", "min_p", "xtc",
 *     "temperature", "adaptive_p", and the aliases common takes: "top-k",
 *     "topk", "nucleus", "temp", "typ", ...; any case). Common's own order
 *     is the `llama` preset, any other a list. A sampler left out is off,
 *     as llama.cpp then skips it; "adaptive_p" makes adaptive-p the
 *     terminal (else common's dist). "infill" is refused: it needs the
 *     tokenizer's strings (keep it a llama.cpp sampler in front).
 *   - mirostat 1 or 2: common then runs only temp and mirostat, so every
 *     other sampler is off and the chain is the temperature alone;
 *     mirostat_m is common's fixed 100.
 *   - temp < 0 is greedy (0); top_k <= 0, top_n_sigma <= 0 are off;
 *     penalty_last_n 0 turns the penalties off and -1 (the context) is the
 *     whole history, as is dry_penalty_last_n -1; dry_base < 1 turns DRY
 *     off, as llama.cpp's sampler does.
 *   - dry_sequence_breakers: strings, turned into id sequences with the
 *     vocab as llama.cpp's llama_sampler_init_dry does (each cut to 40
 *     bytes; docs/llama-samplers.md, "Breakers as ids"). A NULL or empty
 *     string is refused (llama.cpp skips it with a warning).
 * Each float widens to the double llama.cpp's float holds. Set
 * struct_size = sizeof(exactsample_llama_common). */
typedef struct exactsample_llama_common {
  uint32_t struct_size;
  int32_t top_k;
  float top_p;
  float min_p;
  float typ_p;
  float temp;
  float dynatemp_range;
  float dynatemp_exponent;
  int32_t penalty_last_n;
  float penalty_repeat;
  float penalty_freq;
  float penalty_present;
  float dry_multiplier;
  float dry_base;
  int32_t dry_allowed_length;
  int32_t dry_penalty_last_n;
  const char* const* dry_sequence_breakers;
  size_t n_dry_sequence_breakers;
  int32_t mirostat;
  float mirostat_tau;
  float mirostat_eta;
  float xtc_probability;
  float xtc_threshold;
  float top_n_sigma;
  int32_t min_keep;
  float adaptive_target;
  float adaptive_decay;
  const char* const* samplers;
  size_t n_samplers;
} exactsample_llama_common;

/* Common's defaults (top_k 40, top_p 0.95, min_p 0.05, temp 0.8,
 * penalty_last_n 64, the breakers "\n", ":", "\"", "*", common's sampler
 * order, ...), struct_size set; the strings are static. */
void exactsample_llama_common_init(exactsample_llama_common* common);

/* A sampler from llama.cpp's common parameters (above); extras and seed as
 * for exactsample_llama_init. NULL, with the reason logged, for a bad
 * argument: the field and the value (an unknown sampler name, a value out
 * of the library's range). */
struct llama_sampler* exactsample_llama_init_common(const struct llama_vocab* vocab,
                                                    const exactsample_llama_common* common,
                                                    const exactsample_extras* extras,
                                                    uint64_t seed);

/* A sampler in place of an existing llama.cpp chain (llama_sampler_chain_init
 * and _add, or common's): the order is read from the chain, by
 * llama_sampler_chain_n, llama_sampler_chain_get and llama_sampler_name,
 * and nothing else is, since llama.cpp's API exposes no sampler's
 * parameters: those come from `common` (its `samplers` is not read). Names:
 * "penalties", "dry", "top-n-sigma", "top-k", "typical", "top-p", "min-p",
 * "xtc", "temp" (plain: dynatemp_range read as 0), "temp-ext", then one
 * terminal, last: "dist", "mirostat" (v1), "mirostat-v2" or "adaptive-p".
 * A "?name" (llama.cpp's placeholder for a sampler made off) turns that
 * step off, as does a sampler the chain lacks. Refused (NULL, logged,
 * naming chain[i] and the name): "logit-bias" (its biases are not exposed:
 * pass them in extras), "grammar" and "infill" (they stay llama.cpp's, in
 * front), a nested chain, any other name, and a chain with no terminal.
 * The chain is not changed. */
struct llama_sampler* exactsample_llama_init_from_chain(const struct llama_vocab* vocab,
                                                        struct llama_sampler* chain,
                                                        const exactsample_llama_common* common,
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
   * token more. With mirostat or adaptive-p (whose state moves with each
   * token, so the request cannot run again later) the logprob is computed
   * with the token, as EVERY_TOKEN does. */
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
