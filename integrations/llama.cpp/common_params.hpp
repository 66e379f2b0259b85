// llama.cpp's common sampling parameters and sampler chains as the library's
// exactsample_params (exactsample_llama.h, docs/llama-cpp.md): the order from
// common's names or a chain's sampler names, the fields mapped as common
// builds its chain, the DRY breaker strings turned into ids with the vocab.
// C++17, as llama.cpp builds.
#ifndef EXACTSAMPLE_LLAMA_COMMON_PARAMS_HPP_
#define EXACTSAMPLE_LLAMA_COMMON_PARAMS_HPP_

#include <cstdint>
#include <string>
#include <vector>

#include "exactsample_llama.h"

namespace exactsample_llama {

// The params and the arrays they point at (the steps, the breakers' ids).
struct Mapped {
  exactsample_params params{};
  std::vector<int32_t> steps;
  std::vector<std::vector<int32_t>> breaker_ids;
  std::vector<exactsample_ids> breakers;
  Mapped() = default;
  Mapped(const Mapped&) = delete;  // params points into the vectors
  Mapped& operator=(const Mapped&) = delete;
};

// Fill `out` from common's fields, the order from common.samplers; "" or
// what is wrong (the field and the value).
std::string FromCommon(const llama_vocab* vocab, const exactsample_llama_common& common,
                       Mapped& out);

// The same with the order of `chain`'s samplers in place of
// common.samplers.
std::string FromChain(const llama_vocab* vocab, llama_sampler* chain,
                      const exactsample_llama_common& common, Mapped& out);

}  // namespace exactsample_llama

#endif  // EXACTSAMPLE_LLAMA_COMMON_PARAMS_HPP_
