"""distribution, verify and verify_batch (spec/speculative.md) give the ids,
logprob bits, accepted counts, draws and errors of tools/spec_sampler.py and
of the C++ library (through `exactsample replay`), on the reference engine
and on the fast engine on every supported target; bad input raises
SampleError with the generator untouched."""

import numpy as np
import pytest

import exactsample as xs
import replay_cases
import spec_chain
import spec_sampler
from conftest import cli_replay, hexes

CASES = replay_cases.random_verifications(120, 41, 3000, 2, True)
SCALARS = ("temperature", "repetition_penalty", "presence_penalty", "frequency_penalty",
           "top_k", "top_p", "min_p", "top_logprobs", "penalty_last_n")


def constraints_of(params):
    """A verification case's bias and masks, held among its params."""
    return xs.Constraints(logit_bias=params["logit_bias"] or None,
                          allowed_token_ids=params["allowed_token_ids"] or None,
                          banned_token_ids=params["banned_token_ids"] or None)


def params_of(p):
    """The spec's fields, and the chain's where the case gives them."""
    params = xs.SamplingParams(**{k: p[k] for k in SCALARS})
    for name in spec_chain.CHAIN_DEFAULTS:
        if name in p:
            setattr(params, name, p[name])
    return params


def block(rows):
    """A rows x V float32 array, or None for no rows; raises ValueError for
    rows of different lengths (the module reads matrices only)."""
    if not rows:
        return None
    if len({len(r) for r in rows}) != 1 or len(rows[0]) == 0:
        raise ValueError("not a matrix")
    return np.array(rows, dtype=np.float32)


def replay_line(case, v, top):
    """A Verified as the replay output line of its case."""
    line = {"name": case["name"], "ids": v.ids, "logprobs": v.logprobs,
            "processed_logprobs": [t.processed_logprob for t in v.tokens],
            "accepted": v.accepted, "rng_draws_consumed": v.draws}
    if top:
        line["top_logprobs"] = [[list(e) for e in t.top_logprobs] for t in v.tokens]
    return line


def module_verify(case, engine_name):
    """A verification case through the module, as a replay line; None when the
    module cannot take it (rows of different lengths, a malformed field)."""
    try:
        target, draft, d, tp, dp, prompt, generated, seed = spec_sampler.read_verification(case)
        t, dr = block(target), block(draft)
    except (spec_sampler.BadInput, ValueError):
        return None
    rng = xs.stream(seed)
    try:
        v = xs.verify(t, dr, d, params_of(tp), rng, draft_params=dp and params_of(dp),
                      prompt=prompt, generated=generated, engine=engine_name,
                      constraints=constraints_of(tp))
    except xs.SampleError as e:
        return {"name": case["name"], "error": str(e), "draws_u32": rng.draws_u32}
    assert rng.draws_u32 == 2 * v.draws
    return replay_line(case, v, tp["top_logprobs"] > 0)


def same(a, b):
    if "error" in a or "error" in b:
        return ("error" in a) == ("error" in b)
    keys = ("ids", "accepted", "rng_draws_consumed")
    return ([a[k] for k in keys] == [b[k] for k in keys] and
            hexes(a["logprobs"]) == hexes(b["logprobs"]) and
            hexes(a["processed_logprobs"]) == hexes(b["processed_logprobs"]) and
            [[[i, float(v).hex()] for i, v in t] for t in a.get("top_logprobs", [])] ==
            [[[i, float(v).hex()] for i, v in t] for t in b.get("top_logprobs", [])])


@pytest.fixture(scope="module")
def spec_results():
    return [spec_sampler.replay_case(c) for c in CASES]


@pytest.fixture(scope="module")
def cli_results(cli, tmp_path_factory):
    return cli_replay(cli, CASES, tmp_path_factory, ["--engine", "reference"])


def test_verify_equals_the_transcription_and_the_library(engine, spec_results, cli_results):
    compared = 0
    for case, want, lib in zip(CASES, spec_results, cli_results):
        got = module_verify(case, engine)
        if got is None:
            continue
        compared += "error" not in got
        assert same(got, want), (case["name"], got, want)
        assert same(got, lib), (case["name"], got, lib)
        if "error" in got:
            assert got["error"] == lib["error"], case["name"]  # the C++ message
            assert got["draws_u32"] == 0, case["name"]
    assert compared > 80



def sequence_verify(case, engine_name):
    """The case through Sequence.verify: the sequence holds its parameters,
    bias, mask, prompt and generated ids; as module_verify's line, and the
    sequence's ids and generator afterwards checked here."""
    try:
        target, draft, d, tp, dp, prompt, generated, seed = spec_sampler.read_verification(case)
        t, dr = block(target), block(draft)
        seq = xs.Sequence(t.shape[1], params_of(tp), seed=seed,
                          constraints=constraints_of(tp))
        seq.accept_prompt(prompt)
        for g in generated:
            seq.accept(g)
    except (spec_sampler.BadInput, ValueError, xs.SampleError):
        return None
    try:
        v = seq.verify(t, dr, d, draft_params=dp and params_of(dp), engine=engine_name)
    except xs.SampleError as e:
        assert list(seq.generated) == list(generated) and seq.rng == xs.stream(seed)
        return {"name": case["name"], "error": str(e)}
    assert list(seq.generated) == list(generated) + v.ids
    assert seq.rng.draws_u32 == 2 * v.draws
    return replay_line(case, v, tp["top_logprobs"] > 0)


def test_a_sequence_verifies_as_the_transcription_and_appends(engine, spec_results):
    compared = 0
    for case, want in zip(CASES, spec_results):
        got = sequence_verify(case, engine)
        if got is None:
            continue
        compared += "error" not in got
        assert same(got, want), (case["name"], got, want)
    assert compared > 80


def test_truncate_rolls_a_sequence_back():
    x = np.random.default_rng(5).normal(0, 1, (6, 50)).astype(np.float32)
    p = xs.SamplingParams(repetition_penalty=1.3, frequency_penalty=0.4, penalty_last_n=3)
    seq = xs.Sequence(50, p, seed=2)
    seq.accept_prompt([1, 2])
    kept = [seq.sample(x[i]).id for i in range(2)]
    branch = seq.clone()
    for i in range(2, 5):
        seq.sample(x[i])
    rng = seq.rng
    seq.truncate(2)
    assert list(seq.generated) == kept and seq.rng == rng  # the generator stays
    branch.rng = rng
    assert seq.sample(x[5]) == branch.sample(x[5])  # the counts rolled back too
    for bad in (4, -1):
        with pytest.raises(xs.SampleError) as e:
            seq.truncate(bad)
        assert e.value.field == "length"
    assert len(seq.generated) == 3

def test_the_worked_example():
    x = np.array([[1.0, 3.0, 2.0, 3.0, -1.0], [0.5, 1.0, 2.5, 0.0, 1.0],
                  [2.0, 0.0, 0.0, 0.0, 1.0]], dtype=np.float32)
    y = np.array([[1.0, 2.0, 2.0, 3.5, -1.0], [0.0, 1.0, 3.0, 0.0, 0.0]], dtype=np.float32)
    p = xs.SamplingParams(top_k=3, top_p=0.9)
    v = xs.verify(x, y, [3, 2], p, xs.stream(3))
    assert (v.ids, v.accepted, v.draws) == ([3, 2, 0], 2, 3)
    assert [round(lp, 5) for lp in v.logprobs] == [-0.92487, -0.50903, -0.57317]
    v = xs.verify(x, y, [3, 2], p, xs.stream(0))
    assert (v.ids, v.accepted, v.draws) == ([1], 0, 2)
    ids, probs = xs.distribution(x[0], p)
    assert ids == [1, 2, 3]
    assert hexes(probs) == hexes([spec_sampler.dist(list(map(float, x[0])), [], [],
                                                    dict(spec_sampler.DEFAULTS, top_k=3,
                                                         top_p=0.9))[i] for i in ids])
    assert xs.distribution(x[0], xs.SamplingParams(temperature=0.0)) == ([1], [1.0])


def test_distribution_equals_the_transcription(engine):
    fixed = len(replay_cases.fixed_verifications())
    for case in CASES[fixed:fixed + 40]:  # valid ones
        target, _, _, tp, _, prompt, generated, _ = spec_sampler.read_verification(case)
        try:
            want = spec_sampler.dist(target[0], prompt, generated, tp)
        except spec_sampler.BadInput:
            continue
        ids, probs = xs.distribution(
            np.array(target[0], dtype=np.float32), params_of(tp), prompt=prompt,
            generated=generated, engine=engine, constraints=constraints_of(tp))
        assert ids == [i for i in range(len(want)) if want[i] > 0], case["name"]
        assert hexes(probs) == hexes([want[i] for i in ids]), case["name"]


def test_batch_is_each_alone():
    # Each verification with its own constraints (the case's bias and masks).
    cases = [c for c in replay_cases.random_verifications(60, 43, 3000)
             if module_verify(c, "fast") is not None]
    args = [spec_sampler.read_verification(c) for c in cases]
    rngs = [xs.stream(a[7]) for a in args]
    out = xs.verify_batch([block(a[0]) for a in args], [block(a[1]) for a in args],
                          [a[2] for a in args], [params_of(a[3]) for a in args], rngs,
                          draft_params=[a[4] and params_of(a[4]) for a in args],
                          prompts=[a[5] for a in args], generated=[a[6] for a in args],
                          constraints=[constraints_of(a[3]) for a in args])
    assert len(out) == len(args) > 10
    assert any(a[3]["logit_bias"] or a[3]["banned_token_ids"] for a in args)
    for a, got, rng in zip(args, out, rngs):
        alone = xs.stream(a[7])
        try:
            want = xs.verify(block(a[0]), block(a[1]), a[2], params_of(a[3]), alone,
                             draft_params=a[4] and params_of(a[4]), prompt=a[5],
                             generated=a[6], constraints=constraints_of(a[3]))
        except xs.SampleError as e:
            assert isinstance(got, xs.SampleError) and str(got) == str(e)
            assert rng.draws_u32 == 0
            continue
        assert (got.ids, hexes(got.logprobs), got.accepted, got.draws) == \
            (want.ids, hexes(want.logprobs), want.accepted, want.draws)
        assert rng == alone


def test_torch_cpu_rows():
    torch = pytest.importorskip("torch")
    x = torch.tensor([[1.0, 3.0, 2.0, 3.0, -1.0], [0.5, 1.0, 2.5, 0.0, 1.0],
                      [2.0, 0.0, 0.0, 0.0, 1.0]], dtype=torch.float32)
    y = torch.tensor([[1.0, 2.0, 2.0, 3.5, -1.0], [0.0, 1.0, 3.0, 0.0, 0.0]])
    v = xs.verify(x, y, [3, 2], xs.SamplingParams(top_k=3, top_p=0.9), xs.stream(3))
    assert v.ids == [3, 2, 0]


X = np.array([[1.0, 3.0, 2.0, 3.0, -1.0], [0.5, 1.0, 2.5, 0.0, 1.0],
              [2.0, 0.0, 0.0, 0.0, 1.0]], dtype=np.float32)
Y = X[:2].copy()
P = xs.SamplingParams(top_k=3)


@pytest.mark.parametrize("args, field", [
    ((X, Y, [], P), "draft_ids"),
    ((X[:2], Y, [3, 2], P), "target_logits"),
    ((X, Y[:1], [3, 2], P), "draft_logits"),
    ((X, None, [3, 2], P), "draft_logits"),
    ((X, Y, [3, 5], P), "draft_ids[1]"),
    ((X, Y, [-1, 2], P), "draft_ids[0]"),
    ((X, Y, [4, 2], P), "draft_ids[0]"),  # draft probability 0 (outside the top 3)
    ((X, Y, [3, 2], xs.SamplingParams(top_p=-1.0)), "top_p"),
    ((X.astype(np.float16), Y, [3, 2], P), "target_rows"),
    ((X, Y, [3, 2**40], P), "draft_ids"),  # not an int32: refused while reading
])
def test_bad_input_names_the_field_and_takes_no_draw(args, field):
    rng = xs.stream(3)
    with pytest.raises(xs.SampleError) as e:
        xs.verify(*args, rng)
    assert e.value.field == field, str(e.value)
    assert rng == xs.stream(3)


def test_bad_batch_entries_are_returned_not_raised():
    rngs = [xs.stream(1), xs.stream(2)]
    out = xs.verify_batch([X, X], [Y, Y], [[3, 2], [3, 9]], P, rngs)
    assert isinstance(out[0], xs.Verified)
    assert isinstance(out[1], xs.SampleError) and out[1].field == "draft_ids[1]"
    assert rngs[1] == xs.stream(2)
    with pytest.raises(xs.SampleError) as e:
        xs.verify_batch([X, X], [Y], [[3, 2], [3, 2]], P, rngs)
    assert e.value.field == "drafts"


def test_threads_change_no_result():
    rows = np.random.default_rng(8).normal(0, 2, (5, 70000)).astype(np.float32)
    drafts = rows[:4] + np.float32(0.05)
    ids = [int(np.argmax(d)) for d in drafts]
    args = ([rows, rows], [drafts, drafts], [ids, ids], None)
    one = xs.verify_batch(*args, [xs.stream(1), xs.stream(2)], threads=1)
    two = xs.verify_batch(*args, [xs.stream(1), xs.stream(2)], threads=2)
    assert [(v.ids, hexes(v.logprobs), v.draws) for v in one] == \
        [(v.ids, hexes(v.logprobs), v.draws) for v in two]
    alone = xs.verify(rows, drafts, ids, None, xs.stream(1), threads=0)
    assert (alone.ids, hexes(alone.logprobs)) == (one[0].ids, hexes(one[0].logprobs))
    for call in (lambda: xs.verify(rows, drafts, ids, None, xs.stream(1), threads=-1),
                 lambda: xs.verify_batch(*args, [xs.stream(1), xs.stream(2)], threads=-2)):
        with pytest.raises(xs.SampleError) as e:
            call()
        assert e.value.field == "threads"
