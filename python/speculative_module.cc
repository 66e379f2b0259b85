// exactsample.distribution, verify and verify_batch (docs/spec.md, "Speculative decoding"):
// the rows read as sample() reads them (numpy arrays, torch CPU tensors),
// float32 only, the GIL released while the library runs.
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <algorithm>
#include <optional>
#include <span>
#include <string>
#include <thread>
#include <unordered_set>
#include <vector>

#include "exactsample/speculative.hpp"
#include "call_guard.hpp"
#include "module_inputs.hpp"

namespace exactsample_python {
namespace {

using namespace pybind11::literals;

// A rows x V float32 block (None: no rows), as spans into it.
struct F32Rows {
  StepRows block;
  std::vector<std::span<const float>> rows;

  F32Rows(py::handle array, const char* field) {
    if (array.is_none()) return;
    block = ReadStepRows(array, 2, field, py::none());
    for (const xs::Step& s : block.steps) {
      if (s.logits_type != xs::LogitType::f32) {
        ThrowSampleError({xs::ErrorCode::invalid_logits, field,
                          std::string(field) + ": float32 rows only"});
      }
      rows.push_back(s.logits);
    }
  }
};

// One verification's inputs, read and owned with the GIL held.
struct Inputs {
  F32Rows target, draft;
  std::vector<int32_t> draft_ids, prompt, generated;
  xs::SamplingParams params;
  std::optional<xs::SamplingParams> draft_params;
  xs::Constraints extras;

  Inputs(py::handle target_rows, py::handle draft_rows, py::handle ids,
         const xs::SamplingParams* p, const xs::SamplingParams* dp, py::handle prompt_ids,
         py::handle generated_ids, const PyConstraints& constraints)
      : target(target_rows, "target_rows"),
        draft(draft_rows, "draft_rows"),
        // Ids as int32 here; verify() checks them against V in its own words.
        draft_ids(ReadIdList(ids, "draft_ids", 0)),
        prompt(ReadIdList(prompt_ids, "prompt", target.block.vocab)),
        generated(ReadIdList(generated_ids, "generated", target.block.vocab)),
        params(p != nullptr ? *p : xs::SamplingParams{}),
        extras(ReadExtras(constraints, target.block.vocab)) {
    if (dp != nullptr) draft_params = *dp;
  }
  Inputs(const Inputs&) = delete;

  xs::Request Request() const {
    return {{}, prompt, generated, params, extras.bias(), extras.mask()};
  }
  xs::Drafts Drafts() const { return {target.rows, draft.rows, draft_ids, draft_params}; }
};

// threads as sample_batch reads it (0: the hardware's count): each row's
// passes split across them (SampleOptions::threads).
xs::SampleOptions WithThreads(xs::SampleOptions options, int threads) {
  if (threads < 0) {
    ThrowSampleError({xs::ErrorCode::invalid_parameter, "threads",
                      "threads = " + std::to_string(threads) + ": must be >= 0"});
  }
  options.threads =
      threads > 0 ? threads : static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  return options;
}

xs::Verified Verify(py::handle target_rows, py::handle draft_rows, py::handle draft_ids,
                    const xs::SamplingParams* params, xs::Pcg32& rng,
                    const xs::SamplingParams* draft_params, py::handle prompt,
                    py::handle generated, std::string_view engine, int threads,
                    py::handle constraints) {
  const xs::SampleOptions options = WithThreads(ReadOptions(engine, true, false), threads);
  const Inputs in(target_rows, draft_rows, draft_ids, params, draft_params, prompt, generated,
                  ReadConstraints(constraints));
  // The generator is marked in use and copied in and out: an error or an
  // interrupt leaves it as it was (python/call_guard.hpp).
  xs::python::CallGuard guard;
  if (!guard.Mark(&rng)) GeneratorInUse("rng");
  xs::Pcg32 local = rng;
  xs::Result<xs::Verified> v = [&] {
    py::gil_scoped_release release;
    return xs::verify(in.Request(), in.Drafts(), local, ThreadWorkspace(), options);
  }();
  xs::python::BeforeCommit();
  if (!v) ThrowSampleError(v.error());
  rng = local;
  return std::move(v.value());
}

// The i-th of a per-verification argument: None, or a sequence of one each.
py::handle Nth(py::handle arg, size_t i, size_t n, const char* field) {
  if (arg.is_none()) return arg;
  const auto seq = py::reinterpret_borrow<py::sequence>(arg);
  if (seq.size() != n) {
    ThrowSampleError({xs::ErrorCode::invalid_parameter, field,
                      std::string(field) + ": " + std::to_string(seq.size()) + " entries for " +
                          std::to_string(n) + " verifications"});
  }
  return seq[i];
}

const xs::SamplingParams* ParamsAt(py::handle arg, size_t i, size_t n, const char* field) {
  if (arg.is_none()) return nullptr;
  if (py::isinstance<xs::SamplingParams>(arg)) return &arg.cast<const xs::SamplingParams&>();
  const py::handle item = Nth(arg, i, n, field);
  return item.is_none() ? nullptr : &item.cast<const xs::SamplingParams&>();
}

py::list VerifyBatch(py::sequence targets, py::sequence drafts, py::sequence draft_ids,
                     py::handle params, py::sequence rngs, py::handle draft_params,
                     py::handle prompts, py::handle generated, std::string_view engine,
                     int threads, py::handle constraints) {
  const xs::SampleOptions options = WithThreads(ReadOptions(engine, true, false), threads);
  const size_t n = targets.size();
  for (const auto& [arg, field] : {std::pair{py::handle(drafts), "drafts"},
                                   std::pair{py::handle(draft_ids), "draft_ids"},
                                   std::pair{py::handle(rngs), "rngs"}}) {
    Nth(arg, 0, n, field);
  }
  std::vector<std::unique_ptr<Inputs>> inputs;
  std::vector<xs::Pcg32*> gens;
  // One Constraints for every verification, or a sequence of one each.
  const bool shared = !py::isinstance<py::sequence>(constraints);
  for (size_t i = 0; i < n; ++i) {
    inputs.push_back(std::make_unique<Inputs>(
        targets[i], drafts[i], draft_ids[i], ParamsAt(params, i, n, "params"),
        ParamsAt(draft_params, i, n, "draft_params"), Nth(prompts, i, n, "prompts"),
        Nth(generated, i, n, "generated"),
        ReadConstraints(shared ? constraints : Nth(constraints, i, n, "constraints"))));
    gens.push_back(&ListedGenerator(rngs[i], "rngs", i));
  }
  // Every generator marked for the call: all of them advance, or none.
  xs::python::CallGuard guard;
  std::unordered_set<const xs::Pcg32*> seen;
  for (size_t i = 0; i < n; ++i) {
    const std::string at = std::string("[").append(std::to_string(i)).append("]");
    if (!seen.insert(gens[i]).second) {
      ThrowSampleError({xs::ErrorCode::invalid_parameter, "rngs",
                        "rngs" + at + ": the same generator as an earlier verification; each "
                                      "needs its own"});
    }
    if (!guard.Mark(gens[i])) GeneratorInUse("rngs", at);
  }
  std::vector<xs::Pcg32> locals;
  for (xs::Pcg32* g : gens) locals.push_back(*g);
  std::vector<xs::Verification> batch;
  for (size_t i = 0; i < n; ++i) {
    batch.push_back({inputs[i]->Request(), inputs[i]->Drafts(), &locals[i]});
  }
  std::vector<xs::Result<xs::Verified>> results;
  {
    py::gil_scoped_release release;
    xs::verify_batch(batch, results, ThreadWorkspace(), options);
  }
  xs::python::BeforeCommit();
  py::list out;
  for (size_t i = 0; i < n; ++i) {
    if (results[i]) {
      *gens[i] = locals[i];
      out.append(py::cast(std::move(results[i].value())));
    } else {
      out.append(SampleErrorValue(results[i].error()));
    }
  }
  return out;
}

py::tuple Distribution(py::handle logits, const xs::SamplingParams* params, py::handle prompt,
                       py::handle generated, std::string_view engine,
                       py::handle constraints) {
  const xs::SampleOptions options = ReadOptions(engine, true, false);
  const StepRows row = ReadStepRows(logits, 1, "logits", py::none());
  const std::vector<int32_t> p = ReadIdList(prompt, "prompt", row.vocab);
  const std::vector<int32_t> g = ReadIdList(generated, "generated", row.vocab);
  const xs::Constraints extras = ReadExtras(ReadConstraints(constraints), row.vocab);
  xs::Request r{{}, p, g, params != nullptr ? *params : xs::SamplingParams{}, extras.bias(),
                extras.mask()};
  const xs::Step& s = row.steps[0];
  r.logits = s.logits;
  r.logits16 = s.logits16;
  r.logits_type = s.logits_type;
  const auto d = [&] {
    py::gil_scoped_release release;
    return xs::distribution(r, ThreadWorkspace(), options);
  }();
  if (!d) ThrowSampleError(d.error());
  py::list ids, probs;
  for (const xs::KeptProb& k : *d) {
    ids.append(k.id);
    probs.append(k.q);
  }
  return py::make_tuple(ids, probs);
}

}  // namespace

xs::Result<xs::Verified> VerifyOnSequence(xs::Sequence& sequence, py::handle target_rows,
                                          py::handle draft_rows, py::handle draft_ids,
                                          const xs::SamplingParams* draft_params,
                                          std::string_view engine) {
  const xs::SampleOptions options = ReadOptions(engine, true, false);
  const F32Rows target(target_rows, "target_rows"), draft(draft_rows, "draft_rows");
  const std::vector<int32_t> ids = ReadIdList(draft_ids, "draft_ids", 0);
  const xs::Drafts drafts{target.rows, draft.rows, ids,
                          draft_params != nullptr ? std::optional(*draft_params) : std::nullopt};
  py::gil_scoped_release release;
  return xs::verify(sequence, drafts, ThreadWorkspace(), options);
}

void RegisterSpeculative(py::module_& m) {
  py::class_<xs::Verified>(m, "Verified", "The result of verify() (docs/speculative.md).")
      .def_readonly("tokens", &xs::Verified::tokens,
                    "The emitted tokens (accepted + 1): the accepted drafts, then the token "
                    "at the first rejection or mismatch (or the bonus token), each with its "
                    "target row's logprobs.")
      .def_property_readonly("ids",
                             [](const xs::Verified& v) {
                               std::vector<int32_t> ids;
                               for (const xs::Token& t : v.tokens) ids.push_back(t.id);
                               return ids;
                             })
      .def_property_readonly("logprobs",
                             [](const xs::Verified& v) {
                               std::vector<double> lp;
                               for (const xs::Token& t : v.tokens) lp.push_back(t.logprob);
                               return lp;
                             })
      .def_readonly("accepted", &xs::Verified::accepted)
      .def_readonly("draws", &xs::Verified::draws,
                    "uniform_f64 draws taken from rng (2 next_u32 each).")
      .def("__repr__", [](const xs::Verified& v) {
        std::string ids;
        for (const xs::Token& t : v.tokens) ids += (ids.empty() ? "" : ", ") + std::to_string(t.id);
        return "Verified(ids=[" + ids + "], accepted=" + std::to_string(v.accepted) +
               ", draws=" + std::to_string(v.draws) + ")";
      });
  m.def("distribution", &Distribution, "logits"_a, "params"_a.none(true), py::kw_only(),
        "prompt"_a = py::none(), "generated"_a = py::none(), "engine"_a = "fast",
        "constraints"_a = py::none(),
        "dist(row, params, history) of docs/speculative.md: (ids, probs), the ids of the\n"
        "final kept set whose q is > 0 (ascending) and their q; greedy: step 4's id with\n"
        "1.0. No generator is read. The GIL is released.");
  m.def("verify", &Verify, "target_rows"_a, "draft_rows"_a.none(true), "draft_ids"_a,
        "params"_a.none(true), "rng"_a, py::kw_only(), "draft_params"_a = py::none(),
        "prompt"_a = py::none(), "generated"_a = py::none(), "engine"_a = "fast",
        "threads"_a = 1, "constraints"_a = py::none(),
        "Verifies len(draft_ids) draft tokens against the target rows ((gamma + 1) x V\n"
        "float32) and the draft rows (gamma x V; None for a greedy target) on rng, the\n"
        "request's generator: returns Verified (ids, logprobs, tokens, accepted, draws);\n"
        "rng advances by 2 * draws. draft_params None: params. The bias and masks apply\n"
        "to the target rows only. Raises SampleError (rng untouched) on bad input.\n"
        "The GIL is released while verifying; threads > 1 splits each row's passes\n"
        "across that many threads (0: the hardware's count).");
  m.def("verify_batch", &VerifyBatch, "target_rows"_a, "draft_rows"_a, "draft_ids"_a,
        "params"_a.none(true), "rngs"_a, py::kw_only(), "draft_params"_a = py::none(),
        "prompts"_a = py::none(), "generated"_a = py::none(), "engine"_a = "fast",
        "threads"_a = 0, "constraints"_a = py::none(),
        "verify() for each of many requests, one after the other with the GIL released,\n"
        "each row's passes split across `threads` threads (0: the hardware's count): lists of target rows, draft rows, draft ids and generators; params\n"
        "and draft_params one for all or one per request; prompts and generated one per\n"
        "request (None: none); constraints one Constraints for all or one per request\n"
        "(None: none). Returns a list of Verified, or SampleError for a bad one\n"
        "(not raised; its generator untouched).");
}

}  // namespace exactsample_python
