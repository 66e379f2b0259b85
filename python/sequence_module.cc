// exactsample.Sequence: the C++ Sequence (one request followed from step to
// step) for Python, and sample_batch of sequences, one row per sequence. Rows,
// ids, extras and options are read as sample() reads them
// (module_inputs.hpp); sampling runs with the GIL released.
//
// Threads: a Sequence is used by one thread at a time. Every method marks
// its sequence in use for its whole duration (marked and tested with the
// GIL held; reading a Python argument can let another thread run), and a
// call that finds it in use raises RuntimeError, leaving it alone, instead
// of racing with the call that holds it. Different sequences may be used
// from different threads at once; clone() makes one for another thread.
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <algorithm>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <unordered_set>
#include <utility>
#include <vector>

#include "exactsample/batch.hpp"
#include "exactsample/sequence.hpp"
#include "batch_outputs.hpp"
#include "breakers.hpp"
#include "call_guard.hpp"
#include "module_inputs.hpp"

namespace exactsample_python {
namespace {

using namespace pybind11::literals;

struct PySequence {
  explicit PySequence(xs::Sequence s) : seq(std::move(s)) {}
  xs::Sequence seq;
  bool busy = false;  // a method is running on it
};

// Marks `sequences` in use until destroyed, or raises, marking none, when
// one of them already is.
class InUse {
 public:
  // `sequences` outlives the mark (the caller's array: no copy).
  InUse(std::span<PySequence* const> sequences, const char* method) : sequences_(sequences) {
    Mark(method);
  }
  // One sequence, held here: no allocation on the calls made per token.
  InUse(PySequence& s, const char* method) : one_(&s), sequences_(&one_, 1) { Mark(method); }
  InUse(const InUse&) = delete;
  InUse& operator=(const InUse&) = delete;
  ~InUse() {
    for (PySequence* s : sequences_) s->busy = false;
  }

 private:
  void Mark(const char* method) {
    for (const PySequence* s : sequences_) {
      if (s->busy) {
        throw std::runtime_error(
            std::string("Sequence.") + method +
            ": the sequence is in use by another thread; a Sequence is used by one "
            "thread at a time (clone() one for each thread)");
      }
    }
    for (PySequence* s : sequences_) s->busy = true;
  }

  PySequence* const one_ = nullptr;
  std::span<PySequence* const> sequences_;
};

std::string TypeName(py::handle obj) {
  return py::str(py::type::handle_of(obj).attr("__qualname__"));
}

// A Python int as a 64-bit value; `field` names it in the errors, and
// `range` says what it must be when it is beyond 64 bits.
int64_t ReadInt(py::handle v, const std::string& field, xs::ErrorCode code,
                const std::string& range) {
  int overflow = 0;
  const long long i = PyLong_AsLongLongAndOverflow(v.ptr(), &overflow);
  if (i == -1 && PyErr_Occurred()) {
    PyErr_Clear();
    ThrowSampleError({code, field, field + " = " + std::string(py::repr(v)) + ": not an integer"});
  }
  if (overflow != 0) {
    ThrowSampleError({code, field, field + " = " + std::string(py::str(v)) + ": " + range});
  }
  return i;
}

// The id accept() takes: an int32 goes to the library, which checks [0, V).
int32_t ReadAcceptedId(py::handle v, size_t vocab) {
  const std::string range = "outside [0, V) with V = " + std::to_string(vocab);
  const int64_t id = ReadInt(v, "id", xs::ErrorCode::invalid_ids, range);
  if (id < INT32_MIN || id > INT32_MAX) {
    ThrowSampleError(
        {xs::ErrorCode::invalid_ids, "id", "id = " + std::to_string(id) + ": " + range});
  }
  return static_cast<int32_t>(id);
}

// params as an argument: None, or a SamplingParams (copied: another thread
// may change the caller's object while the GIL is released).
std::optional<xs::SamplingParams> ReadParams(py::handle params, const std::string& field) {
  if (params.is_none()) return std::nullopt;
  if (!py::isinstance<xs::SamplingParams>(params)) {
    throw py::type_error(field + ": " + TypeName(params) + " is not a SamplingParams");
  }
  return params.cast<xs::SamplingParams>();
}

template <class T>
T Unwrap(xs::Result<T> r) {
  if (!r) ThrowSampleError(r.error());
  return std::move(r.value());
}

std::unique_ptr<PySequence> Create(py::handle vocab, py::handle params,
                                   std::optional<uint64_t> seed, const xs::Pcg32* rng,
                                   py::handle constraints) {
  if (seed.has_value() == (rng != nullptr)) {
    throw py::type_error(
        "Sequence: give seed=S (the generator stream(S)) or rng=G (a "
        "handed-over generator), not both or neither");
  }
  // The library's check and message for the vocabulary size, also for
  // what a size_t cannot hold.
  const std::string range = "must be in [1, 2^31 - 1]";
  const int64_t v = ReadInt(vocab, "vocab", xs::ErrorCode::invalid_logits, range);
  if (v < 0) {
    ThrowSampleError(
        {xs::ErrorCode::invalid_logits, "vocab", "vocab = " + std::to_string(v) + ": " + range});
  }
  const auto p = ReadParams(params, "params");
  xs::Constraints extras = ReadExtras(ReadConstraints(constraints), static_cast<size_t>(v));
  const xs::Pcg32 generator = rng != nullptr ? *rng : xs::stream(*seed, xs::Purpose::sample);
  const auto s = xs::Sequence::create(static_cast<size_t>(v), p.value_or(xs::SamplingParams{}),
                                      generator, std::move(extras));
  if (!s) ThrowSampleError(s.error());
  return std::make_unique<PySequence>(*s);
}

// One call's row and what it overrides, owned here; Step() views them.
struct CallInputs {
  StepRows rows;
  std::optional<xs::SamplingParams> params;
  std::optional<xs::Constraints> bias_extras, mask_extras;
  xs::LogitBias bias;
  xs::TokenMask mask;

  // A constraints field given replaces the sequence's bias (logit_bias) or
  // its whole mask (any mask field) for this call.
  CallInputs(py::handle logits, py::handle p, py::handle constraints, py::handle dtype)
      : rows(ReadStepRows(logits, 1, "logits", dtype)), params(ReadParams(p, "params")) {
    const PyConstraints c = ReadConstraints(constraints);
    if (!c.logit_bias.is_none()) {
      bias_extras = ReadExtras({c.logit_bias}, rows.vocab);
      bias = bias_extras->bias();
    }
    if (!c.allowed_token_ids.is_none() || !c.banned_token_ids.is_none() ||
        !c.allowed_bitmask.is_none()) {
      mask_extras = ReadExtras(
          {py::none(), c.allowed_token_ids, c.banned_token_ids, c.allowed_bitmask}, rows.vocab);
      mask = mask_extras->mask();
    }
  }
  CallInputs(const CallInputs&) = delete;
  CallInputs& operator=(const CallInputs&) = delete;

  xs::Step Step() const {
    xs::Step step = rows.steps[0];
    if (params) step.params = &*params;
    if (bias_extras) step.bias = &bias;
    if (mask_extras) step.mask = &mask;
    return step;
  }
};

// Where a sequence was when a call began: its generator and its number of
// generated ids.
struct Saved {
  xs::Pcg32 rng;
  size_t generated;
  explicit Saved(const PySequence* s) : rng(s->seq.rng()), generated(s->seq.generated().size()) {}
};

// Between the library's return and the commit, with the GIL held: an
// interrupt that came meanwhile (or the test hook's exception) puts every
// sequence back where it was and raises, so that the call is all or
// nothing.
void Commit(std::span<PySequence* const> sequences, std::span<const Saved> before) {
  try {
    xs::python::BeforeCommit();
  } catch (...) {
    for (size_t i = 0; i < sequences.size(); ++i) {
      xs::Sequence& s = sequences[i]->seq;
      s.rng() = before[i].rng;
      (void)s.truncate(before[i].generated);  // cannot fail: it only grew
    }
    throw;
  }
}

xs::Token SampleStep(PySequence& self, bool append, py::handle logits, py::handle params,
                     std::string_view engine, bool logprob, bool rank, py::handle constraints,
                     py::handle dtype) {
  const InUse in_use(self, append ? "sample" : "sample_only");
  const xs::SampleOptions options = ReadOptions(engine, logprob, rank);
  const CallInputs in(logits, params, constraints, dtype);
  const xs::Step step = in.Step();
  xs::Workspace& workspace = ThreadWorkspace();
  const Saved before[] = {Saved(&self)};
  xs::Result<xs::Token> token = [&] {
    py::gil_scoped_release release;
    return self.seq.sample_only(step, workspace, options);
  }();
  PySequence* const one[] = {&self};
  Commit(one, before);
  xs::Token t = Unwrap(std::move(token));
  if (append) Unwrap(self.seq.accept(t.id));
  return t;
}

xs::Verified VerifyDrafts(PySequence& self, py::handle target_rows, py::handle draft_rows,
                          py::handle draft_ids, py::handle draft_params,
                          std::string_view engine) {
  const InUse in_use(self, "verify");
  const std::optional<xs::SamplingParams> dp = ReadParams(draft_params, "draft_params");
  const Saved before[] = {Saved(&self)};
  xs::Result<xs::Verified> v = VerifyOnSequence(self.seq, target_rows, draft_rows, draft_ids,
                                                dp ? &*dp : nullptr, engine);
  PySequence* const one[] = {&self};
  Commit(one, before);
  return Unwrap(std::move(v));
}

// A method that only reads the sequence: f(seq) while it is marked in use.
template <class F>
auto Read(const char* method, F f) {
  return [method, f](PySequence& self) {
    const InUse in_use(self, method);
    return f(std::as_const(self.seq));
  };
}

std::unique_ptr<PySequence> Clone(PySequence& self, const char* method) {
  const InUse in_use(self, method);
  return std::make_unique<PySequence>(self.seq);
}

py::bytes Snapshot(PySequence& self, const char* method) {
  const InUse in_use(self, method);
  const std::vector<uint8_t> bytes = self.seq.snapshot();
  return {reinterpret_cast<const char*>(bytes.data()), bytes.size()};
}

// The ids as a new int32 array (a copy: the sequence's own memory moves as
// it grows).
py::array_t<int32_t> IdArray(std::span<const int32_t> ids) {
  py::array_t<int32_t> out(static_cast<py::ssize_t>(ids.size()));
  std::copy(ids.begin(), ids.end(), out.mutable_data());
  return out;
}

// The bytes of a bytes-like object (bytes, bytearray, memoryview, a numpy
// uint8 array), copied.
std::vector<uint8_t> ReadBytes(py::handle obj) {
  if (!PyObject_CheckBuffer(obj.ptr())) {
    ThrowSampleError(
        {xs::ErrorCode::invalid_parameter, "snapshot",
         "snapshot: " + TypeName(obj) + " is not bytes: pass what Sequence.snapshot() returned"});
  }
  const py::buffer_info b = py::reinterpret_borrow<py::buffer>(obj).request();
  if (PyBuffer_IsContiguous(b.view(), 'C') == 0) {
    ThrowSampleError({xs::ErrorCode::invalid_parameter, "snapshot",
                      "snapshot: a strided buffer; pass bytes(...)"});
  }
  const auto* p = static_cast<const uint8_t*>(b.ptr);
  return {p, p + b.size * b.itemsize};
}

std::unique_ptr<PySequence> Restore(py::handle bytes) {
  return std::make_unique<PySequence>(Unwrap(xs::Sequence::restore(ReadBytes(bytes))));
}

py::object SampleBatchSequences(py::sequence sequences, py::handle rows, py::handle params,
                                int threads, std::string_view engine, bool logprob, bool rank,
                                std::string_view output, bool accept, py::handle dtype) {
  const size_t n = sequences.size();
  // The objects are held here: another thread may empty the caller's list
  // while the GIL is released.
  std::vector<py::object> owners;
  std::vector<PySequence*> wrapped;
  std::unordered_set<const PySequence*> seen;
  for (size_t i = 0; i < n; ++i) {
    py::object item = sequences[i];
    const std::string at = "sequences[" + std::to_string(i) + "]";
    if (!py::isinstance<PySequence>(item)) {
      throw py::type_error(at + ": " + TypeName(item) + " is not a Sequence");
    }
    auto* s = item.cast<PySequence*>();
    if (!seen.insert(s).second) {
      ThrowSampleError({xs::ErrorCode::invalid_parameter, "sequences",
                        at + ": the same Sequence as an earlier row; each row needs its own"});
    }
    wrapped.push_back(s);
    owners.push_back(std::move(item));
  }
  const InUse in_use(wrapped, "sample_batch");
  const xs::SampleOptions options = ReadOptions(engine, logprob, rank);
  const Output form = ReadOutput(output);
  const StepRows block = ReadStepRows(rows, 2, "rows", dtype);
  if (block.steps.size() != n) {
    ThrowSampleError({xs::ErrorCode::invalid_parameter, "rows",
                      "rows: " + std::to_string(block.steps.size()) + " rows for " +
                          std::to_string(n) + " sequences"});
  }
  // params: None (each sequence's own), one for every row, or one per row.
  std::vector<std::optional<xs::SamplingParams>> row_params(n);
  if (py::isinstance<xs::SamplingParams>(params)) {
    row_params.assign(n, ReadParams(params, "params"));
  } else if (!params.is_none()) {
    if (!py::isinstance<py::sequence>(params) ||
        py::reinterpret_borrow<py::sequence>(params).size() != n) {
      ThrowSampleError(
          {xs::ErrorCode::invalid_parameter, "params",
           "params: give None, one SamplingParams or one per row (" + std::to_string(n) + ")"});
    }
    const auto list = py::reinterpret_borrow<py::sequence>(params);
    for (size_t i = 0; i < n; ++i) {
      row_params[i] = ReadParams(list[i], "params[" + std::to_string(i) + "]");
    }
  }
  std::vector<xs::Step> steps = block.steps;
  std::vector<xs::Sequence*> seqs;
  size_t top_n = 0;  // the columns of output="numpy"'s top-N arrays
  for (size_t i = 0; i < n; ++i) {
    if (row_params[i]) steps[i].params = &*row_params[i];
    seqs.push_back(&wrapped[i]->seq);
    top_n = std::max(top_n, TopColumns(row_params[i] ? *row_params[i] : seqs[i]->params()));
  }
  BatchOutput outputs(form, n, top_n, rank);
  xs::BatchWorkspace& workspace = ThreadBatchWorkspace();
  std::vector<xs::Result<xs::Token>> results;
  std::vector<Saved> before;
  for (const PySequence* s : wrapped) before.emplace_back(s);
  {
    py::gil_scoped_release release;
    xs::sample_batch(seqs, steps, results, workspace, options, threads, /*accept=*/false);
  }
  Commit(wrapped, before);
  if (accept) {
    for (size_t i = 0; i < n; ++i) {
      if (results[i]) Unwrap(seqs[i]->accept(results[i]->id));
    }
  }
  return outputs.Fill(results);
}

constexpr const char* kSequenceDoc =
    "One request followed from step to step (docs/sequence.md): its vocabulary\n"
    "size, parameters, logit bias and mask, generator, prompt and generated ids,\n"
    "and the per-id counts the penalties need, kept as tokens arrive, so that a\n"
    "token costs the same at step 1 and step 100,000. Each token equals\n"
    "exactsample.sample() with the same row, prompt, generated ids, parameters and\n"
    "generator, bit for bit.\n\n"
    "    seq = xs.Sequence(V, xs.SamplingParams(temperature=0.7), seed=42)\n"
    "    seq.accept_prompt(prompt_ids)\n"
    "    tok = seq.sample(logits)          # samples and appends\n\n"
    "Threads: the GIL is released while sampling; one thread uses a Sequence at a\n"
    "time: a call that finds it in use by another thread raises RuntimeError and\n"
    "leaves it alone. Other sequences (clone() one) may be used meanwhile.";

constexpr const char* kSampleDoc =
    "Samples the next token from a 1-D row (float32, float16, or 16-bit words with\n"
    "dtype='bf16' or 'f16', as exactsample.sample) and appends it to the generated\n"
    "ids. params and constraints override the sequence's own for this call\n"
    "(constraints.logit_bias replaces its bias; any mask field replaces its whole\n"
    "mask). Raises SampleError on bad input (a row whose V is not the sequence's\n"
    "among them), leaving the sequence and its generator unchanged.";

}  // namespace

void RegisterSequence(py::module_& m) {
  py::class_<PySequence> cls(m, "Sequence", kSequenceDoc);
  cls.def(py::init(&Create), "vocab"_a, "params"_a = py::none(), py::kw_only(),
          "seed"_a = py::none(), py::arg("rng").none(true) = py::none(),
          "constraints"_a = py::none(),
          "Sequence(vocab, params=None, *, seed=S or rng=G, constraints=None):\n"
          "the generator stream(S) or a copy of G; params None: the defaults. Raises\n"
          "SampleError for a vocab outside [1, 2^31 - 1] or bad parameters or extras.");
  const auto sample_keywords = [](bool append) {
    return [append](PySequence& self, py::handle logits, py::handle params, std::string_view engine,
                    bool logprob, bool rank, py::handle constraints, py::handle dtype) {
      return SampleStep(self, append, logits, params, engine, logprob, rank, constraints, dtype);
    };
  };
  for (const bool append : {true, false}) {
    cls.def(append ? "sample" : "sample_only", sample_keywords(append), "logits"_a, py::kw_only(),
            "params"_a = py::none(), "engine"_a = "fast", "logprob"_a = true, "rank"_a = false,
            "constraints"_a = py::none(), "dtype"_a = py::none(),
            append ? kSampleDoc
                   : "As sample(), without appending the token (the generator advances):\n"
                     "for loops that accept() after the fact.");
  }
  cls.def(
         "accept",
         [](PySequence& self, py::handle id) {
           const InUse in_use(self, "accept");
           Unwrap(self.seq.accept(ReadAcceptedId(id, self.seq.vocab())));
         },
         "id"_a,
         "Appends a generated token chosen elsewhere (a forced token, an accepted\n"
         "draft). Raises SampleError for an id outside [0, V); nothing changes.")
      .def(
          "accept_prompt",
          [](PySequence& self, py::handle ids) {
            const InUse in_use(self, "accept_prompt");
            const std::vector<int32_t> read = ReadIdList(ids, "prompt", self.seq.vocab());
            Unwrap(self.seq.accept_prompt(read));
          },
          "ids"_a,
          "Appends prompt ids (all at once or one by one). Raises SampleError for an\n"
          "id outside [0, V); then none of them is appended.")
      .def(
          "reset",
          [](PySequence& self) {
            const InUse in_use(self, "reset");
            self.seq.reset();
          },
          "Clears the prompt and generated ids; the generator goes back to where it\n"
          "was at creation (or at restore).")
      .def(
          "clone", [](PySequence& self) { return Clone(self, "clone"); },
          "An independent copy of everything, the generator included (n > 1, beams).")
      .def("__copy__", [](PySequence& self) { return Clone(self, "__copy__"); })
      .def(
          "__deepcopy__", [](PySequence& self, py::handle) { return Clone(self, "__deepcopy__"); },
          "memo"_a)
      .def(
          "snapshot", [](PySequence& self) { return Snapshot(self, "snapshot"); },
          "Everything a second worker (another process) needs to continue the\n"
          "request, as bytes (format in docs/sequence.md); Sequence.restore(b).")
      .def_static("restore", &Restore, "snapshot"_a,
                  "The sequence a snapshot() holds. Raises SampleError (field \"snapshot\")\n"
                  "for truncated, corrupt or other-version bytes.")
      .def("verify", &VerifyDrafts, "target_rows"_a, "draft_rows"_a.none(true), "draft_ids"_a,
           py::kw_only(), "draft_params"_a = py::none(), "engine"_a = "fast",
           "exactsample.verify() with this sequence's history, parameters, bias and mask\n"
           "as the target's and its generator: the emitted tokens are appended and the\n"
           "generator advances by 2 * draws. Raises SampleError on bad input, leaving the\n"
           "sequence unchanged; all or nothing under an interrupt.")
      .def(
          "truncate",
          [](PySequence& self, py::handle length) {
            const InUse in_use(self, "truncate");
            const int64_t n = ReadInt(length, "length", xs::ErrorCode::invalid_parameter,
                                      "outside the generated ids' count");
            if (n < 0) {
              ThrowSampleError({xs::ErrorCode::invalid_parameter, "length",
                                "length = " + std::to_string(n) + ": below 0"});
            }
            Unwrap(self.seq.truncate(static_cast<size_t>(n)));
          },
          "length"_a,
          "Keeps the first `length` generated ids and drops the rest (a rollback); the\n"
          "generator stays where it is. SampleError (field 'length') above their count.")
      .def(py::pickle([](PySequence& self) { return Snapshot(self, "__getstate__"); },
                      [](const py::bytes& bytes) { return Restore(bytes); }))
      .def_property_readonly("vocab",
                             Read("vocab", [](const xs::Sequence& s) { return s.vocab(); }))
      .def_property_readonly("params",
                             Read("params",
                                  [](const xs::Sequence& s) {
                                    xs::SamplingParams p = s.params();
                                    // The sequence's own breakers go with the sequence.
                                    p.dry_sequence_breakers =
                                        exactsample_python::Kept(p.dry_sequence_breakers);
                                    return p;
                                  }),
                             "A copy of the sequence's SamplingParams.")
      .def_property_readonly(
          "prompt", Read("prompt", [](const xs::Sequence& s) { return IdArray(s.prompt()); }),
          "The prompt ids, as a new int32 array.")
      .def_property_readonly(
          "generated",
          Read("generated", [](const xs::Sequence& s) { return IdArray(s.generated()); }),
          "The generated ids, as a new int32 array.")
      .def_property(
          "rng", Read("rng", [](const xs::Sequence& s) { return s.rng(); }),
          [](PySequence& self, const xs::Pcg32& rng) {
            const InUse in_use(self, "rng");
            self.seq.rng() = rng;
          },
          "A copy of the generator where it is now; assigning hands over another.")
      .def("__repr__", Read("__repr__", [](const xs::Sequence& s) {
             return "Sequence(vocab=" + std::to_string(s.vocab()) +
                    ", prompt=" + std::to_string(s.prompt().size()) +
                    " ids, generated=" + std::to_string(s.generated().size()) +
                    " ids, draws_u32=" + std::to_string(s.rng().draws_u32()) + ")";
           }));

  // sample_batch's overload for sequences (C++ sample_batch(sequences, rows)),
  // tried after the one for stateless rows, which needs rngs.
  m.def("sample_batch", &SampleBatchSequences, "sequences"_a, "rows"_a, py::kw_only(),
        "params"_a = py::none(), "threads"_a = 0, "engine"_a = "fast", "logprob"_a = true,
        "rank"_a = false, "output"_a = "tokens", "accept"_a = true, "dtype"_a = py::none(),
        "One token per sequence, rows[i] (a 2-D array, rows x V, as sample_batch)\n"
        "on sequences[i], across threads: results[i] is what sequences[i].sample(rows[i])\n"
        "gives (accept=False: sample_only). params: None (each sequence's own), one\n"
        "SamplingParams for every row or one per row (None entries: the sequence's).\n"
        "Returns a list of Token, or SampleError for a bad row (not raised; that\n"
        "sequence unchanged); output='numpy' or 'torch': a BatchArrays, as\n"
        "sample_batch. Every sequence is in use for the whole call.");
}

}  // namespace exactsample_python
