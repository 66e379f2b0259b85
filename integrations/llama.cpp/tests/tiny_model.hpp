// A llama-architecture model with random weights, made in memory through
// libllama's own API (gguf metadata and llama_model_init_from_user), so that
// the tests run llama.cpp's real decode, logits and sampler paths without a
// model file. Its vocabulary is a SentencePiece one ("llama") that llama.cpp's
// grammar sampler can read: <unk>, <s>, </s>, the 256 byte tokens, then
// "▁"-prefixed and bare words over the letters a-z in length order.
#ifndef EXACTSAMPLE_LLAMA_TESTS_TINY_MODEL_HPP_
#define EXACTSAMPLE_LLAMA_TESTS_TINY_MODEL_HPP_

#include <cstdint>
#include <string>
#include <vector>

#include "llama.h"

namespace tiny_model {

// Loads the CPU backends from `backend_dir` once per process (the prebuilt
// libllama finds none by itself).
void LoadBackends(const std::string& backend_dir);

// A model of `n_vocab` tokens (at least 260), weights drawn from `seed`.
// Aborts the test program when libllama refuses it.
llama_model* Make(uint32_t n_vocab, uint32_t seed);

// A context of n_ctx positions on one thread, one sequence.
llama_context* MakeContext(llama_model* model, uint32_t n_ctx);

// Decodes `tokens` at positions pos, pos + 1, ... asking for the logits of
// the last one; false when llama_decode fails.
bool Decode(llama_context* ctx, const std::vector<llama_token>& tokens, int32_t pos);

}  // namespace tiny_model

#endif  // EXACTSAMPLE_LLAMA_TESTS_TINY_MODEL_HPP_
