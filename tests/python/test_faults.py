"""Faults and edge inputs through the module: a call is all or nothing under
an interrupt, a generator serves one call at a time, bad generators, ids,
bias keys and values, bools and empty allow lists raise errors that name
the field (and the row), in the program's words, with every generator as it
was; validate answers exactly what sample would."""

import ctypes
import functools
import json
import signal
import subprocess
import threading

import numpy as np
import pytest

import exactsample as xs
from conftest import CONSTRAINT_FIELDS, constrained

LIBC = ctypes.CDLL(None)


def state(rng):
    return (rng.state, rng.inc, rng.draws_u32)


def interrupt():
    """Raises SIGINT in C, as a Ctrl-C arriving while the library runs does:
    Python's handler only marks it pending (no Python code runs here)."""
    return functools.partial(getattr(LIBC, "raise"), signal.SIGINT)


@pytest.fixture(autouse=True)
def no_hook():
    yield
    xs.testing.on_next_call(None)


ROWS = np.random.default_rng(3).normal(0, 2, (6, 500)).astype(np.float32)


# ------------------------------------------------------------------ 4

def test_an_interrupt_during_sample_leaves_the_generator_as_it_was():
    rng = xs.stream(5)
    before = state(rng)
    xs.testing.on_next_call(interrupt())
    with pytest.raises(KeyboardInterrupt):
        xs.sample(ROWS[0], None, rng)
    assert state(rng) == before
    fresh = xs.stream(5)
    assert xs.sample(ROWS[0], None, rng) == xs.sample(ROWS[0], None, fresh)
    assert state(rng) == state(fresh)


def test_an_interrupt_during_a_batch_leaves_every_generator_as_it_was():
    rngs = [xs.stream(s) for s in range(len(ROWS))]
    before = [state(r) for r in rngs]
    xs.testing.on_next_call(interrupt())
    with pytest.raises(KeyboardInterrupt):
        xs.sample_batch(ROWS, None, rngs, threads=2)
    assert [state(r) for r in rngs] == before
    got = xs.sample_batch(ROWS, None, rngs, threads=2)
    want = [xs.sample(row, None, xs.stream(s)) for s, row in enumerate(ROWS)]
    assert got == want
    assert [r.draws_u32 for r in rngs] == [2] * len(ROWS)


def test_an_exception_raised_inside_the_call_commits_nothing():
    def fail():
        raise RuntimeError("stop")
    rngs = [xs.stream(s) for s in range(len(ROWS))]
    before = [state(r) for r in rngs]
    for call in (lambda: xs.sample(ROWS[0], None, rngs[0]),
                 lambda: xs.sample_batch(ROWS, None, rngs)):
        xs.testing.on_next_call(fail)
        with pytest.raises(RuntimeError, match="stop"):
            call()
        assert [state(r) for r in rngs] == before


# ------------------------------------------------------------------ 5

def test_a_generator_in_use_by_another_call_raises():
    rng, other = xs.stream(9), xs.stream(10)
    seen = []

    def second_call():
        for call, field in [(lambda: xs.sample(ROWS[1], None, rng), "rng"),
                            (lambda: xs.sample_batch(ROWS[:2], None, [other, rng]), "rngs"),
                            (rng.next_u32, "rng"), (rng.uniform_f64, "rng"),
                            (lambda: rng.advance(3), "rng")]:
            with pytest.raises(xs.SampleError) as e:
                call()
            seen.append((e.value.field, "in use by another call" in str(e.value)))
        assert other.draws_u32 == 0  # the batch took nothing

    xs.testing.on_next_call(second_call)
    token = xs.sample(ROWS[0], None, rng)
    assert seen == [("rng", True), ("rngs", True), ("rng", True), ("rng", True), ("rng", True)]
    assert token == xs.sample(ROWS[0], None, xs.stream(9))
    assert rng.draws_u32 == 2  # the first call's draw, nothing lost
    assert str(seen) and xs.sample(ROWS[1], None, rng).id >= 0  # free again


def test_threads_sharing_a_generator_lose_no_draw():
    row = np.random.default_rng(4).normal(0, 2, 128256).astype(np.float32)
    rng = xs.stream(11)
    done, refused, errors = [], [], []

    def work():
        for _ in range(40):
            try:
                xs.sample(row, None, rng)
                done.append(1)
            except xs.SampleError as e:
                refused.append(e.field)
            except Exception as e:  # noqa: BLE001 -- reported below
                errors.append(e)

    threads = [threading.Thread(target=work) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
    assert set(refused) <= {"rng"}
    assert rng.draws_u32 == 2 * len(done)  # every call that returned a token drew


# ------------------------------------------------------------------ 2, 13

@pytest.mark.parametrize("bad", [None, 3, "rng"])
def test_a_batch_row_without_a_generator_raises_naming_it(bad):
    rngs = [xs.stream(1), bad, xs.stream(3)]
    before = state(rngs[0])
    with pytest.raises(xs.SampleError) as e:
        xs.sample_batch(ROWS[:3], None, rngs)
    assert e.value.field == "rngs"
    assert str(e.value).startswith("rngs[1]: ")
    assert "is not a generator (exactsample.Pcg32)" in str(e.value)
    assert state(rngs[0]) == before


@pytest.mark.parametrize("kwargs,field,message", [
    ({"logit_bias": {"x": 1.0}}, "constraints.logit_bias",
     'constraints.logit_bias key "x": not an id in canonical decimal'),
    ({"logit_bias": {1.0: 1.0}}, "constraints.logit_bias",
     "constraints.logit_bias key 1.0: not an id (an int, or its canonical decimal string)"),
    ({"logit_bias": {1: "a"}}, "constraints.logit_bias", "constraints.logit_bias[1] = 'a': a bias is a number"),
    ({"logit_bias": {1: None}}, "constraints.logit_bias", "constraints.logit_bias[1] = None: a bias is a number"),
    ({"logit_bias": {1: True}}, "constraints.logit_bias", "constraints.logit_bias[1] = True: a bias is a number"),
    ({"logit_bias": {True: 1.0}}, "constraints.logit_bias", "constraints.logit_bias key True: not an id"),
    ({"logit_bias": {" 1": 1.0}}, "constraints.logit_bias", 'constraints.logit_bias key " 1": not an id in canonical'),
    ({"logit_bias": {"+1": 1.0}}, "constraints.logit_bias", 'constraints.logit_bias key "+1": not an id in canonical'),
    ({"logit_bias": {"01": 1.0}}, "constraints.logit_bias", 'constraints.logit_bias key "01": not an id in canonical'),
    ({"logit_bias": {"1": 2.0, 1: 3.0}}, "constraints.logit_bias", "constraints.logit_bias: id 1 given twice"),
    ({"prompt": b"\x01\x02"}, "prompt", "prompt: bytes is not a sequence of token ids"),
    ({"generated": bytearray(b"\x01")}, "generated",
     "generated: bytearray is not a sequence of token ids"),
    ({"prompt": [1, True]}, "prompt", "prompt[1] = True: not an integer"),
    ({"banned_token_ids": [False]}, "constraints.banned_token_ids", "constraints.banned_token_ids[0] = False"),
    ({"allowed_token_ids": []}, "constraints.allowed_token_ids",
     "constraints.allowed_token_ids: empty, so no id may be drawn; leave it out to allow every id"),
    ({"allowed_token_ids": np.array([], dtype=np.int32)}, "constraints.allowed_token_ids",
     "constraints.allowed_token_ids: empty, so no id may be drawn"),
])
def test_bad_inputs_raise_naming_the_field(kwargs, field, message):
    rng = xs.stream(2)
    before = state(rng)
    for call in (lambda: xs.sample(ROWS[0], None, rng, **constrained(kwargs)),
                 lambda: xs.validate(ROWS[0], None, **constrained(kwargs))):
        with pytest.raises(xs.SampleError) as e:
            call()
        assert (e.value.field, str(e.value)[:len(message)]) == (field, message)
    assert state(rng) == before
    # In a batch the row is named too, and no generator moves.
    rngs = [xs.stream(1), xs.stream(2)]
    per_row = {}
    if any(k in CONSTRAINT_FIELDS for k in kwargs):
        per_row["constraints"] = [None, constrained(kwargs)["constraints"]]
    if "prompt" in kwargs:
        per_row["prompts"] = [None, kwargs["prompt"]]
    if "generated" in kwargs:
        per_row["generated"] = [None, kwargs["generated"]]
    with pytest.raises(xs.SampleError) as e:
        xs.sample_batch(ROWS[:2], None, rngs, **per_row)
    assert e.value.field.startswith(field.rstrip("s"))
    assert [r.draws_u32 for r in rngs] == [0, 0]


def test_the_empty_allow_list_is_degenerate():
    with pytest.raises(xs.SampleError) as e:
        xs.sample(ROWS[0], None, xs.stream(1), constraints=xs.Constraints(allowed_token_ids=[]))
    assert e.value.code == "degenerate"


def test_bools_are_no_parameters():
    for name, value in [("top_k", True), ("top_logprobs", False), ("temperature", True)]:
        with pytest.raises(TypeError, match=f"^{name}: expected an? (int|float), got "):
            xs.SamplingParams(**{name: value})
        p = xs.SamplingParams()
        with pytest.raises(TypeError, match=f"^{name}: expected"):
            setattr(p, name, value)
        assert p == xs.SamplingParams()
    p = xs.SamplingParams()
    p.top_k, p.temperature = 3, 0.5
    assert (p.top_k, p.temperature) == (3, 0.5)


# ------------------------------------------------------------------ 17, 18

def test_bias_and_mask_errors_are_the_programs(cli, tmp_path):
    """The same bad request through the module and `exactsample replay`:
    one message."""
    x = [0.0, 1.0, 2.0, 3.0]
    bad = [{"logit_bias": {"4": 1.0}}, {"logit_bias": {"01": 1.0}},
           {"logit_bias": {" 1": 1.0}}, {"logit_bias": {"+1": 1.0}},
           {"allowed_token_ids": [4]}, {"allowed_token_ids": [-1]},
           {"banned_token_ids": [0, 9]}, {"allowed_token_ids": []},
           {"allowed_token_ids": [1, 99999999999]}]
    path = tmp_path / "cases.json"
    path.write_text(json.dumps({"cases": [{"name": str(i), "logits": x, "seed": 1,
                                           "params": p} for i, p in enumerate(bad)]}))
    out = subprocess.run([cli, "replay", str(path)], capture_output=True, text=True)
    lines = [json.loads(line)["error"] for line in out.stdout.splitlines()]
    module = []
    for p in bad:
        with pytest.raises(xs.SampleError) as e:
            xs.sample(np.array(x, dtype=np.float32), None, xs.stream(1), **constrained(p))
        module.append(str(e.value))
    # The program's words, under the field that holds them here.
    assert module == ["constraints." + line for line in lines]


# ------------------------------------------------------------------ 19

def test_validate_answers_what_sample_would():
    x = np.array([-3e38, 0.5, -np.inf, 2.0], dtype=np.float32)
    low = np.array([-3e38, -np.inf], dtype=np.float32)
    words = np.zeros(1, dtype=np.uint32)
    words[0] = 1 << 2  # only id 2, whose logit is -inf
    # Inputs whose error only the steps find: masks, penalties, temperature.
    cases = [
        (x, None, {"allowed_token_ids": [2]}),
        (x, None, {"banned_token_ids": [0, 1, 3]}),
        (x, None, {"allowed_bitmask": words}),
        (x, None, {"allowed_token_ids": [0, 1], "banned_token_ids": [0, 1]}),
        (x, xs.SamplingParams(temperature=1e-320), {}),
        (low, xs.SamplingParams(repetition_penalty=1e308), {"prompt": [0]}),
        (x, xs.SamplingParams(frequency_penalty=-1.7e308), {"generated": [3, 3]}),
        (x, xs.SamplingParams(presence_penalty=-1.7e308, frequency_penalty=-1.7e308),
         {"generated": [1]}),
        (low, xs.SamplingParams(repetition_penalty=2.0),
         {"prompt": [0], "logit_bias": {0: -1.7e308}}),
    ]
    for row, params, kwargs in cases:
        rng = xs.stream(1)
        with pytest.raises(xs.SampleError) as sampled:
            xs.sample(row, params, rng, **constrained(kwargs))
        assert rng.draws_u32 == 0
        with pytest.raises(xs.SampleError) as validated:
            xs.validate(row, params, **constrained(kwargs))
        assert (validated.value.field, validated.value.code, str(validated.value)) == \
            (sampled.value.field, sampled.value.code, str(sampled.value)), (params, kwargs)
    xs.validate(x, xs.SamplingParams(temperature=0.5), prompt=[1])  # a good one passes


# ------------------------------------------------- this round's new calls

def seq_state(seq):
    return (state(seq.rng), list(seq.generated))


SPEC_X = ROWS[:3, :40]
SPEC_Y = ROWS[3:5, :40]


def new_calls():
    """The calls of this round that take a generator, each with what it
    changes: (name, call, state before and after)."""
    seqs = [xs.Sequence(500, None, seed=s) for s in range(len(ROWS))]
    rngs = [xs.stream(20), xs.stream(21)]
    return [
        ("Sequence.sample", lambda: seqs[0].sample(ROWS[0]), lambda: seq_state(seqs[0])),
        ("Sequence.sample_only", lambda: seqs[1].sample_only(ROWS[1]),
         lambda: seq_state(seqs[1])),
        ("sample_batch of sequences", lambda: xs.sample_batch(seqs, ROWS, threads=2),
         lambda: [seq_state(s) for s in seqs]),
        ("verify", lambda: xs.verify(SPEC_X, SPEC_Y, [3, 2], None, rngs[0]),
         lambda: state(rngs[0])),
        ("verify_batch", lambda: xs.verify_batch([SPEC_X, SPEC_X], [SPEC_Y, SPEC_Y],
                                                 [[3, 2], [1, 2]], None, rngs),
         lambda: [state(r) for r in rngs]),
        ("Sequence.verify", lambda: seqs[2].verify(ROWS[:3], ROWS[3:5], [3, 2]),
         lambda: seq_state(seqs[2])),
    ]


@pytest.mark.parametrize("index", range(6))
def test_an_interrupt_during_the_new_calls_changes_nothing(index):
    for hook, raised in [(interrupt(), KeyboardInterrupt), (lambda: 1 / 0, ZeroDivisionError)]:
        name, call, now = new_calls()[index]
        before = now()
        xs.testing.on_next_call(hook)
        with pytest.raises(raised):
            call()
        assert now() == before, name
        name, call, now = new_calls()[index]  # the same call, uninterrupted
        call()
        assert now() != before, name  # it does draw (and append) when not interrupted
    xs.testing.on_next_call(None)


def test_the_new_calls_refuse_what_another_call_is_using():
    seq = xs.Sequence(500, None, seed=1)
    rng = xs.stream(2)
    refused = []

    def on_the_sequence():
        for call in [lambda: seq.sample(ROWS[1]),
                     lambda: xs.sample_batch([seq], ROWS[:1])]:
            with pytest.raises(RuntimeError, match="in use by another thread"):
                call()
            refused.append("seq")

    def on_the_generator():
        for call, field in [(lambda: xs.verify(SPEC_X, SPEC_Y, [3, 2], None, rng), "rng"),
                            (lambda: xs.verify_batch([SPEC_X], [SPEC_Y], [[3, 2]], None,
                                                     [rng]), "rngs")]:
            with pytest.raises(xs.SampleError) as e:
                call()
            refused.append((e.value.field, "in use by another call" in str(e.value)))

    xs.testing.on_next_call(on_the_sequence)
    token = seq.sample(ROWS[0])
    assert list(seq.generated) == [token.id]  # the first call's token, nothing lost
    xs.testing.on_next_call(on_the_generator)
    v = xs.verify(SPEC_X, SPEC_Y, [3, 2], None, rng)
    assert refused == ["seq", "seq", ("rng", True), ("rngs", True)]
    fresh = xs.stream(2)
    assert xs.verify(SPEC_X, SPEC_Y, [3, 2], None, fresh).ids == v.ids
    assert state(rng) == state(fresh)  # the first call's draws, nothing lost


@pytest.mark.parametrize("bad,message", [(None, "NoneType is not a generator"),
                                         (3, "int is not a generator"),
                                         ("same", "the same generator as an earlier")])
def test_verify_batch_names_a_bad_generator(bad, message):
    rngs = [xs.stream(1)]
    rngs.append(rngs[0] if bad == "same" else bad)
    with pytest.raises(xs.SampleError) as e:
        xs.verify_batch([SPEC_X, SPEC_X], [SPEC_Y, SPEC_Y], [[3, 2], [3, 2]], None, rngs)
    assert (e.value.field, message in str(e.value), str(e.value).startswith("rngs[1]")) == \
        ("rngs", True, True), str(e.value)
    assert rngs[0] == xs.stream(1)
