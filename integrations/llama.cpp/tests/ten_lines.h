/* The ten lines of docs/llama-cpp.md as functions (ten_lines.c, C99), so
 * that llama_loop_test runs them as written. */
#ifndef EXACTSAMPLE_LLAMA_TESTS_TEN_LINES_H_
#define EXACTSAMPLE_LLAMA_TESTS_TEN_LINES_H_

#include "exactsample_llama.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The prompt accepted, one token sampled in ctx (decoded to the prompt's
 * end): its id; *logprob its logprob, *sampler the sampler (the caller
 * frees it). */
llama_token ten_lines(const struct llama_model* model, struct llama_context* ctx,
                      const llama_token* prompt, int n_prompt, uint64_t seed, double* logprob,
                      struct llama_sampler** sampler);

/* The same with the lines that keep a llama-server user's order
 * (exactsample_llama_init_common). */
llama_token server_lines(const struct llama_model* model, struct llama_context* ctx,
                         const llama_token* prompt, int n_prompt, uint64_t seed, double* logprob,
                         struct llama_sampler** sampler);

#ifdef __cplusplus
}
#endif

#endif /* EXACTSAMPLE_LLAMA_TESTS_TEN_LINES_H_ */
