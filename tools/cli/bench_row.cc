#include "tools/cli/bench_row.hpp"

#include <bit>
#include <cstdint>

#include "tools/lib/input_file.hpp"
#include "tools/lib/npy.hpp"
#include "tools/lib/standard_inputs.hpp"

namespace exactsample::cli {
namespace {

Error RowFileError(const std::string& path, const std::string& why) {
  return {ErrorCode::invalid_logits, "logits", path + ": " + why};
}

// The file's bytes as little-endian f32 values, whatever the host's order.
Result<std::vector<float>> ReadRawF32(const std::string& path) {
  const auto bytes = ReadInputFile(path);
  if (!bytes) return bytes.error();
  if (bytes->empty()) return RowFileError(path, "empty, no logits");
  if (bytes->size() % 4 != 0) {
    return RowFileError(path, std::to_string(bytes->size()) +
                                  " bytes is not a multiple of 4 (raw little-endian f32 values)");
  }
  std::vector<float> x(bytes->size() / 4);
  for (size_t i = 0; i < x.size(); ++i) {
    uint32_t word = 0;
    for (int b = 3; b >= 0; --b) {
      word = word << 8 | static_cast<uint8_t>((*bytes)[4 * i + static_cast<size_t>(b)]);
    }
    x[i] = std::bit_cast<float>(word);
  }
  return x;
}

Result<std::vector<float>> ReadNpyRow(const std::string& path) {
  npy::Matrix m;
  if (auto e = npy::Read(path, m)) return *e;
  if (m.rows != 1) {
    return RowFileError(path, std::to_string(m.rows) +
                                  " rows; bench times one row: give shape "
                                  "(V,) or (1, V), e.g. a[0]");
  }
  return std::move(m.values);
}

}  // namespace

Result<std::vector<float>> ReadBenchRow(const std::string& path) {
  if (path == "-" || path.ends_with(".npy")) return ReadNpyRow(path);
  if (path.ends_with(".f32")) return ReadRawF32(path);
  return RowFileError(path,
                      "unknown kind of file: give FILE.npy, or raw little-endian f32 "
                      "values as FILE.f32");
}

Result<std::vector<float>> BenchRowOf(const std::string& path, size_t vocab, uint64_t row_seed) {
  std::vector<float> logits;
  if (path.empty()) {
    logits = StandardRow(vocab, row_seed != 0 ? row_seed : kStandardRowSeed);
  } else {
    auto read = ReadBenchRow(path);
    if (!read) return read.error();
    logits = std::move(read.value());
  }
  if (auto v = validate(Request{logits, {}, {}, {}}); !v) return v.error();
  return logits;
}

}  // namespace exactsample::cli
