#include "tools/lib/npy.hpp"

#include <bit>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <limits>
#include <optional>
#include <type_traits>

#include "scalar_ref/twins/half.hpp"
#include "tools/lib/input_file.hpp"

namespace exactsample::npy {
namespace {

// The little-endian item of type T at p, on a host of either byte order.
template <class T>
T LoadLittleEndian(const char* p) {
  using U = std::conditional_t<sizeof(T) == 2, uint16_t,
                               std::conditional_t<sizeof(T) == 4, uint32_t, uint64_t>>;
  U u = 0;
  for (size_t b = 0; b < sizeof(T); ++b) {
    u = static_cast<U>(u | U{static_cast<uint8_t>(p[b])} << (8 * b));
  }
  return std::bit_cast<T>(u);
}

constexpr std::string_view kMagic = "\x93NUMPY";

struct Header {
  std::optional<std::string> descr;
  std::optional<bool> fortran_order;
  std::optional<std::vector<uint64_t>> shape;
};

// The header is a Python dict literal such as
//   {'descr': '<f4', 'fortran_order': False, 'shape': (2, 5), }
// Parses exactly that grammar; error() says what did not fit.
class HeaderParser {
 public:
  explicit HeaderParser(std::string_view text) : s_(text) {}

  bool Parse(Header& h) {
    if (!Eat('{')) return Fail("header does not start with '{'");
    while (!Eat('}')) {
      std::string key;
      if (!Quoted(key)) return Fail("expected a quoted key in the header");
      if (!Eat(':')) return Fail("expected ':' after '" + key + "'");
      if (key == "descr") {
        std::string d;
        if (!Quoted(d)) {
          return Fail("structured dtypes are not supported; expected '<f4' (float32), "
                      "'<f8' (float64) or '<f2' (float16)");
        }
        h.descr = d;
      } else if (key == "fortran_order") {
        if (EatWord("True")) {
          h.fortran_order = true;
        } else if (EatWord("False")) {
          h.fortran_order = false;
        } else {
          return Fail("fortran_order is neither True nor False");
        }
      } else if (key == "shape") {
        std::vector<uint64_t> shape;
        if (!Shape(shape)) return false;
        h.shape = shape;
      } else {
        return Fail("unknown header key '" + key + "'");
      }
      if (!Eat(',') && !Peek('}')) return Fail("expected ',' or '}' in the header");
    }
    if (!h.descr || !h.fortran_order || !h.shape) {
      return Fail("header lacks descr, fortran_order or shape");
    }
    return true;
  }

  const std::string& error() const { return error_; }

 private:
  bool Fail(const std::string& why) {
    error_ = why;
    return false;
  }
  void SkipSpace() {
    while (pos_ < s_.size() && (s_[pos_] == ' ' || s_[pos_] == '\t')) ++pos_;
  }
  bool Peek(char c) {
    SkipSpace();
    return pos_ < s_.size() && s_[pos_] == c;
  }
  bool Eat(char c) {
    if (!Peek(c)) return false;
    ++pos_;
    return true;
  }
  bool EatWord(std::string_view w) {
    SkipSpace();
    if (s_.substr(pos_, w.size()) != w) return false;
    pos_ += w.size();
    return true;
  }
  bool Quoted(std::string& out) {
    SkipSpace();
    if (pos_ >= s_.size() || (s_[pos_] != '\'' && s_[pos_] != '"')) return false;
    const size_t end = s_.find(s_[pos_], pos_ + 1);
    if (end == std::string_view::npos) return false;
    out = std::string(s_.substr(pos_ + 1, end - pos_ - 1));
    pos_ = end + 1;
    return true;
  }
  // A tuple of non-negative integers: (), (5,), (2, 5); Python 2 files may
  // write 5L.
  bool Shape(std::vector<uint64_t>& out) {
    if (!Eat('(')) return Fail("shape is not a tuple");
    while (!Eat(')')) {
      SkipSpace();
      uint64_t v = 0;
      size_t digits = 0;
      for (; pos_ < s_.size() && s_[pos_] >= '0' && s_[pos_] <= '9'; ++pos_, ++digits) {
        const uint64_t d = static_cast<uint64_t>(s_[pos_] - '0');
        if (v > (std::numeric_limits<uint64_t>::max() - d) / 10) {
          return Fail("a shape dimension is too large");
        }
        v = v * 10 + d;
      }
      if (digits == 0) return Fail("shape holds something other than integers");
      if (pos_ < s_.size() && s_[pos_] == 'L') ++pos_;
      out.push_back(v);
      if (!Eat(',') && !Peek(')')) return Fail("expected ',' or ')' in the shape");
    }
    return true;
  }

  std::string_view s_;
  size_t pos_ = 0;
  std::string error_;
};

Error Bad(const std::string& name, const std::string& why) {
  return {ErrorCode::invalid_logits, "npy", name + ": " + why};
}

std::string ShapeText(const std::vector<uint64_t>& shape) {
  std::string s = "(";
  for (size_t i = 0; i < shape.size(); ++i) {
    s += (i ? ", " : "") + std::to_string(shape[i]);
  }
  return s + (shape.size() == 1 ? ",)" : ")");
}

uint32_t LittleEndian(std::string_view bytes) {
  uint32_t v = 0;
  for (size_t i = bytes.size(); i-- > 0;) {
    v = (v << 8) | static_cast<uint8_t>(bytes[i]);
  }
  return v;
}

// Explains why a dtype other than '<f4', '<f8' or '<f2' is refused.
std::string DtypeError(const std::string& descr) {
  std::string why = "dtype '" + descr + "' is not supported";
  if (descr.size() > 1 && descr[0] == '>') {
    why += " (big-endian; convert with a.astype('<" + descr.substr(1) + "'))";
  } else if (descr.size() > 1 && descr[1] == 'f') {
    why += " (only float16, float32 and float64)";
  }
  return why + "; expected '<f4' (float32), '<f8' (float64) or '<f2' (float16)";
}

// A finite f64 that rounds beyond the f32 range: refused with the value as
// written, as the replay reader refuses it (only inf and -inf are infinite
// logits).
Error BeyondF32(const std::string& name, const Matrix& m, size_t i, double d) {
  char text[40];
  const auto r = std::to_chars(text, text + sizeof text, d);
  return Bad(name, "row " + std::to_string(i / m.cols) + ", logits[" +
                       std::to_string(i % m.cols) + "] = " + std::string(text, r.ptr) +
                       " is beyond the f32 range (largest 3.4028235e+38); write inf or "
                       "-inf for an infinite logit");
}

}  // namespace

std::optional<Error> Parse(std::string_view bytes, const std::string& name,
                           Matrix& out) {
  if (bytes.size() < kMagic.size() + 2 ||
      bytes.substr(0, kMagic.size()) != kMagic) {
    return Bad(name, "not a .npy file (no \\x93NUMPY magic)");
  }
  const int major = static_cast<uint8_t>(bytes[6]);
  const int minor = static_cast<uint8_t>(bytes[7]);
  if ((major != 1 && major != 2 && major != 3) || minor != 0) {
    return Bad(name, "format version " + std::to_string(major) + "." +
                         std::to_string(minor) +
                         " is not supported (1.0, 2.0 and 3.0 are)");
  }
  // Version 1.0 stores the header length in 2 bytes, 2.0 and 3.0 in 4.
  const size_t len_bytes = major == 1 ? 2 : 4;
  const size_t header_start = 8 + len_bytes;
  if (bytes.size() < header_start) return Bad(name, "truncated header");
  const size_t header_len = LittleEndian(bytes.substr(8, len_bytes));
  if (bytes.size() - header_start < header_len) {
    return Bad(name, "truncated header: it declares " +
                         std::to_string(header_len) + " bytes, the file has " +
                         std::to_string(bytes.size() - header_start));
  }
  HeaderParser parser(bytes.substr(header_start, header_len));
  Header header;
  if (!parser.Parse(header)) return Bad(name, "bad header: " + parser.error());

  const std::string& descr = *header.descr;
  const size_t item = descr == "<f4" ? 4 : descr == "<f8" ? 8 : descr == "<f2" ? 2 : 0;
  if (item == 0) return Bad(name, DtypeError(*header.descr));
  if (*header.fortran_order) {
    return Bad(name, "fortran_order is True; save a C-order array "
                     "(np.ascontiguousarray)");
  }
  const std::vector<uint64_t>& shape = *header.shape;
  if (shape.size() != 1 && shape.size() != 2) {
    return Bad(name, "shape " + ShapeText(shape) +
                         " is not 1-D (one row) or 2-D (rows, V)");
  }
  Matrix m;  // `out` changes only on success
  m.rows = shape.size() == 1 ? 1 : shape[0];
  m.cols = shape.back();
  m.rounded_from_f64 = item == 8;
  if (m.cols != 0 && m.rows > std::numeric_limits<size_t>::max() / m.cols / item) {
    return Bad(name, "shape " + ShapeText(shape) + " is too large");
  }
  const size_t count = m.rows * m.cols;
  const std::string_view data = bytes.substr(header_start + header_len);
  if (data.size() != count * item) {
    return Bad(name, std::string(data.size() < count * item ? "truncated data"
                                                            : "trailing bytes") +
                         ": shape " + ShapeText(shape) + " of " + *header.descr +
                         " needs " + std::to_string(count * item) +
                         " bytes, the file has " + std::to_string(data.size()));
  }
  m.values.resize(count);
  if (item == 2) {
    m.type = LogitType::f16;
    m.words.resize(count);
    for (size_t i = 0; i < count; ++i) {
      m.words[i] = LoadLittleEndian<uint16_t>(data.data() + 2 * i);
      m.values[i] = twins::F16ToF32(m.words[i]);
    }
  } else if (item == 4) {
    for (size_t i = 0; i < count; ++i) m.values[i] = LoadLittleEndian<float>(data.data() + 4 * i);
  } else {
    for (size_t i = 0; i < count; ++i) {
      const double d = LoadLittleEndian<double>(data.data() + 8 * i);
      m.values[i] = static_cast<float>(d);
      if (std::isinf(m.values[i]) && !std::isinf(d)) return BeyondF32(name, m, i, d);
    }
  }
  out = std::move(m);
  return std::nullopt;
}

std::optional<Error> Read(const std::string& path, Matrix& out) {
  const auto bytes = ReadInputFile(path);
  if (!bytes) return bytes.error();
  return Parse(*bytes, path, out);
}

}  // namespace exactsample::npy
