#include "tiny_model.hpp"

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>

#include "ggml-backend.h"
#include "gguf.h"

namespace tiny_model {
namespace {

constexpr uint32_t kEmbd = 32;
constexpr uint32_t kHeads = 2;
constexpr uint32_t kFeedForward = 64;
constexpr uint32_t kLayers = 2;
constexpr uint32_t kSpecialAndBytes = 3 + 256;

[[noreturn]] void Fail(const char* what) {
  std::fprintf(stderr, "tiny_model: %s\n", what);
  std::abort();
}

// The words after the byte tokens: every string over a-z by length, each
// once with the SentencePiece space mark and once bare, until n are made.
std::vector<std::string> Words(size_t n) {
  std::vector<std::string> words;
  words.reserve(n);
  std::vector<std::string> level = {""};
  while (words.size() < n) {
    std::vector<std::string> next;
    for (const std::string& stem : level) {
      for (char c = 'a'; c <= 'z'; ++c) next.push_back(stem + c);
    }
    for (const std::string& w : next) {
      if (words.size() < n) words.push_back("\xe2\x96\x81" + w);
      if (words.size() < n) words.push_back(w);
    }
    level = std::move(next);
  }
  return words;
}

void AddVocabulary(gguf_context* meta, uint32_t n_vocab) {
  std::vector<std::string> text = {"<unk>", "<s>", "</s>"};
  std::vector<int32_t> type = {LLAMA_TOKEN_TYPE_UNKNOWN, LLAMA_TOKEN_TYPE_CONTROL,
                               LLAMA_TOKEN_TYPE_CONTROL};
  for (int b = 0; b < 256; ++b) {
    char name[8];
    std::snprintf(name, sizeof name, "<0x%02X>", b);
    text.push_back(name);
    type.push_back(LLAMA_TOKEN_TYPE_BYTE);
  }
  for (std::string& w : Words(n_vocab - kSpecialAndBytes)) {
    text.push_back(std::move(w));
    type.push_back(LLAMA_TOKEN_TYPE_NORMAL);
  }
  std::vector<const char*> pointers;
  std::vector<float> scores;
  for (size_t i = 0; i < text.size(); ++i) {
    pointers.push_back(text[i].c_str());
    scores.push_back(-static_cast<float>(i));  // shorter words merge first
  }
  gguf_set_val_str(meta, "tokenizer.ggml.model", "llama");
  gguf_set_arr_str(meta, "tokenizer.ggml.tokens", pointers.data(), pointers.size());
  gguf_set_arr_data(meta, "tokenizer.ggml.scores", GGUF_TYPE_FLOAT32, scores.data(), scores.size());
  gguf_set_arr_data(meta, "tokenizer.ggml.token_type", GGUF_TYPE_INT32, type.data(), type.size());
}

// FNV-1a: a tensor's stream depends on its name, the same on every build.
uint32_t NameHash(const char* name) {
  uint32_t h = 2166136261u;
  for (const char* p = name; *p; ++p) h = (h ^ static_cast<unsigned char>(*p)) * 16777619u;
  return h;
}

void SetTensor(ggml_tensor* tensor, void* user) {
  if (tensor->type != GGML_TYPE_F32) Fail("a tensor that is not f32");
  std::mt19937 gen(*static_cast<const uint32_t*>(user) ^ NameHash(tensor->name));
  const bool norm = std::strstr(tensor->name, "norm") != nullptr;
  // The output projection's spread makes logits a few units wide, so that
  // top-p and min-p keep tens to thousands of ids.
  const float spread = std::strcmp(tensor->name, "output.weight") == 0 ? 0.6f : 0.2f;
  std::normal_distribution<float> normal(norm ? 1.0f : 0.0f, norm ? 0.0f : spread);
  std::vector<float> data(ggml_nelements(tensor));
  for (float& v : data) v = normal(gen);
  ggml_backend_tensor_set(tensor, data.data(), 0, ggml_nbytes(tensor));
}

// With no model file, libllama (node-llama-cpp's loader patch) creates the
// tensors named in the metadata, as f32 when the entry's type is f32.
void AddTensorNames(gguf_context* meta) {
  std::vector<std::string> names = {"token_embd.weight", "output_norm.weight", "output.weight"};
  for (uint32_t il = 0; il < kLayers; ++il) {
    for (const char* t : {"attn_norm", "attn_q", "attn_k", "attn_v", "attn_output", "ffn_norm",
                          "ffn_gate", "ffn_down", "ffn_up"}) {
      names.push_back("blk." + std::to_string(il) + "." + t + ".weight");
    }
  }
  for (const std::string& name : names) {
    ggml_tensor t;
    std::memset(&t, 0, sizeof t);
    t.type = GGML_TYPE_F32;
    ggml_set_name(&t, name.c_str());
    gguf_add_tensor(meta, &t);
  }
}

bool Quiet(float, void*) { return true; }

}  // namespace

void LoadBackends(const std::string& backend_dir) {
  static const bool loaded = [&] {
    ggml_backend_load_all_from_path(backend_dir.c_str());
    return ggml_backend_dev_count() > 0;
  }();
  if (!loaded) Fail("no ggml backend found in the backend directory");
}

llama_model* Make(uint32_t n_vocab, uint32_t seed) {
  if (n_vocab < kSpecialAndBytes + 1) Fail("n_vocab below 260");
  gguf_context* meta = gguf_init_empty();
  gguf_set_val_str(meta, "general.architecture", "llama");
  gguf_set_val_u32(meta, "llama.vocab_size", n_vocab);
  gguf_set_val_u32(meta, "llama.context_length", 4096);
  gguf_set_val_u32(meta, "llama.embedding_length", kEmbd);
  gguf_set_val_u32(meta, "llama.feed_forward_length", kFeedForward);
  gguf_set_val_u32(meta, "llama.block_count", kLayers);
  gguf_set_val_u32(meta, "llama.attention.head_count", kHeads);
  gguf_set_val_u32(meta, "llama.attention.head_count_kv", kHeads);
  gguf_set_val_f32(meta, "llama.attention.layer_norm_rms_epsilon", 1e-5f);
  AddVocabulary(meta, n_vocab);
  AddTensorNames(meta);
  llama_model_params params = llama_model_default_params();
  params.progress_callback = Quiet;
  uint32_t user = seed;
  llama_model* model = llama_model_init_from_user(meta, SetTensor, &user, params);
  gguf_free(meta);
  if (model == nullptr) Fail("llama_model_init_from_user failed");
  return model;
}

llama_context* MakeContext(llama_model* model, uint32_t n_ctx) {
  llama_context_params params = llama_context_default_params();
  params.n_ctx = n_ctx;
  params.n_batch = n_ctx;
  params.n_threads = 1;
  params.n_threads_batch = 1;
  params.n_seq_max = 1;
  llama_context* ctx = llama_init_from_model(model, params);
  if (ctx == nullptr) Fail("llama_init_from_model failed");
  return ctx;
}

bool Decode(llama_context* ctx, const std::vector<llama_token>& tokens, int32_t pos) {
  llama_batch batch = llama_batch_init(static_cast<int32_t>(tokens.size()), 0, 1);
  for (size_t i = 0; i < tokens.size(); ++i) {
    batch.token[i] = tokens[i];
    batch.pos[i] = pos + static_cast<int32_t>(i);
    batch.n_seq_id[i] = 1;
    batch.seq_id[i][0] = 0;
    batch.logits[i] = i + 1 == tokens.size();
  }
  batch.n_tokens = static_cast<int32_t>(tokens.size());
  const int32_t rc = llama_decode(ctx, batch);
  llama_batch_free(batch);
  return rc == 0;
}

}  // namespace tiny_model
