#include "side_by_side_rows.hpp"

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <random>

#include "tiny_model.hpp"

namespace side_by_side {
namespace {

double Uniform(std::mt19937_64& g) { return static_cast<double>(g() >> 11) * 0x1p-53; }

double Gaussian(std::mt19937_64& g) {  // Box-Muller, so every platform draws the same rows
  const double u = 1.0 - Uniform(g), v = Uniform(g);
  return std::sqrt(-2.0 * std::log(u)) * std::cos(6.283185307179586 * v);
}

std::vector<Row> SyntheticRows(uint32_t vocab) {
  std::mt19937_64 g(20261203);
  Row gaussian{"gaussian", {}}, peaked{"peaked", {}}, flat{"flat", {}}, ties{"ties", {}};
  for (uint32_t i = 0; i < vocab; ++i) {
    gaussian.logits.push_back(static_cast<float>(2.0 * Gaussian(g)));
    peaked.logits.push_back(static_cast<float>(Gaussian(g)));
    flat.logits.push_back(static_cast<float>(Uniform(g) - 0.5));
    // Steps of 0.5: many ids share each value.
    ties.logits.push_back(static_cast<float>(std::round(4.0 * Gaussian(g)) / 2.0));
  }
  // The history's ids lead, so the penalties and DRY move the likely ids.
  peaked.logits[7] = 9.0f;
  peaked.logits[100] = 8.5f;
  peaked.logits[200] = 7.0f;
  peaked.logits[13] = 6.5f;
  return {gaussian, peaked, flat, ties};
}

// Two rows of the random-weight model: after a prompt, and one token later.
std::vector<Row> ModelRows(llama_model* model) {
  const size_t vocab = static_cast<size_t>(llama_vocab_n_tokens(llama_model_get_vocab(model)));
  llama_context* ctx = tiny_model::MakeContext(model, 64);
  std::vector<Row> rows;
  std::vector<llama_token> prompt = {1, 260, 261, 277, 262, 290};
  int32_t pos = 0;
  for (const llama_token next : {llama_token{270}, llama_token{-1}}) {
    if (!tiny_model::Decode(ctx, prompt, pos)) {
      std::fprintf(stderr, "side_by_side: llama_decode failed\n");
      std::exit(1);
    }
    const float* logits = llama_get_logits_ith(ctx, -1);
    rows.push_back({"model" + std::to_string(rows.size() + 1), {logits, logits + vocab}});
    pos += static_cast<int32_t>(prompt.size());
    prompt = {next};
  }
  llama_free(ctx);
  return rows;
}
}  // namespace

RowSet MakeRows(uint32_t n_vocab) {
  RowSet set{tiny_model::Make(n_vocab, 20261203u + n_vocab), nullptr, SyntheticRows(n_vocab)};
  set.vocab = llama_model_get_vocab(set.model);
  for (Row& r : ModelRows(set.model)) set.rows.push_back(std::move(r));
  return set;
}

}  // namespace side_by_side
