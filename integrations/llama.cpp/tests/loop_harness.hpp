// What the llama.cpp loop tests share: the models (made once per process),
// llama.cpp's log captured, parameters and extras, a sampler that records the candidate array it is
// handed, the direct call (the reference engine's stateless C ABI call with
// the full history) and the dumps tests/check_dumps.py samples again.
#ifndef EXACTSAMPLE_LLAMA_TESTS_LOOP_HARNESS_HPP_
#define EXACTSAMPLE_LLAMA_TESTS_LOOP_HARNESS_HPP_

#include <cstdint>
#include <string>
#include <vector>

#include "exactsample.h"
#include "llama.h"

namespace loop {

// The model of n_vocab tokens (weights from a fixed seed), made on first use
// and kept for the program's life; the CPU backends are loaded from
// $EXACTSAMPLE_LLAMA_BACKENDS first.
llama_model* Model(uint32_t n_vocab);
const llama_vocab* Vocab(uint32_t n_vocab);

// llama.cpp's error messages since the last call (and clears them); the
// others are dropped so that the test output stays readable.
std::vector<std::string> TakeErrors();

// Parameters with these fields, the others the spec's defaults.
exactsample_params Params(double temperature, double repetition, double presence,
                          double frequency, int64_t top_k, double top_p, double min_p,
                          int64_t last_n);

// A logit bias and a ban on ids every model here has.
struct TestExtras {
  std::vector<int32_t> bias_ids = {300, 301, 302, 331};
  std::vector<double> bias_values = {2.5, -1.0, 4.0, 1.5};
  std::vector<int32_t> banned = {303, 304, 305};
  exactsample_extras extras{};  // views the vectors above
  TestExtras();
  TestExtras(const TestExtras&) = delete;
  TestExtras& operator=(const TestExtras&) = delete;
};

// A llama_sampler that records the candidates it is given (and changes
// nothing), placed before exactsample in a chain. Row(): the V-row they make,
// -inf for every id not in the array.
struct Recorder {
  llama_sampler* sampler;  // owned by the chain it is added to
  std::vector<llama_token_data> seen;
  std::vector<float> Row(size_t vocab) const;
};
Recorder* NewRecorder();

// exactsample called directly: the stateless C ABI call of the reference
// engine, the request's full prompt and generated ids passed every time.
class Direct {
 public:
  Direct(const exactsample_params& params, const exactsample_extras* extras, uint64_t seed,
         std::vector<int32_t> prompt);
  ~Direct();
  Direct(const Direct&) = delete;
  Direct& operator=(const Direct&) = delete;
  // The next token on `row` (V values); appended to the generated ids.
  // kept_ids/kept_probs get the final kept set. Fails the test on an error.
  exactsample_token Next(const std::vector<float>& row, std::vector<int32_t>* kept_ids = nullptr,
                         std::vector<double>* kept_probs = nullptr);
  // A generated token chosen elsewhere (no draw).
  void Accept(int32_t id) { generated_.push_back(id); }
  const exactsample_rng& rng() const { return rng_; }
  const std::vector<int32_t>& generated() const { return generated_; }

 private:
  exactsample_sampler* sampler_ = nullptr;
  exactsample_params params_;
  const exactsample_extras* extras_;
  exactsample_rng rng_{};
  std::vector<int32_t> prompt_;
  std::vector<int32_t> generated_;
};

// One dumped step: the row, the request before it and the token it gave,
// appended to $EXACTSAMPLE_LLAMA_DUMPS/cases.jsonl (rows in <name>.f32) when
// that variable is set.
void Dump(const std::string& name, const std::vector<float>& row,
          const std::vector<int32_t>& prompt, const std::vector<int32_t>& generated,
          const exactsample_params& params, const exactsample_extras* extras,
          const exactsample_rng& rng_before, const exactsample_token& token);

// Bits of a double, for exact comparison.
uint64_t Bits(double v);

}  // namespace loop

#endif  // EXACTSAMPLE_LLAMA_TESTS_LOOP_HARNESS_HPP_
