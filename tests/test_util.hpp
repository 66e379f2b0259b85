// Helpers shared by the tests: fixture paths, bit comparisons.
#pragma once

#include <bit>
#include <cstdint>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>

namespace exactsample::test {

inline nlohmann::json LoadJson(const std::string& file) {
  std::ifstream in(std::string(EXACTSAMPLE_TEST_DATA) + "/" + file);
  return nlohmann::json::parse(in);
}

inline uint64_t Bits(double v) { return std::bit_cast<uint64_t>(v); }

}  // namespace exactsample::test
