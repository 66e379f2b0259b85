// The .npy reader on files the test writes byte by byte (no numpy needed).
#include "tools/lib/npy.hpp"

#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <string>
#include <type_traits>
#include <vector>

namespace exactsample {
namespace {

// A .npy file: magic, version, header length, the header dict padded with
// spaces and a newline to a multiple of 64 bytes (as numpy writes it), data.
std::string Npy(const std::string& dict, const std::string& data, int major = 1) {
  const size_t len_bytes = major == 1 ? 2 : 4;
  std::string header = dict;
  while ((8 + len_bytes + header.size() + 1) % 64 != 0) header += ' ';
  header += '\n';
  std::string out = "\x93NUMPY";
  out += static_cast<char>(major);
  out += '\0';
  for (size_t i = 0; i < len_bytes; ++i) {
    out += static_cast<char>((header.size() >> (8 * i)) & 0xff);
  }
  return out + header + data;
}

std::string Dict(const std::string& descr, const std::string& shape,
                 const std::string& fortran = "False") {
  return "{'descr': '" + descr + "', 'fortran_order': " + fortran +
         ", 'shape': " + shape + ", }";
}

// The values' little-endian bytes, as a '<f4' or '<f8' file holds them,
// whatever the host's byte order.
template <class T>
std::string Bytes(const std::vector<T>& values) {
  using U = std::conditional_t<sizeof(T) == 4, uint32_t, uint64_t>;
  std::string s;
  for (const T v : values) {
    const U u = std::bit_cast<U>(v);
    for (size_t b = 0; b < sizeof(T); ++b) s += static_cast<char>((u >> (8 * b)) & 0xff);
  }
  return s;
}

npy::Matrix Good(const std::string& bytes) {
  npy::Matrix m;
  const auto e = npy::Parse(bytes, "t.npy", m);
  EXPECT_FALSE(e) << e->message;
  return m;
}

// The message of the refusal, "" if the file was accepted.
std::string Refusal(const std::string& bytes) {
  npy::Matrix m;
  const auto e = npy::Parse(bytes, "t.npy", m);
  if (!e) return "";
  EXPECT_EQ(e->message.rfind("t.npy: ", 0), 0u) << e->message;
  EXPECT_EQ(e->code, ErrorCode::invalid_logits);
  return e->message;
}

uint32_t Bits(float v) { return std::bit_cast<uint32_t>(v); }

TEST(Npy, ReadsF32RowsInCOrder) {
  const std::vector<float> v{1.5f, -INFINITY, 0.1f, -0.0f, 3e38f, 7.0f};
  const npy::Matrix m = Good(Npy(Dict("<f4", "(2, 3)"), Bytes(v)));
  ASSERT_EQ(m.rows, 2u);
  ASSERT_EQ(m.cols, 3u);
  EXPECT_FALSE(m.rounded_from_f64);
  for (size_t i = 0; i < v.size(); ++i) EXPECT_EQ(Bits(m.values[i]), Bits(v[i])) << i;
  EXPECT_EQ(Bits(m.row(1)[0]), Bits(-0.0f));
}

TEST(Npy, OneDimensionalIsOneRow) {
  const npy::Matrix m = Good(Npy(Dict("<f4", "(4,)"), Bytes<float>({1, 2, 3, 4})));
  EXPECT_EQ(m.rows, 1u);
  EXPECT_EQ(m.cols, 4u);
}

TEST(Npy, F64IsRoundedToNearestF32) {
  // 1 + 2^-24 lies halfway between 1 and the next f32: ties go to even (1);
  // 1 + 3 * 2^-24 rounds up to 1 + 2^-22; the largest f32 plus less than
  // half its ulp (2^103) rounds to it; infinities stay.
  const double largest = 0x1.fffffep127;
  const std::vector<double> v{0.1, 1.0 + 0x1p-24, 1.0 + 3 * 0x1p-24, largest + 0x1p102,
                              INFINITY, -INFINITY};
  const npy::Matrix m = Good(Npy(Dict("<f8", "(6,)"), Bytes(v), 2));
  EXPECT_TRUE(m.rounded_from_f64);
  const std::vector<float> want{0.1f, 1.0f, 1.0f + 0x1p-22f, 0x1.fffffep127f, INFINITY,
                                -INFINITY};
  for (size_t i = 0; i < want.size(); ++i) EXPECT_EQ(Bits(m.values[i]), Bits(want[i])) << i;
}

// A finite f64 that rounds beyond the f32 range is refused with its row,
// column and value as written, as the replay reader refuses it.
TEST(Npy, F64BeyondF32IsRefused) {
  for (const auto& [value, text] : {std::pair{1e300, "1e+300"}, std::pair{-1e39, "-1e+39"},
                                    std::pair{0x1.fffffep127 + 0x1p103, "3.4028235677973366e+38"}}) {
    EXPECT_EQ(Refusal(Npy(Dict("<f8", "(2, 2)"), Bytes<double>({0.0, 1.0, 2.0, value}), 2)),
              std::string("t.npy: row 1, logits[1] = ") + text +
                  " is beyond the f32 range (largest 3.4028235e+38); write inf or -inf for an "
                  "infinite logit");
  }
}

// '<f2': the words as little-endian bytes, kept (Matrix::words, row16) and
// widened exactly into values: subnormals, signed zeros, infinities, NaN.
TEST(Npy, F16KeepsItsWordsAndWidensExactly) {
  const std::vector<uint16_t> words{0x3C00, 0x0001, 0x8000, 0x7BFF, 0xFC00, 0x7C00, 0x7E00,
                                    0xC500};
  std::string data;
  for (uint16_t w : words) {
    data += static_cast<char>(w & 0xFF);
    data += static_cast<char>(w >> 8);
  }
  const npy::Matrix m = Good(Npy(Dict("<f2", "(2, 4)"), data));
  EXPECT_EQ(m.type, LogitType::f16);
  EXPECT_FALSE(m.rounded_from_f64);
  ASSERT_EQ(m.words, words);
  EXPECT_EQ(m.row16(1)[0], 0xFC00);
  const std::vector<float> want{1.0f, 0x1p-24f, -0.0f, 65504.0f, -INFINITY, INFINITY, NAN,
                                -5.0f};
  for (size_t i = 0; i < want.size(); ++i) {
    if (std::isnan(want[i])) {
      EXPECT_TRUE(std::isnan(m.values[i])) << i;
    } else {
      EXPECT_EQ(Bits(m.values[i]), Bits(want[i])) << i;
    }
  }
  // An f32 file has no words.
  EXPECT_TRUE(Good(Npy(Dict("<f4", "(2,)"), Bytes<float>({1, 2}))).words.empty());
  EXPECT_NE(Refusal(Npy(Dict("<f2", "(3,)"), data)).find("trailing bytes"), std::string::npos);
}

TEST(Npy, AcceptsVersionsOneTwoThreeAndPythonTwoShapes) {
  const std::string data = Bytes<float>({1, 2});
  for (int major : {1, 2, 3}) {
    EXPECT_EQ(Good(Npy(Dict("<f4", "(1, 2)"), data, major)).cols, 2u) << major;
  }
  // Key order is free, double quotes and Python 2's 2L appear in old files.
  const npy::Matrix m =
      Good(Npy("{\"shape\": (1L, 2L), \"fortran_order\": False, \"descr\": \"<f4\"}", data));
  EXPECT_EQ(m.rows, 1u);
  EXPECT_EQ(m.cols, 2u);
  EXPECT_EQ(Good(Npy(Dict("<f4", "(0, 5)"), "")).rows, 0u);
}

TEST(Npy, RefusesOtherDtypesByName) {
  const std::string four = Bytes<float>({1, 2});
  EXPECT_NE(Refusal(Npy(Dict(">f4", "(2,)"), four)).find("big-endian"), std::string::npos);
  EXPECT_NE(Refusal(Npy(Dict("<f16", "(1,)"), four + four)).find("only float16, float32 and float64"),
            std::string::npos);
  // Big-endian f16: refused, with the conversion that fixes it.
  EXPECT_NE(Refusal(Npy(Dict(">f2", "(4,)"), four)).find("a.astype('<f2')"), std::string::npos);
  EXPECT_NE(Refusal(Npy(Dict("<i4", "(2,)"), four)).find("dtype '<i4' is not supported"),
            std::string::npos);
  EXPECT_NE(Refusal(Npy(Dict("|f4", "(2,)"), four)).find("'|f4'"), std::string::npos);
  EXPECT_NE(Refusal(Npy("{'descr': [('a', '<f4')], 'fortran_order': False, 'shape': (2,), }",
                        four))
                .find("structured"),
            std::string::npos);
}

TEST(Npy, RefusesFortranOrderAndOtherShapes) {
  const std::string six = Bytes<float>({1, 2, 3, 4, 5, 6});
  EXPECT_NE(Refusal(Npy(Dict("<f4", "(2, 3)", "True"), six)).find("fortran_order is True"),
            std::string::npos);
  EXPECT_NE(Refusal(Npy(Dict("<f4", "(1, 2, 3)"), six)).find("shape (1, 2, 3) is not 1-D"),
            std::string::npos);
  EXPECT_NE(Refusal(Npy(Dict("<f4", "()"), Bytes<float>({1}))).find("shape ()"),
            std::string::npos);
}

TEST(Npy, RefusesBadMagicVersionAndTruncation) {
  const std::string good = Npy(Dict("<f4", "(2, 3)"), Bytes<float>({1, 2, 3, 4, 5, 6}));
  EXPECT_EQ(Refusal(good), "");
  std::string magic = good;
  magic[1] = 'X';
  EXPECT_NE(Refusal(magic).find("no \\x93NUMPY magic"), std::string::npos);
  EXPECT_NE(Refusal("PK\x03\x04").find("magic"), std::string::npos);
  std::string version = good;
  version[6] = 4;
  EXPECT_NE(Refusal(version).find("format version 4.0"), std::string::npos);
  EXPECT_NE(Refusal(good.substr(0, 9)).find("truncated header"), std::string::npos);
  EXPECT_NE(Refusal(good.substr(0, 40)).find("truncated header"), std::string::npos);
  EXPECT_NE(Refusal(good.substr(0, good.size() - 1)).find("truncated data"),
            std::string::npos);
  EXPECT_NE(Refusal(good + "x").find("trailing bytes"), std::string::npos);
  EXPECT_NE(Refusal(Npy("{'descr': '<f4', 'shape': (2,), }", Bytes<float>({1, 2})))
                .find("lacks"),
            std::string::npos);
  EXPECT_NE(Refusal(Npy(Dict("<f4", "(99999999999999999999999,)"), "")).find("too large"),
            std::string::npos);
}

TEST(Npy, ReadsAFileAndNamesAMissingOne) {
  const std::string path = ::testing::TempDir() + "npy_test.npy";
  std::ofstream(path, std::ios::binary) << Npy(Dict("<f4", "(3,)"), Bytes<float>({4, 5, 6}));
  npy::Matrix m;
  ASSERT_FALSE(npy::Read(path, m));
  EXPECT_EQ(m.values, (std::vector<float>{4, 5, 6}));
  const auto e = npy::Read(path + ".missing", m);
  ASSERT_TRUE(e);
  EXPECT_NE(e->message.find("npy_test.npy.missing: cannot open"), std::string::npos);
  EXPECT_EQ(m.values.size(), 3u);  // unchanged by the failed read
}

}  // namespace
}  // namespace exactsample
