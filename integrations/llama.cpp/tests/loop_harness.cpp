#include "loop_harness.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <map>
#include <memory>
#include <mutex>

#include "tiny_model.hpp"

namespace loop {
namespace {

std::mutex g_log_mutex;
std::vector<std::string> g_errors;

void Capture(ggml_log_level level, const char* text, void*) {
  if (level != GGML_LOG_LEVEL_ERROR) return;
  std::lock_guard<std::mutex> lock(g_log_mutex);
  g_errors.emplace_back(text);
}

// llama.cpp's log goes to Capture from the first model on.
void InstallLog() {
  static const bool installed = [] {
    llama_log_set(Capture, nullptr);
    return true;
  }();
  (void)installed;
}

std::string Env(const char* name) {
  const char* v = std::getenv(name);
  return v == nullptr ? std::string() : std::string(v);
}

const char* RecorderName(const llama_sampler*) { return "recorder"; }
void RecorderApply(llama_sampler* smpl, llama_token_data_array* cur) {
  auto* r = static_cast<Recorder*>(smpl->ctx);
  r->seen.assign(cur->data, cur->data + cur->size);
}
void RecorderFree(llama_sampler* smpl) { delete static_cast<Recorder*>(smpl->ctx); }

llama_sampler_i RecorderInterface() {
  llama_sampler_i i{};
  i.name = RecorderName;
  i.apply = RecorderApply;
  i.free = RecorderFree;
  return i;
}
llama_sampler_i g_recorder = RecorderInterface();

}  // namespace

llama_model* Model(uint32_t n_vocab) {
  static std::map<uint32_t, llama_model*> models;
  InstallLog();
  llama_model*& m = models[n_vocab];
  if (m == nullptr) {
    const std::string backends = Env("EXACTSAMPLE_LLAMA_BACKENDS");
    if (backends.empty()) {
      ADD_FAILURE() << "EXACTSAMPLE_LLAMA_BACKENDS (the directory of the ggml backends) is not set";
      std::abort();
    }
    tiny_model::LoadBackends(backends);
    m = tiny_model::Make(n_vocab, 20250101u + n_vocab);
  }
  return m;
}

const llama_vocab* Vocab(uint32_t n_vocab) { return llama_model_get_vocab(Model(n_vocab)); }

std::vector<std::string> TakeErrors() {
  std::lock_guard<std::mutex> lock(g_log_mutex);
  std::vector<std::string> out;
  out.swap(g_errors);
  return out;
}

exactsample_params Params(double temperature, double repetition, double presence,
                          double frequency, int64_t top_k, double top_p, double min_p,
                          int64_t last_n) {
  exactsample_params p;
  exactsample_params_init(&p);
  p.temperature = temperature;
  p.repetition_penalty = repetition;
  p.presence_penalty = presence;
  p.frequency_penalty = frequency;
  p.top_k = top_k;
  p.top_p = top_p;
  p.min_p = min_p;
  p.penalty_last_n = last_n;
  return p;
}

TestExtras::TestExtras() {
  extras.struct_size = sizeof extras;
  extras.bias_ids = bias_ids.data();
  extras.bias_values = bias_values.data();
  extras.bias_len = bias_ids.size();
  extras.banned_ids = banned.data();
  extras.banned_len = banned.size();
}

std::vector<float> Recorder::Row(size_t vocab) const {
  std::vector<float> row(vocab, -std::numeric_limits<float>::infinity());
  for (const llama_token_data& d : seen) row.at(static_cast<size_t>(d.id)) = d.logit;
  return row;
}

Recorder* NewRecorder() {
  auto* r = new Recorder;
  r->sampler = llama_sampler_init(&g_recorder, r);
  return r;
}

Direct::Direct(const exactsample_params& params, const exactsample_extras* extras, uint64_t seed,
               std::vector<int32_t> prompt)
    : params_(params), extras_(extras), prompt_(std::move(prompt)) {
  EXPECT_EQ(exactsample_sampler_create(EXACTSAMPLE_ENGINE_REFERENCE, &sampler_), EXACTSAMPLE_OK);
  EXPECT_EQ(exactsample_rng_stream(seed, EXACTSAMPLE_PURPOSE_SAMPLE, &rng_), EXACTSAMPLE_OK);
}

Direct::~Direct() { exactsample_sampler_destroy(sampler_); }

exactsample_token Direct::Next(const std::vector<float>& row, std::vector<int32_t>* kept_ids,
                               std::vector<double>* kept_probs) {
  std::vector<int32_t> ids(row.size());
  std::vector<double> probs(row.size());
  size_t kept = 0;
  double logprob = 0.0;
  exactsample_request r{};
  r.struct_size = sizeof r;
  r.logits = row.data();
  r.logits_type = EXACTSAMPLE_LOGITS_F32;
  r.vocab = row.size();
  r.prompt = prompt_.data();
  r.prompt_len = prompt_.size();
  r.generated = generated_.data();
  r.generated_len = generated_.size();
  r.rng = &rng_;
  r.params = &params_;
  r.extras = extras_;
  r.logprob = &logprob;
  r.kept_ids = ids.data();
  r.kept_probs = probs.data();
  r.kept_capacity = ids.size();
  r.kept_count = &kept;
  exactsample_token t{};
  const exactsample_status status = exactsample_sample_request(sampler_, nullptr, &r, &t);
  EXPECT_EQ(status, EXACTSAMPLE_OK) << exactsample_sampler_last_error(sampler_);
  t.logprob = logprob;
  generated_.push_back(t.id);
  ids.resize(kept);
  probs.resize(kept);
  if (kept_ids != nullptr) *kept_ids = ids;
  if (kept_probs != nullptr) *kept_probs = probs;
  return t;
}

namespace {

void JsonIds(std::FILE* f, const char* key, const int32_t* ids, size_t n) {
  std::fprintf(f, "\"%s\": [", key);
  for (size_t i = 0; i < n; ++i) std::fprintf(f, i == 0 ? "%d" : ", %d", ids[i]);
  std::fprintf(f, "]");
}

}  // namespace

void Dump(const std::string& name, const std::vector<float>& row,
          const std::vector<int32_t>& prompt, const std::vector<int32_t>& generated,
          const exactsample_params& params, const exactsample_extras* extras,
          const exactsample_rng& rng_before, const exactsample_token& token) {
  static const std::string dir = [] {
    const std::string d = Env("EXACTSAMPLE_LLAMA_DUMPS");
    if (!d.empty()) {
      std::filesystem::remove_all(d);  // the rows of this run only
      std::filesystem::create_directories(d);
    }
    return d;
  }();
  static std::map<std::string, size_t> rows;
  if (dir.empty()) return;
  std::ofstream(dir + "/" + name + ".f32", std::ios::binary | std::ios::app)
      .write(reinterpret_cast<const char*>(row.data()),
             static_cast<std::streamsize>(row.size() * sizeof(float)));
  std::FILE* f = std::fopen((dir + "/cases.jsonl").c_str(), "a");
  ASSERT_NE(f, nullptr);
  std::fprintf(f, "{\"rows\": \"%s.f32\", \"row\": %zu, \"vocab\": %zu, ", name.c_str(),
               rows[name]++, row.size());
  JsonIds(f, "prompt", prompt.data(), prompt.size());
  std::fprintf(f, ", ");
  JsonIds(f, "generated", generated.data(), generated.size());
  std::fprintf(f,
               ", \"params\": {\"temperature\": \"%a\", \"repetition_penalty\": \"%a\", "
               "\"presence_penalty\": \"%a\", \"frequency_penalty\": \"%a\", \"top_k\": %lld, "
               "\"top_p\": \"%a\", \"min_p\": \"%a\", \"penalty_last_n\": %lld}",
               params.temperature, params.repetition_penalty, params.presence_penalty,
               params.frequency_penalty, static_cast<long long>(params.top_k), params.top_p,
               params.min_p, static_cast<long long>(params.penalty_last_n));
  std::fprintf(f, ", ");
  JsonIds(f, "bias_ids", extras ? extras->bias_ids : nullptr, extras ? extras->bias_len : 0);
  std::fprintf(f, ", \"bias_values\": [");
  for (size_t i = 0; extras != nullptr && i < extras->bias_len; ++i) {
    std::fprintf(f, i == 0 ? "\"%a\"" : ", \"%a\"", extras->bias_values[i]);
  }
  std::fprintf(f, "], ");
  JsonIds(f, "banned", extras ? extras->banned_ids : nullptr, extras ? extras->banned_len : 0);
  std::fprintf(f,
               ", \"rng\": [%llu, %llu], \"id\": %d, \"logprob\": \"%a\"}\n",
               static_cast<unsigned long long>(rng_before.state),
               static_cast<unsigned long long>(rng_before.inc), token.id, token.logprob);
  std::fclose(f);
}

uint64_t Bits(double v) {
  uint64_t b;
  std::memcpy(&b, &v, sizeof b);
  return b;
}

}  // namespace loop
