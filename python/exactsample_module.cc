// The Python module exactsample._exactsample (re-exported by the package
// exactsample): the C++ API on numpy arrays, torch CPU tensors and any
// object with the buffer protocol, reading contiguous f32 rows in place and
// sampling with the GIL released.
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <algorithm>
#include <bit>
#include <cstdint>
#include <cstring>
#include <span>
#include <string>
#include <string_view>
#include <unordered_set>
#include <utility>
#include <vector>

#include "exactsample/batch.hpp"
#include "exactsample/exactsample.hpp"
#include "exactsample/targets.hpp"
#include "exactsample/testing.hpp"
#include "batch_outputs.hpp"
#include "breakers.hpp"
#include "call_guard.hpp"
#include "module_inputs.hpp"

namespace py = pybind11;
namespace xs = exactsample;
using namespace pybind11::literals;

namespace {

// exactsample.SampleError, created at import.
PyObject* g_sample_error = nullptr;

// Thrown in the binding, raised in Python as a SampleError.
struct SampleErrorThrow {
  xs::Error error;
};

[[noreturn]] void Raise(xs::ErrorCode code, std::string field, std::string message) {
  throw SampleErrorThrow{xs::Error{code, std::move(field), std::move(message)}};
}

const char* CodeName(xs::ErrorCode code) {
  switch (code) {
    case xs::ErrorCode::invalid_parameter: return "invalid_parameter";
    case xs::ErrorCode::invalid_logits: return "invalid_logits";
    case xs::ErrorCode::invalid_ids: return "invalid_ids";
    case xs::ErrorCode::out_of_memory: return "out_of_memory";
    case xs::ErrorCode::degenerate: break;
  }
  return "degenerate";
}

// A SampleError instance: str() is the C++ message; .field and .code. A
// field of the library's that a Constraints holds (logit_bias,
// allowed_token_ids, ...) is named where the caller put it:
// "constraints.logit_bias", in the message too.
py::object SampleErrorObject(const xs::Error& e) {
  std::string field = e.field, message = e.message;
  for (const char* held : {"logit_bias", "allowed_token_ids", "banned_token_ids",
                           "allowed_bitmask"}) {
    if (field != held) continue;
    field = "constraints." + field;
    if (message.rfind(held, 0) == 0) message = "constraints." + message;
  }
  py::object error = py::reinterpret_borrow<py::object>(g_sample_error)(message);
  error.attr("field") = field;
  error.attr("code") = CodeName(e.code);
  return error;
}

// --------------------------------------------------------------- inputs

// One row or a rows x V block (f32, or 16-bit words of f16 or bf16) as the
// library reads it: the caller's memory when each row is contiguous and
// aligned, else a packed copy (`data` then points into `copy` or `copy16`,
// whose buffers move with them).
struct Rows {
  // Keeps the memory alive while the GIL is released. A py::object, not a
  // py::array: pybind11's default array constructor makes a numpy array.
  py::object owner;
  const char* data = nullptr;
  ssize_t rows = 0, vocab = 0, row_stride = 0;  // row_stride in bytes
  xs::LogitType type = xs::LogitType::f32;
  std::vector<float> copy;  // used only for strided or unaligned input
  std::vector<uint16_t> copy16;

  const void* Address(ssize_t i) const { return data + i * row_stride; }
  // `request` reading row i.
  xs::Request Apply(xs::Request request, ssize_t i) const {
    request.logits_type = type;
    if (type == xs::LogitType::f32) {
      request.logits = {static_cast<const float*>(Address(i)), static_cast<size_t>(vocab)};
    } else {
      request.logits16 = {static_cast<const uint16_t*>(Address(i)), static_cast<size_t>(vocab)};
    }
    return request;
  }
};

std::string TypeName(py::handle obj) {
  return py::str(py::type::handle_of(obj).attr("__qualname__"));
}

// ------------------------------------------- tensors as runtimes hold them

bool IsTorchTensor(py::handle obj) {
  if (py::isinstance<py::array>(obj)) return false;  // the common case, without lookups
  const py::handle type = py::type::handle_of(obj);
  return std::string(py::str(type.attr("__module__"))).rfind("torch", 0) == 0 &&
         py::hasattr(obj, "device") && py::hasattr(obj, "requires_grad");
}

// A torch tensor as the buffer protocol can read it, in place: a bfloat16
// tensor as its 16-bit words (with *dtype set to "bf16"); any other object
// as it is. A tensor whose memory cannot be read here gets a SampleError
// naming the fix.
py::object Readable(py::handle obj, py::object* dtype, const char* field) {
  const auto same = py::reinterpret_borrow<py::object>(obj);
  if (!IsTorchTensor(obj)) return same;
  const std::string f(field);
  const std::string device = py::str(obj.attr("device").attr("type"));
  if (device == "meta") {
    Raise(xs::ErrorCode::invalid_logits, f,
          f + ": a meta tensor holds no values (only a shape and a dtype): pass the "
              "tensor the model computed");
  }
  if (device != "cpu") {
    Raise(xs::ErrorCode::invalid_logits, f,
          f + ": a tensor on device " + std::string(py::str(obj.attr("device"))) +
              ": copy it to the CPU first with t.cpu()");
  }
  if (obj.attr("requires_grad").cast<bool>()) {
    Raise(xs::ErrorCode::invalid_logits, f,
          f + ": a tensor that requires grad: pass t.detach() (the same memory, no copy)");
  }
  const py::module_ torch = py::module_::import("torch");
  if (dtype != nullptr && obj.attr("dtype").is(torch.attr("bfloat16"))) {
    if (!dtype->is_none() && std::string(py::str(*dtype)) != "bf16") {
      Raise(xs::ErrorCode::invalid_parameter, "dtype",
            "dtype = " + std::string(py::repr(*dtype)) + " for a bfloat16 tensor: leave it "
            "out (or pass 'bf16')");
    }
    *dtype = py::str("bf16");
    return obj.attr("view")(torch.attr("int16"));
  }
  return same;
}

// An allowed_bitmask as uint32 words read in place: numpy or torch, uint32
// or int32 (xgrammar's bitmasks are int32: bit i % 32 of word i / 32, the
// same bits); None when the object is none of those.
py::object BitmaskWords(py::handle bitmask) {
  py::array a = py::array::ensure(Readable(bitmask, nullptr, "constraints.allowed_bitmask"));
  if (!a || a.ndim() != 1) return py::none();
  if (a.dtype().equal(py::dtype::of<int32_t>())) return a.attr("view")(py::dtype::of<uint32_t>());
  if (a.dtype().equal(py::dtype::of<uint32_t>())) return a;
  return py::none();
}

// The row type of array `a` given the dtype keyword (None, "f32", "f16" or
// "bf16"): float32 and float16 arrays are f32 and f16 rows, 16-bit integer
// arrays are words of the type the keyword names (bf16 has no numpy dtype).
xs::LogitType RowType(const py::array& a, py::handle dtype, const char* field) {
  // From the dtype's type number and byte order: comparing dtype objects
  // costs a numpy call (and a dtype made) each, on every call.
  using api = py::detail::npy_api;
  constexpr int kHalf = 23;  // numpy's NPY_HALF, which pybind11 does not name
  const py::dtype dt = a.dtype();
  const char order = dt.byteorder();
  const bool native = order == '=' || order == '|' ||
                      order == (std::endian::native == std::endian::little ? '<' : '>');
  const int num = native ? dt.num() : -1;
  const bool f32 = num == api::NPY_FLOAT_;
  const bool f16 = num == kHalf;
  const bool words = num == api::NPY_USHORT_ || num == api::NPY_SHORT_;
  const std::string name = dtype.is_none() ? "" : std::string(py::str(dtype));
  if (!name.empty() && name != "f32" && name != "f16" && name != "bf16") {
    Raise(xs::ErrorCode::invalid_parameter, "dtype",
          "dtype = " + std::string(py::repr(dtype)) + ": must be 'f32', 'f16' or 'bf16'");
  }
  if ((name.empty() || name == "f32") && f32) return xs::LogitType::f32;
  if ((name.empty() || name == "f16") && f16) return xs::LogitType::f16;
  if (name == "f16" && words) return xs::LogitType::f16;
  if (name == "bf16" && words) return xs::LogitType::bf16;
  // (str() of a dtype costs microseconds: only here, for the message.)
  std::string why = std::string(field) + ": dtype " + std::string(py::str(a.dtype()));
  if (name.empty()) {
    why += words ? "; 16-bit words need dtype='bf16' or dtype='f16' to say which"
                 : "; logits are float32 or float16 (native byte order), or 16-bit words "
                   "with dtype='bf16': convert with a.astype(numpy.float32) or t.float(), "
                   "or pass a torch bfloat16 tensor as it is";
  } else {
    why += " does not hold " + name + " logits: " +
           (name == "f32" ? std::string("pass a float32 array")
                          : "pass 16-bit words (uint16 or int16)" +
                                std::string(name == "f16" ? " or a float16 array" : ""));
  }
  Raise(xs::ErrorCode::invalid_logits, field, why);
}

// `ndim` is 1 for sample and 2 for sample_batch. Errors say what to pass.
Rows ReadRows(py::handle obj, int ndim, const char* field, py::handle dtype_arg = py::none()) {
  const char* const want = ndim == 1 ? "a 1-D float32 array (shape (V,))"
                                     : "a 2-D float32 array (rows x V)";
  // numpy arrays as they are; buffers and __array__ (torch CPU tensors) as
  // views, without a copy.
  auto dtype = py::reinterpret_borrow<py::object>(dtype_arg);
  py::array a = py::isinstance<py::array>(obj)
                    ? py::reinterpret_borrow<py::array>(obj)
                    : py::array::ensure(Readable(obj, &dtype, field));
  if (!a) {
    Raise(xs::ErrorCode::invalid_logits, field,
          std::string(field) + ": " + TypeName(obj) + " is not an array: pass " + want +
              " (numpy, a torch CPU tensor detached from autograd, or a buffer)");
  }
  Rows r;
  r.type = RowType(a, dtype, field);
  const ssize_t word = r.type == xs::LogitType::f32 ? 4 : 2;
  if (a.ndim() != ndim) {
    Raise(xs::ErrorCode::invalid_logits, field,
          std::string(field) + ": a " + std::to_string(a.ndim()) + "-D array; pass " + want +
              (ndim == 1 ? "; sample_batch takes rows x V" : "; sample takes one row"));
  }
  r.rows = ndim == 1 ? 1 : a.shape(0);
  r.vocab = a.shape(ndim - 1);
  r.data = static_cast<const char*>(a.data());
  r.row_stride = ndim == 1 ? 0 : a.strides(0);
  const bool aligned = (a.flags() & py::detail::npy_api::NPY_ARRAY_ALIGNED_) != 0;
  if ((a.strides(ndim - 1) != word && r.vocab > 1) || !aligned) {
    // A strided or unaligned view: packed into a copy.
    const size_t count = static_cast<size_t>(r.rows * r.vocab);
    char* out = nullptr;
    if (word == 4) {
      r.copy.resize(count);
      out = reinterpret_cast<char*>(r.copy.data());
    } else {
      r.copy16.resize(count);
      out = reinterpret_cast<char*>(r.copy16.data());
    }
    for (ssize_t i = 0; i < r.rows; ++i) {
      for (ssize_t j = 0; j < r.vocab; ++j) {
        const char* p = r.data + i * r.row_stride + j * a.strides(ndim - 1);
        std::memcpy(out + (i * r.vocab + j) * word, p, static_cast<size_t>(word));
      }
    }
    r.data = out;
    r.row_stride = r.vocab * word;
  }
  r.owner = std::move(a);
  return r;
}

// Prompt or generated ids: a contiguous int32 array is read in place, any
// other iterable of integers is converted. An id that is no 32-bit integer
// gets the library's out-of-range message.
struct Ids {
  py::object owner;
  std::span<const int32_t> ids;
  std::vector<int32_t> copy;
};

Ids ReadIds(py::handle obj, std::string_view name, ssize_t vocab, ssize_t row = -1) {
  Ids r;
  if (obj.is_none()) return r;
  if (py::isinstance<py::array_t<int32_t, 0>>(obj)) {
    auto a = py::reinterpret_borrow<py::array_t<int32_t, 0>>(obj);
    if (a.ndim() == 1 && a.strides(0) == sizeof(int32_t) &&
        (a.flags() & py::detail::npy_api::NPY_ARRAY_ALIGNED_) != 0) {
      r.ids = {a.data(), static_cast<size_t>(a.shape(0))};
      r.owner = std::move(a);
      return r;
    }
  }
  // Made here: the calls above are the common ones. A batch's row is named
  // with its index ("prompts[2]").
  const std::string field =
      std::string(name) + (row < 0 ? "" : "[" + std::to_string(row) + "]");
  // Text and bytes iterate, but hold no ids.
  if (!py::isinstance<py::iterable>(obj) || py::isinstance<py::str>(obj) ||
      PyBytes_Check(obj.ptr()) || PyByteArray_Check(obj.ptr())) {
    Raise(xs::ErrorCode::invalid_ids, field,
          field + ": " + TypeName(obj) + " is not a sequence of token ids");
  }
  for (py::handle item : py::iter(obj)) {
    int overflow = 0;
    // A bool is an int to Python, never an id.
    const long long v =
        PyBool_Check(item.ptr()) ? -1 : PyLong_AsLongLongAndOverflow(item.ptr(), &overflow);
    if (v == -1 && (PyErr_Occurred() || PyBool_Check(item.ptr()))) {
      PyErr_Clear();
      Raise(xs::ErrorCode::invalid_ids, field,
            field + "[" + std::to_string(r.copy.size()) + "] = " +
                std::string(py::repr(item)) + ": not an integer");
    }
    if (overflow != 0 || v < INT32_MIN || v > INT32_MAX) {
      Raise(xs::ErrorCode::invalid_ids, field,
            field + "[" + std::to_string(r.copy.size()) + "] = " +
                std::string(py::str(item)) + ": outside [0, V) with V = " +
                std::to_string(vocab));
    }
    r.copy.push_back(static_cast<int32_t>(v));
  }
  r.ids = r.copy;
  return r;
}

// The runtime features of one request, an exactsample.Constraints' fields read:
// logit_bias (a mapping id -> bias; keys ints or ids in canonical decimal,
// as in OpenAI's API and the replay files, each id once), allowed_token_ids
// (an empty one allows nothing: an error), banned_token_ids,
// allowed_bitmask (uint32 words, bit i % 32 of word i / 32 set = allowed;
// read in place when contiguous). Errors name them "constraints.<field>".
struct Features {
  std::vector<int32_t> bias_ids;
  std::vector<double> bias_values;
  Ids allowed, banned;
  // The bitmask's words and the array holding them (a py::object: a default
  // py::array_t would make an empty numpy array on every call).
  py::object bits_owner;
  std::span<const uint32_t> bits;

  xs::LogitBias bias() const { return {bias_ids, bias_values}; }
  xs::TokenMask mask() const {
    return {allowed.ids, banned.ids, bits};
  }
};

constexpr const char* kBiasField = "constraints.logit_bias";

// A logit_bias key as an id in [0, vocab), in the replay reader's words: an
// int (not a bool), or the canonical decimal of one ("0", "17"; no sign,
// spaces or leading zeros).
int32_t BiasKeyId(py::handle key, ssize_t vocab) {
  std::string text;
  if (py::isinstance<py::str>(key)) {
    text = py::str(key);
    const bool canonical = !text.empty() &&
                           text.find_first_not_of("0123456789") == std::string::npos &&
                           (text == "0" || text[0] != '0');
    if (!canonical) {
      Raise(xs::ErrorCode::invalid_ids, kBiasField,
            "constraints.logit_bias key \"" + text +
                "\": not an id in canonical decimal (digits, no sign, spaces or leading "
                "zeros: \"0\", \"17\")");
    }
  } else if (PyIndex_Check(key.ptr()) && !PyBool_Check(key.ptr())) {
    text = py::str(py::reinterpret_steal<py::object>(PyNumber_Index(key.ptr())));
  } else {
    Raise(xs::ErrorCode::invalid_ids, kBiasField,
          "constraints.logit_bias key " + std::string(py::repr(key)) +
              ": not an id (an int, or its canonical decimal string)");
  }
  // Decimal digits now, or '-' and digits; more than 10 digits lie beyond every V.
  const long long id = text[0] == '-' || text.size() > 10 ? -1 : std::stoll(text);
  if (id < 0 || id >= vocab) {
    Raise(xs::ErrorCode::invalid_ids, kBiasField,
          "constraints.logit_bias key \"" + text + "\": outside [0, V) with V = " + std::to_string(vocab));
  }
  return static_cast<int32_t>(id);
}

// A bias value: a real number (not a bool).
double BiasValue(py::handle value, int32_t id) {
  const double v = PyBool_Check(value.ptr()) ? -1.0 : PyFloat_AsDouble(value.ptr());
  if (PyBool_Check(value.ptr()) || (v == -1.0 && PyErr_Occurred())) {
    PyErr_Clear();
    Raise(xs::ErrorCode::invalid_parameter, kBiasField,
          "constraints.logit_bias[" + std::to_string(id) + "] = " + std::string(py::repr(value)) +
              ": a bias is a number");
  }
  return v;
}

Features ReadFeatures(const exactsample_python::PyConstraints& c, ssize_t vocab) {
  const py::handle logit_bias = c.logit_bias, allowed = c.allowed_token_ids,
                   banned = c.banned_token_ids, bitmask = c.allowed_bitmask;
  Features f;
  if (!logit_bias.is_none()) {
    if (!py::hasattr(logit_bias, "items")) {
      Raise(xs::ErrorCode::invalid_parameter, kBiasField,
            "constraints.logit_bias: " + TypeName(logit_bias) +
                " is not a mapping of id to bias");
    }
    std::unordered_set<int32_t> seen;
    for (py::handle item : logit_bias.attr("items")()) {
      const auto pair = py::reinterpret_borrow<py::tuple>(item);
      const int32_t id = BiasKeyId(pair[0], vocab);
      if (!seen.insert(id).second) {  // 1 and "1": one id spelled twice
        Raise(xs::ErrorCode::invalid_ids, kBiasField,
              "constraints.logit_bias: id " + std::to_string(id) + " given twice");
      }
      f.bias_ids.push_back(id);
      f.bias_values.push_back(BiasValue(pair[1], id));
    }
  }
  f.allowed = ReadIds(allowed, "constraints.allowed_token_ids", vocab);
  if (!allowed.is_none() && f.allowed.ids.empty()) {
    Raise(xs::ErrorCode::degenerate, "constraints.allowed_token_ids",
          "constraints.allowed_token_ids: empty, so no id may be drawn; leave it out to allow "
          "every id");
  }
  f.banned = ReadIds(banned, "constraints.banned_token_ids", vocab);
  if (!bitmask.is_none()) {
    const py::object words = BitmaskWords(bitmask);
    if (words.is_none()) {
      Raise(xs::ErrorCode::invalid_parameter, "constraints.allowed_bitmask",
            "constraints.allowed_bitmask: " + TypeName(bitmask) +
                ": pass a 1-D uint32 or int32 array (numpy or a torch CPU tensor)");
    }
    auto a = py::array_t<uint32_t, py::array::c_style>::ensure(words);
    if (a) f.bits = {a.data(), static_cast<size_t>(a.size())};
    f.bits_owner = std::move(a);
  }
  return f;
}

xs::SampleOptions Options(std::string_view engine, bool logprob, bool rank) {
  xs::SampleOptions o;
  if (engine == "reference") {
    o.engine = xs::Engine::reference;
  } else if (engine != "fast") {
    Raise(xs::ErrorCode::invalid_parameter, "engine",
          "engine = " + std::string(engine) + ": use \"fast\" or \"reference\"");
  }
  o.logprob = logprob;
  o.rank = rank;
  return o;
}

const xs::SamplingParams& ParamsOrDefault(const xs::SamplingParams* params) {
  static const xs::SamplingParams defaults;
  return params != nullptr ? *params : defaults;
}

// ------------------------------------------------------------- sampling

xs::Token Sample(py::handle logits, const xs::SamplingParams* params, xs::Pcg32& rng,
                 py::handle prompt, py::handle generated, std::string_view engine,
                 bool logprob, bool rank, py::handle constraints, py::handle dtype) {
  const xs::SampleOptions options = Options(engine, logprob, rank);
  const Rows row = ReadRows(logits, 1, "logits", dtype);
  const Ids p = ReadIds(prompt, "prompt", row.vocab);
  const Ids g = ReadIds(generated, "generated", row.vocab);
  const Features f = ReadFeatures(exactsample_python::ReadConstraints(constraints), row.vocab);
  const xs::Request req =
      row.Apply({{}, p.ids, g.ids, ParamsOrDefault(params), f.bias(), f.mask()}, 0);
  // The generator is copied in and out, and marked in use meanwhile; an
  // error or an interrupt leaves it as it was.
  xs::python::CallGuard guard;
  if (!guard.Mark(&rng)) exactsample_python::GeneratorInUse("rng");
  xs::Pcg32 local = rng;
  xs::Result<xs::Token> token = [&] {
    py::gil_scoped_release release;
    return xs::sample(req, local, exactsample_python::ThreadWorkspace(), options);
  }();
  xs::python::BeforeCommit();
  if (!token) throw SampleErrorThrow{token.error()};
  rng = local;
  return *token;
}

void Validate(py::handle logits, const xs::SamplingParams* params, py::handle prompt,
              py::handle generated, py::handle constraints, py::handle dtype) {
  const Rows row = ReadRows(logits, 1, "logits", dtype);
  const Ids p = ReadIds(prompt, "prompt", row.vocab);
  const Ids g = ReadIds(generated, "generated", row.vocab);
  const Features f = ReadFeatures(exactsample_python::ReadConstraints(constraints), row.vocab);
  const auto r = xs::validate(
      row.Apply({{}, p.ids, g.ids, ParamsOrDefault(params), f.bias(), f.mask()}, 0));
  if (!r) throw SampleErrorThrow{r.error()};
}

// The i-th of a per-row argument: None (nothing), one value for every row,
// or a sequence of one per row.
py::object PerRow(py::handle arg, ssize_t i, ssize_t rows, const char* field,
                  bool shared_ok) {
  if (arg.is_none() || (shared_ok && !py::isinstance<py::sequence>(arg))) {
    return py::reinterpret_borrow<py::object>(arg);
  }
  const auto seq = py::reinterpret_borrow<py::sequence>(arg);
  if (static_cast<ssize_t>(seq.size()) != rows) {
    Raise(xs::ErrorCode::invalid_parameter, field,
          std::string(field) + ": " + std::to_string(seq.size()) + " entries for " +
              std::to_string(rows) + " rows");
  }
  return seq[static_cast<size_t>(i)];
}

py::object SampleBatch(py::handle rows, py::handle params, py::sequence rngs,
                       py::handle prompts, py::handle generated, int threads,
                       std::string_view engine, bool logprob, bool rank,
                       std::string_view output, py::handle constraints, py::handle dtype) {
  const xs::SampleOptions options = Options(engine, logprob, rank);
  const exactsample_python::Output form = exactsample_python::ReadOutput(output);
  const Rows block = ReadRows(rows, 2, "rows", dtype);
  const ssize_t n = block.rows;
  std::vector<Ids> ids;  // prompt and generated of each row
  std::vector<Features> features;
  std::vector<xs::Pcg32*> owners;
  std::vector<xs::Pcg32> local;
  std::vector<xs::BatchRow> batch;
  ids.reserve(static_cast<size_t>(2 * n));
  features.reserve(static_cast<size_t>(n));
  owners.reserve(static_cast<size_t>(n));
  local.reserve(static_cast<size_t>(n));
  std::unordered_set<const xs::Pcg32*> seen;
  seen.reserve(static_cast<size_t>(n));
  size_t top_n = 0;  // the columns of output="numpy"'s top-N arrays
  // A params object is cast again only when the row's is another (a shared
  // one once); held, so that row_params stays valid.
  py::object params_read;
  const xs::SamplingParams* row_params = nullptr;
  for (ssize_t i = 0; i < n; ++i) {
    py::object p = PerRow(params, i, n, "params", true);
    if (!p.is(params_read)) {
      row_params = p.is_none() ? nullptr : p.cast<const xs::SamplingParams*>();
      params_read = std::move(p);
    }
    ids.push_back(ReadIds(PerRow(prompts, i, n, "prompts", false), "prompts", block.vocab, i));
    ids.push_back(ReadIds(PerRow(generated, i, n, "generated", false), "generated", block.vocab,
                          i));
    auto* rng = &exactsample_python::ListedGenerator(PerRow(rngs, i, n, "rngs", false), "rngs",
                                                     static_cast<size_t>(i));
    if (!seen.insert(rng).second) {
      Raise(xs::ErrorCode::invalid_parameter, "rngs",
            "rngs[" + std::to_string(i) +
                "]: the same generator as an earlier row; each row needs its own");
    }
    const Features& f = features.emplace_back([&] {
      try {
        return ReadFeatures(exactsample_python::ReadConstraints(
                                PerRow(constraints, i, n, "constraints", true)),
                            block.vocab);
      } catch (SampleErrorThrow& e) {  // the row's feature: named with its row
        e.error.message = "row " + std::to_string(i) + ": " + e.error.message;
        throw;
      }
    }());
    owners.push_back(rng);
    local.push_back(*rng);
    batch.push_back({block.Apply({{}, ids[ids.size() - 2].ids, ids.back().ids,
                                  ParamsOrDefault(row_params), f.bias(), f.mask()},
                                 i),
                     &local.back()});
    top_n = std::max(top_n, exactsample_python::TopColumns(batch.back().request.params));
  }
  // Every generator marked for the call: all of them advance, or none.
  xs::python::CallGuard guard;
  for (ssize_t i = 0; i < n; ++i) {
    if (!guard.Mark(owners[static_cast<size_t>(i)])) {
      exactsample_python::GeneratorInUse("rngs", "[" + std::to_string(i) + "]");
    }
  }
  exactsample_python::BatchOutput outputs(form, static_cast<size_t>(n), top_n, rank);
  std::vector<xs::Result<xs::Token>> results;
  {
    py::gil_scoped_release release;
    xs::sample_batch(batch, results, exactsample_python::ThreadBatchWorkspace(), options, threads);
  }
  xs::python::BeforeCommit();
  py::object out = outputs.Fill(results);
  for (size_t i = 0; i < results.size(); ++i) *owners[i] = local[i];  // cannot fail
  return out;
}

// ------------------------------------------------------ SamplingParams

// Every SamplingParams field once, by the spec's name: the constructor's
// keywords, the attributes, repr and equality all follow this list.
template <class F>
void ForEachParam(F&& f) {
  f("temperature", &xs::SamplingParams::temperature);
  f("repetition_penalty", &xs::SamplingParams::repetition_penalty);
  f("presence_penalty", &xs::SamplingParams::presence_penalty);
  f("frequency_penalty", &xs::SamplingParams::frequency_penalty);
  f("top_k", &xs::SamplingParams::top_k);
  f("top_p", &xs::SamplingParams::top_p);
  f("min_p", &xs::SamplingParams::min_p);
  f("top_logprobs", &xs::SamplingParams::top_logprobs);
  f("penalty_last_n", &xs::SamplingParams::penalty_last_n);
  // docs/llama-samplers.md (chain is its own property, below)
  f("min_keep", &xs::SamplingParams::min_keep);
  f("top_n_sigma", &xs::SamplingParams::top_n_sigma);
  f("typical_p", &xs::SamplingParams::typical_p);
  f("xtc_probability", &xs::SamplingParams::xtc_probability);
  f("xtc_threshold", &xs::SamplingParams::xtc_threshold);
  f("dry_multiplier", &xs::SamplingParams::dry_multiplier);
  f("dry_base", &xs::SamplingParams::dry_base);
  f("dry_allowed_length", &xs::SamplingParams::dry_allowed_length);
  f("dry_penalty_last_n", &xs::SamplingParams::dry_penalty_last_n);
  f("dynatemp_range", &xs::SamplingParams::dynatemp_range);
  f("dynatemp_exponent", &xs::SamplingParams::dynatemp_exponent);
  f("mirostat", &xs::SamplingParams::mirostat);
  f("mirostat_tau", &xs::SamplingParams::mirostat_tau);
  f("mirostat_eta", &xs::SamplingParams::mirostat_eta);
  f("mirostat_m", &xs::SamplingParams::mirostat_m);
  f("adaptive_target", &xs::SamplingParams::adaptive_target);
  f("adaptive_decay", &xs::SamplingParams::adaptive_decay);
}

// SamplingParams.chain: "spec", "llama" or a list of step names.
py::object ChainValue(const xs::Chain& chain) {
  if (chain.preset == xs::ChainPreset::spec) return py::str("spec");
  if (chain.preset == xs::ChainPreset::llama) return py::str("llama");
  py::list names;
  for (const xs::ChainStep step : chain.steps()) names.append(py::str(std::string(xs::chain_step_name(step))));
  return names;
}

xs::Chain ChainFrom(py::handle value) {
  xs::Result<xs::Chain> chain = xs::Error{xs::ErrorCode::invalid_parameter, "chain",
                                          "chain: not a preset name or a list of step names"};
  if (py::isinstance<py::str>(value)) {
    chain = xs::chain_from_preset(value.cast<std::string>());
  } else if (py::isinstance<py::list>(value) || py::isinstance<py::tuple>(value)) {
    std::vector<std::string> owned;
    bool names = true;
    for (py::handle a : value) {
      names = names && py::isinstance<py::str>(a);
      if (names) owned.push_back(a.cast<std::string>());
    }
    const std::vector<std::string_view> views(owned.begin(), owned.end());
    if (names) chain = xs::chain_from_names(views);
  }
  if (!chain) throw py::value_error(chain.error().message);
  return *chain;
}

// A SamplingParams field's value: an int or a float as the field takes
// it, never a bool (True is an int to Python, not a parameter).
template <class T>
T ParamValue(const std::string& name, py::handle value) {
  try {
    if (!PyBool_Check(value.ptr())) return value.cast<T>();
  } catch (const py::cast_error&) {
  }
  throw py::type_error(name + ": expected " + (std::is_integral_v<T> ? "an int" : "a float") +
                       ", got " + std::string(py::repr(value)));
}

xs::SamplingParams ParamsFromKeywords(const py::kwargs& kwargs) {
  xs::SamplingParams p;
  for (const auto& [key, value] : kwargs) {
    const std::string name = py::str(key);
    bool known = false;
    ForEachParam([&](const char* field, auto member) {
      if (name != field) return;
      known = true;
      using T = std::remove_reference_t<decltype(p.*member)>;
      p.*member = ParamValue<T>(name, value);
    });
    if (name == "chain") {
      p.chain = ChainFrom(value);
      known = true;
    }
    if (name == "dry_sequence_breakers") {
      p.dry_sequence_breakers = exactsample_python::BreakersFrom(value);
      known = true;
    }
    if (!known) throw py::type_error("SamplingParams: unknown field " + name);
  }
  return p;
}

std::string ParamsRepr(const xs::SamplingParams& p) {
  std::string out = "SamplingParams(";
  const char* sep = "";
  ForEachParam([&](const char* field, auto member) {
    out += sep + std::string(field) + "=" + std::string(py::repr(py::cast(p.*member)));
    sep = ", ";
  });
  return out + ", chain=" + std::string(py::repr(ChainValue(p.chain))) +
         ", dry_sequence_breakers=" +
         std::string(py::repr(exactsample_python::BreakersValue(p.dry_sequence_breakers))) + ")";
}

bool ParamsEqual(const xs::SamplingParams& a, const xs::SamplingParams& b) {
  bool equal = true;
  ForEachParam([&](const char*, auto member) { equal = equal && a.*member == b.*member; });
  const auto sa = a.chain.steps(), sb = b.chain.steps();
  const auto ba = a.dry_sequence_breakers, bb = b.dry_sequence_breakers;
  const auto same = [](std::span<const int32_t> x, std::span<const int32_t> y) {
    return std::equal(x.begin(), x.end(), y.begin(), y.end());
  };
  return equal && a.chain.preset == b.chain.preset &&
         std::equal(sa.begin(), sa.end(), sb.begin(), sb.end()) &&
         std::equal(ba.begin(), ba.end(), bb.begin(), bb.end(), same);
}

// g, for a method that advances it: raises while a sampling call uses it
// (the call would write its own copy back over the draws).
xs::Pcg32& Unused(xs::Pcg32& g) {
  if (xs::python::InUse(&g)) exactsample_python::GeneratorInUse("rng");
  return g;
}

std::string Hex(uint64_t v) {
  return std::string(py::str(py::int_(v).attr("__format__")("#x")));
}

}  // namespace

// The readers above, for python/sequence_module.cc (module_inputs.hpp).
namespace exactsample_python {

xs::Workspace& ThreadWorkspace() {
  thread_local xs::Workspace workspace;
  return workspace;
}

xs::BatchWorkspace& ThreadBatchWorkspace() {
  thread_local xs::BatchWorkspace workspace;
  return workspace;
}

StepRows ReadStepRows(py::handle logits, int ndim, const char* field, py::handle dtype) {
  auto rows = std::make_shared<Rows>(ReadRows(logits, ndim, field, dtype));
  StepRows out{rows, static_cast<size_t>(rows->vocab), {}};
  for (ssize_t i = 0; i < rows->rows; ++i) {
    const xs::Request r = rows->Apply({}, i);
    out.steps.push_back({r.logits, r.logits16, r.logits_type});
  }
  return out;
}

std::vector<int32_t> ReadIdList(py::handle ids, const std::string& field, size_t vocab) {
  const Ids read = ReadIds(ids, field, static_cast<ssize_t>(vocab));
  return {read.ids.begin(), read.ids.end()};
}

PyConstraints ReadConstraints(py::handle constraints, const char* field) {
  if (constraints.is_none()) return {};
  if (!py::isinstance<PyConstraints>(constraints)) {
    Raise(xs::ErrorCode::invalid_parameter, field,
          std::string(field) + ": " + TypeName(constraints) +
              " is not an exactsample.Constraints (or None)");
  }
  return constraints.cast<const PyConstraints&>();
}

xs::Constraints ReadExtras(const PyConstraints& c, size_t vocab) {
  const Features f = ReadFeatures(c, static_cast<ssize_t>(vocab));
  const xs::TokenMask mask = f.mask();
  return {f.bias_ids, f.bias_values, {mask.allowed.begin(), mask.allowed.end()},
          {mask.banned.begin(), mask.banned.end()},
          {mask.allowed_bits.begin(), mask.allowed_bits.end()}};
}

xs::SampleOptions ReadOptions(std::string_view engine, bool logprob, bool rank) {
  return Options(engine, logprob, rank);
}

size_t TopColumns(const xs::SamplingParams& params) {
  // An out-of-range count is the row's error, not a column count.
  return params.top_logprobs > 0 && params.top_logprobs <= xs::kMaxTopLogprobs
             ? static_cast<size_t>(params.top_logprobs)
             : 0;
}

// `field` ("rng" or "rngs") and `at` ("" or "[i]") name the generator.
void GeneratorInUse(const std::string& field, const std::string& at) {
  Raise(xs::ErrorCode::invalid_parameter, field,
        field + at + ": the generator is in use by another call (a generator serves one "
                     "call at a time: give each thread its own)");
}

xs::Pcg32& ListedGenerator(py::handle obj, const char* field, size_t row) {
  // One type lookup: a batch reads a generator per row.
  py::detail::make_caster<xs::Pcg32> caster;
  if (!caster.load(obj, false)) {
    Raise(xs::ErrorCode::invalid_parameter, field,
          std::string(field) + "[" + std::to_string(row) + "]: " + TypeName(obj) +
              " is not a generator (exactsample.Pcg32)");
  }
  return py::detail::cast_op<xs::Pcg32&>(caster);
}

void ThrowSampleError(const xs::Error& error) { throw SampleErrorThrow{error}; }

py::object SampleErrorValue(const xs::Error& error) { return SampleErrorObject(error); }

}  // namespace exactsample_python

PYBIND11_MODULE(_exactsample, m) {
  m.doc() = "Exact next-token sampling (docs/spec.md) on numpy arrays and torch tensors.";
  m.attr("__version__") = EXACTSAMPLE_VERSION_STRING;

  g_sample_error = PyErr_NewExceptionWithDoc(
      "exactsample.SampleError",
      "Bad input to sample, sample_batch or validate (a ValueError). str(e) is\n"
      "the library's message; .field names the input (\"temperature\",\n"
      "\"logits\", \"prompt\", ...); .code is invalid_parameter, invalid_logits,\n"
      "invalid_ids or degenerate. The generator is left untouched.",
      PyExc_ValueError, py::dict("field"_a = py::none(), "code"_a = py::none()).ptr());
  m.attr("SampleError") = py::reinterpret_borrow<py::object>(g_sample_error);
  py::register_exception_translator([](std::exception_ptr p) {
    try {
      if (p) std::rethrow_exception(p);
    } catch (const SampleErrorThrow& e) {
      const py::object error = SampleErrorObject(e.error);
      PyErr_SetObject(g_sample_error, error.ptr());
    }
  });

  py::enum_<xs::Purpose>(m, "Purpose", "Purpose ids of stream(seed, purpose) (docs/spec.md, the generator).")
      .value("INIT", xs::Purpose::init)
      .value("DROPOUT", xs::Purpose::dropout)
      .value("SHUFFLE", xs::Purpose::shuffle)
      .value("SAMPLE", xs::Purpose::sample)
      .value("MUTATION", xs::Purpose::mutation);

  py::class_<xs::Pcg32>(m, "Pcg32",
                        "PCG32 generator (docs/spec.md, the generator). Made by stream(), from_state() or "
                        "seeded(); plain data (state, inc, draws_u32).")
      .def_static("from_state", &xs::Pcg32::from_state, "state"_a, "inc"_a, "draws_u32"_a,
                  "A generator handed over by another worker; inc must be odd.")
      .def_static("seeded", &xs::Pcg32::seeded, "initstate"_a,
                  "seq"_a = xs::Pcg32::kDefaultSeq,
                  "The spec's raw pcg32(initstate, seq), for its test vectors; a "
                  "request's generator is stream(seed).")
      .def("next_u32", [](xs::Pcg32& g) { return Unused(g).next_u32(); },
           "The next 32-bit output.")
      .def("uniform_f64", [](xs::Pcg32& g) { return Unused(g).uniform_f64(); },
           "Two outputs a, b: ((a >> 5) * 2^26 + (b >> 6)) * 2^-53.")
      .def("advance", [](xs::Pcg32& g, uint64_t n) { Unused(g).advance(n); }, "n"_a,
           "Jumps ahead by n outputs (O(log n)), as n next_u32 calls would.")
      .def_property_readonly("state", &xs::Pcg32::state)
      .def_property_readonly("inc", &xs::Pcg32::inc)
      .def_property_readonly("draws_u32", &xs::Pcg32::draws_u32,
                             "Outputs taken since seeding: 2 per sampled token, 0 per greedy one.")
      .def("copy", [](const xs::Pcg32& g) { return g; }, "An independent copy.")
      .def("__copy__", [](const xs::Pcg32& g) { return g; })
      .def("__deepcopy__", [](const xs::Pcg32& g, py::handle) { return g; }, "memo"_a)
      .def("__eq__", [](const xs::Pcg32& a, const xs::Pcg32& b) { return a == b; })
      .def("__repr__", [](const xs::Pcg32& g) {
        return "Pcg32(state=" + Hex(g.state()) + ", inc=" + Hex(g.inc()) +
               ", draws_u32=" + std::to_string(g.draws_u32()) + ")";
      });
  m.def("stream", py::overload_cast<uint64_t, xs::Purpose>(&xs::stream), "seed"_a,
        "purpose"_a = xs::Purpose::sample,
        "The request generator stream(seed, Purpose.SAMPLE), or another purpose's.");
  m.def("stream", py::overload_cast<uint64_t, uint64_t>(&xs::stream), "seed"_a, "purpose"_a,
        "pcg32(child_seed(seed, purpose), purpose) for any integer purpose.");

  py::class_<xs::SamplingParams> params(
      m, "SamplingParams",
      "The spec's sampling fields and defaults (each default turns its step off):\n"
      "temperature=1.0 (0: greedy), repetition_penalty=1.0, presence_penalty=0.0,\n"
      "frequency_penalty=0.0, top_k=0 (0 or >= V: off), top_p=1.0, min_p=0.0;\n"
      "and the library's top_logprobs=0 (Token.top_logprobs entries, 0 to 20) and\n"
      "penalty_last_n=0 (the penalty window, docs/sequence.md: 0 is the whole\n"
      "history; n > 0 the last n tokens); llama.cpp's samplers and the chain\n"
      "(docs/llama-samplers.md): chain='spec' ('llama' or a list of step names),\n"
      "min_keep, top_n_sigma, typical_p, xtc_*, dry_* (dry_sequence_breakers: a list\n"
      "of id lists),\n"
      "dynatemp_*, mirostat*, adaptive_*.");
  params.def(py::init(&ParamsFromKeywords), "SamplingParams(**fields): the spec's names.")
      .def("__repr__", &ParamsRepr)
      .def("__eq__", &ParamsEqual);
  ForEachParam([&](const char* field, auto member) {
    using T = std::remove_reference_t<decltype(std::declval<xs::SamplingParams&>().*member)>;
    params.def_property(
        field, [member](const xs::SamplingParams& p) { return p.*member; },
        [member, name = std::string(field)](xs::SamplingParams& p, py::handle value) {
          p.*member = ParamValue<T>(name, value);
        });
  });

  params.def_property(
      "chain", [](const xs::SamplingParams& p) { return ChainValue(p.chain); },
      [](xs::SamplingParams& p, py::handle value) { p.chain = ChainFrom(value); });
  params.def_property(
      "dry_sequence_breakers",
      [](const xs::SamplingParams& p) {
        return exactsample_python::BreakersValue(p.dry_sequence_breakers);
      },
      [](xs::SamplingParams& p, py::handle value) {
        p.dry_sequence_breakers = exactsample_python::BreakersFrom(value);
      },
      "DRY's breakers: a list of id lists, each 1 to 21 ids in [0, V) (default [];\n"
      "llama.cpp's strings are the llama.cpp sampler's, which turns them into ids).");

  py::class_<xs::Token>(m, "Token", "A sampled token.")
      .def_readonly("id", &xs::Token::id)
      .def_readonly("logprob", &xs::Token::logprob,
                    "log_softmax over all V ids after penalties, before temperature "
                    "(the exact f64; NaN when logprob=False).")
      .def_readonly("processed_logprob", &xs::Token::processed_logprob,
                    "(t - M_K) - log(Z_K) over the final kept set, t = l / T; 0.0 when "
                    "greedy.")
      .def_property_readonly(
          "top_logprobs",
          [](const xs::Token& t) {
            py::list out;
            for (const xs::TopLogprob& e : t.top_logprobs()) {
              out.append(py::make_tuple(e.id, e.logprob));
            }
            return out;
          },
          "(id, logprob) of the SamplingParams.top_logprobs ids with the largest raw "
          "logprob, in (logprob desc, id asc) order, -inf ones left out.")
      .def_property_readonly(
          "rank",
          [](const xs::Token& t) -> py::object {
            return t.rank > 0 ? py::object(py::int_(t.rank)) : py::none();
          },
          "With rank=True, the id's place among all V ids in top_logprobs' order\n"
          "(raw logprob desc, id asc): 1 + the ids with a larger logprob + the lower\n"
          "ids with an equal one. None without rank=True.")
      .def("__eq__", [](const xs::Token& a, const xs::Token& b) { return a == b; })
      .def("__repr__", [](const xs::Token& t) {
        return "Token(id=" + std::to_string(t.id) +
               ", logprob=" + std::string(py::repr(py::float_(t.logprob))) + ")";
      });

  exactsample_python::RegisterBatchArrays(m);

  py::class_<xs::TargetInfo>(m, "TargetInfo", "A SIMD target compiled into the fast engine.")
      .def_readonly("name", &xs::TargetInfo::name)
      .def_readonly("supported", &xs::TargetInfo::supported)
      .def_readonly("active", &xs::TargetInfo::active)
      .def_readonly("exp", &xs::TargetInfo::exp)
      .def("__repr__", [](const xs::TargetInfo& t) {
        return "TargetInfo(name=" + std::string(py::repr(py::str(t.name))) +
               ", supported=" + (t.supported ? "True" : "False") +
               ", active=" + (t.active ? "True" : "False") +
               ", exp=" + std::string(py::repr(py::str(t.exp))) + ")";
      });
  m.def("compiled_targets", &xs::compiled_targets,
        "The compiled SIMD targets, best first: name, supported, active, exp path.");
  m.def("exp_choice", &xs::exp_choice, "Which glibc exp variant this process uses, and why.");

  using exactsample_python::PyConstraints;
  py::class_<PyConstraints>(
      m, "Constraints",
      "A request's bias and masks, the constraints= of every sampling call:\n"
      "logit_bias ({id: bias}, keys ints or decimal strings), allowed_token_ids,\n"
      "banned_token_ids and allowed_bitmask (numpy uint32 or int32 words, bit\n"
      "i % 32 of word i / 32 set = allowed); None: none. They are read and\n"
      "checked against V by the call that uses them (errors name\n"
      "constraints.<field>).")
      .def(py::init([](py::object logit_bias, py::object allowed, py::object banned,
                       py::object bitmask) {
             return PyConstraints{std::move(logit_bias), std::move(allowed), std::move(banned),
                                std::move(bitmask)};
           }),
           py::kw_only(), "logit_bias"_a = py::none(), "allowed_token_ids"_a = py::none(),
           "banned_token_ids"_a = py::none(), "allowed_bitmask"_a = py::none())
      .def_readwrite("logit_bias", &PyConstraints::logit_bias)
      .def_readwrite("allowed_token_ids", &PyConstraints::allowed_token_ids)
      .def_readwrite("banned_token_ids", &PyConstraints::banned_token_ids)
      .def_readwrite("allowed_bitmask", &PyConstraints::allowed_bitmask)
      .def("__repr__", [](const PyConstraints& c) {
        return "Constraints(logit_bias=" + std::string(py::repr(c.logit_bias)) +
               ", allowed_token_ids=" + std::string(py::repr(c.allowed_token_ids)) +
               ", banned_token_ids=" + std::string(py::repr(c.banned_token_ids)) +
               ", allowed_bitmask=" + std::string(py::repr(c.allowed_bitmask)) + ")";
      });

  m.def("sample", &Sample, "logits"_a, "params"_a.none(true), "rng"_a, py::kw_only(),
        "prompt"_a = py::none(), "generated"_a = py::none(), "engine"_a = "fast",
        "logprob"_a = true, "rank"_a = false, "constraints"_a = py::none(),
        "dtype"_a = py::none(),
        "Samples one token from a 1-D float32 or float16 row, or 16-bit words with\n"
        "dtype='bf16' (or 'f16'), read in place when contiguous; a 16-bit row gives\n"
        "what the row widened to float32 gives. It advances rng by 2 draws (0 when\n"
        "greedy). Raises SampleError on bad input,\n"
        "leaving rng untouched. The GIL is released while sampling. constraints:\n"
        "a Constraints (the bias and masks) or None. rank=True fills Token.rank\n"
        "(an O(V) count).");
  m.def("validate", &Validate, "logits"_a, "params"_a.none(true), py::kw_only(),
        "prompt"_a = py::none(), "generated"_a = py::none(), "constraints"_a = py::none(),
        "dtype"_a = py::none(), "Checks a request without sampling; raises SampleError.");
  m.def("sample_batch", &SampleBatch, "rows"_a, "params"_a.none(true), "rngs"_a,
        py::kw_only(), "prompts"_a = py::none(), "generated"_a = py::none(),
        "threads"_a = 0, "engine"_a = "fast", "logprob"_a = true, "rank"_a = false,
        "output"_a = "tokens", "constraints"_a = py::none(), "dtype"_a = py::none(),
        "One token per row of a 2-D array (rows x V; float32, float16, or 16-bit\n"
        "words with dtype='bf16' or 'f16', as in sample): params is one\n"
        "SamplingParams for all rows or one per row, rngs one generator per row.\n"
        "Returns a list of Token, or SampleError for a bad row (not raised); the\n"
        "result of a row does not depend on the others or on threads (0: the\n"
        "hardware's thread count; no more than the cores no other work holds at\n"
        "the call). constraints is one Constraints for every row or one per row\n"
        "(None: none). output='numpy' (or 'torch') returns a BatchArrays\n"
        "instead: one array per output, filled without a Python object per token;\n"
        "rank=True fills Token.rank (and BatchArrays.ranks).");
  exactsample_python::RegisterSequence(m);
  exactsample_python::RegisterSpeculative(m);

  m.def(
      "_read_address",
      [](py::handle logits, int ndim, py::handle dtype) {
        return reinterpret_cast<uintptr_t>(ReadRows(logits, ndim, "logits", dtype).Address(0));
      },
      "logits"_a, "ndim"_a = 1, "dtype"_a = py::none(),
      "For the tests: the address sample (ndim 1) or sample_batch (ndim 2) reads\n"
      "the first logit from: the caller's buffer, or a copy's for strided input.");

  py::module_ testing = m.def_submodule(
      "testing",
      "For audits, tests and benchmarks: process-wide target forcing, the C++ calls\n"
      "bench/python_overhead.py times beside the module's.");
  testing.def(
      "force_target",
      [](std::string_view name) {
        const auto r = xs::testing::force_target(name);
        if (!r) throw SampleErrorThrow{r.error()};
      },
      "name"_a,
      "Runs the fast engine on the named target from now on (\"\" restores the best);\n"
      "process-wide: call it while no other thread samples.");
  testing.def(
      "on_next_call", [](py::handle fn) { xs::python::SetNextCallHook(fn); }, "fn"_a,
      "fn() runs once inside the next sample or sample_batch call, after the library\n"
      "returned and before the call hands out its tokens (its generators still in use):\n"
      "for testing an interrupt or another call arriving there. None clears it.");
  exactsample_python::RegisterOverheadProbes(testing);
}
