/* docs/llama-cpp.md's ten lines and its lines for a llama-server user's
 * order, word for word between the markers (llama_docs_lines compares them
 * with the page). */
#include "ten_lines.h"

llama_token ten_lines(const struct llama_model* model, struct llama_context* ctx,
                      const llama_token* prompt, int n_prompt, uint64_t seed, double* logprob,
                      struct llama_sampler** sampler) {
  /* docs: begin */
exactsample_params p;
exactsample_params_init(&p);                    /* the spec's defaults */
p.temperature = 0.8;  p.top_k = 40;  p.top_p = 0.95;  p.min_p = 0.05;
p.repetition_penalty = 1.1;  p.penalty_last_n = 64;   /* llama.cpp's repeat_last_n */
struct llama_sampler * smpl = exactsample_llama_init(llama_model_get_vocab(model), &p, NULL, seed);
for (int i = 0; i < n_prompt; i++) llama_sampler_accept(smpl, prompt[i]);   /* the prompt */
/* the loop is unchanged: */
llama_token id = llama_sampler_sample(smpl, ctx, -1);
exactsample_token t;  exactsample_llama_last(smpl, &t);   /* t.logprob: the exact logprob */
  /* docs: end */
  *logprob = t.logprob;
  *sampler = smpl;
  return id;
}

llama_token server_lines(const struct llama_model* model, struct llama_context* ctx,
                         const llama_token* prompt, int n_prompt, uint64_t seed, double* logprob,
                         struct llama_sampler** sampler) {
  /* docs: begin */
exactsample_llama_common c;
exactsample_llama_common_init(&c);   /* common's defaults: top_k 40, top_p 0.95, min_p 0.05, temp 0.8 */
c.temp = 0.7f;  c.penalty_repeat = 1.1f;  c.xtc_probability = 0.5f;   /* --temp 0.7 --repeat-penalty 1.1 --xtc-probability 0.5 */
struct llama_sampler * smpl = exactsample_llama_init_common(llama_model_get_vocab(model), &c, NULL, seed);
for (int i = 0; i < n_prompt; i++) llama_sampler_accept(smpl, prompt[i]);   /* the prompt */
/* the loop is unchanged: */
llama_token id = llama_sampler_sample(smpl, ctx, -1);
exactsample_token t;  exactsample_llama_last(smpl, &t);   /* t.logprob: the exact logprob */
  /* docs: end */
  *logprob = t.logprob;
  *sampler = smpl;
  return id;
}
