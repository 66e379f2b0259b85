"""What the module reads (in place or copied), and how it rejects bad input:
a SampleError naming the field, with the generator untouched."""

import numpy as np
import pytest

import exactsample as xs

V = 1000


def row(seed=1, vocab=V):
    return np.random.default_rng(seed).normal(0.0, 2.0, vocab).astype(np.float32)


def test_contiguous_rows_are_read_in_place():
    a = row()
    assert xs._exactsample._read_address(a) == a.ctypes.data
    view = a[10:]
    assert xs._exactsample._read_address(view) == view.ctypes.data
    block = np.stack([row(1), row(2)])
    assert xs._exactsample._read_address(block, 2) == block.ctypes.data
    # A buffer-protocol object that is not a numpy array.
    mem = memoryview(a)
    assert xs._exactsample._read_address(mem) == a.ctypes.data


def test_sample_sees_the_callers_buffer():
    a = row()
    greedy = xs.SamplingParams(temperature=0)
    rng = xs.stream(1)
    first = xs.sample(a, greedy, rng).id
    a[(first + 1) % V] = 100.0
    assert xs.sample(a, greedy, rng).id == (first + 1) % V


def test_strided_views_are_accepted_and_copied():
    wide = row(3, 2 * V)
    view = wide[::2]
    assert xs._exactsample._read_address(view) != view.ctypes.data
    params = xs.SamplingParams(temperature=0.8, top_p=0.9)
    a, b = xs.stream(5), xs.stream(5)
    for _ in range(5):
        assert xs.sample(view, params, a) == xs.sample(np.ascontiguousarray(view), params, b)
    block = np.stack([row(1), row(2)])[:, ::2]  # rows strided within
    rngs = [xs.stream(1), xs.stream(2)]
    want = [xs.sample(np.ascontiguousarray(r), params, xs.stream(s))
            for r, s in zip(block, (1, 2))]
    assert xs.sample_batch(block, params, rngs) == want


def test_unaligned_buffer_is_copied():
    raw = np.zeros(4 * V + 1, dtype=np.uint8)
    a = raw[1:].view(np.float32)
    a[:] = row()
    assert not a.flags.aligned
    assert xs.sample(a, None, xs.stream(2)) == xs.sample(row(), None, xs.stream(2))


@pytest.mark.parametrize("bad, words", [
    (row().astype(np.float64), ["float64", "float32", "astype"]),
    (row().astype(">f2"), [">f2", "float16", "byte order"]),  # <f2: tests/python/test_half_rows.py
    (row().astype(np.int32), ["int32", "float32"]),
    (row().astype(">f4"), [">f4", "byte order"]),
    ([0.5, 1.0], ["float64", "float32"]),
    (np.stack([row(), row()]), ["2-D", "sample_batch"]),
    (np.float32(1.0), ["0-D", "(V,)"]),
    (np.zeros(0, dtype=np.float32), ["empty"]),
    (np.array([1.0, np.nan], dtype=np.float32), ["logits"]),
    (np.array([-np.inf, -np.inf], dtype=np.float32), ["logits"]),
    (object(), ["float32"]),
])
def test_bad_logits(bad, words):
    rng = xs.stream(7)
    with pytest.raises(xs.SampleError) as e:
        xs.sample(bad, None, rng)
    assert e.value.field == "logits"
    assert e.value.code == "invalid_logits"
    for w in words:
        assert w in str(e.value)
    assert rng == xs.stream(7)


def test_batch_wants_two_dimensions():
    with pytest.raises(xs.SampleError, match="1-D array.*rows x V") as e:
        xs.sample_batch(row(), None, [xs.stream(1)])
    assert e.value.field == "rows"


@pytest.mark.parametrize("params, field", [
    (dict(temperature=-1.0), "temperature"),
    (dict(temperature=float("nan")), "temperature"),
    (dict(top_p=-0.1), "top_p"),
    (dict(min_p=1.5), "min_p"),
    (dict(top_k=-1), "top_k"),
    (dict(repetition_penalty=0.0), "repetition_penalty"),
    (dict(presence_penalty=float("inf")), "presence_penalty"),
    (dict(frequency_penalty=float("nan")), "frequency_penalty"),
    (dict(top_logprobs=21), "top_logprobs"),
])
def test_bad_params(params, field):
    rng = xs.stream(3)
    rng.advance(10)
    before = rng.copy()
    with pytest.raises(xs.SampleError) as e:
        xs.sample(row(), xs.SamplingParams(**params), rng)
    assert isinstance(e.value, ValueError)
    assert (e.value.field, e.value.code) == (field, "invalid_parameter")
    assert str(e.value).startswith(field + " = ")
    assert rng == before
    with pytest.raises(xs.SampleError) as e:
        xs.validate(row(), xs.SamplingParams(**params))
    assert e.value.field == field


@pytest.mark.parametrize("kw, field, words", [
    (dict(prompt=[0, V]), "prompt", "prompt[1] = 1000: outside [0, V) with V = 1000"),
    (dict(prompt=[-1]), "prompt", "prompt[0] = -1: outside"),
    (dict(generated=[1, 2**40]), "generated", f"generated[1] = {2**40}: outside"),
    (dict(generated=[1.5]), "generated", "generated[0] = 1.5: not an integer"),
    (dict(prompt="12"), "prompt", "not a sequence"),
    (dict(prompt=np.array([1, V], dtype=np.int64)), "prompt", "prompt[1] = 1000"),
])
def test_bad_ids(kw, field, words):
    rng = xs.stream(3)
    with pytest.raises(xs.SampleError) as e:
        xs.sample(row(), None, rng, **kw)
    assert (e.value.field, e.value.code) == (field, "invalid_ids")
    assert words in str(e.value)
    assert rng == xs.stream(3)


def test_top_and_processed_logprobs():
    logits = np.array([1.0, 3.0, 2.0, 3.0, -np.inf, 0.5], dtype=np.float32)
    for engine in ("reference", "fast"):
        t = xs.sample(logits, xs.SamplingParams(top_logprobs=20), xs.stream(0), engine=engine)
        assert [i for i, _ in t.top_logprobs] == [1, 3, 2, 0, 5]  # -inf left out
        assert t.top_logprobs[0][1] == t.top_logprobs[1][1]
        assert t.processed_logprob == t.logprob  # T = 1, no filter: K is every id
        greedy = xs.sample(logits, xs.SamplingParams(temperature=0), xs.stream(0), engine=engine)
        assert (greedy.processed_logprob, greedy.top_logprobs) == (0.0, [])


def test_ids_from_arrays_and_lists_agree():
    params = xs.SamplingParams(repetition_penalty=1.3, frequency_penalty=0.5)
    history = [3, 17, 17, 900]
    want = xs.sample(row(), params, xs.stream(9), prompt=history)
    for ids in (np.array(history, dtype=np.int32), np.array(history), tuple(history),
                np.array(history + [0], dtype=np.int32)[:-1]):
        assert xs.sample(row(), params, xs.stream(9), prompt=ids) == want


def test_degenerate_penalties():
    logits = np.array([3e38, -1.0], dtype=np.float32)
    with pytest.raises(xs.SampleError) as e:
        xs.sample(logits, xs.SamplingParams(repetition_penalty=1e-300), xs.stream(1), prompt=[0])
    assert (e.value.field, e.value.code) == ("penalties", "degenerate")


def test_bad_engine_and_target():
    with pytest.raises(xs.SampleError) as e:
        xs.sample(row(), None, xs.stream(1), engine="turbo")
    assert e.value.field == "engine"
    with pytest.raises(xs.SampleError) as e:
        xs.testing.force_target("NOSUCH")
    assert e.value.field == "target"


def test_batch_errors_are_returned_per_row():
    block = np.stack([row(1), row(2), row(3)])
    rngs = [xs.stream(s) for s in (1, 2, 3)]
    params = [None, xs.SamplingParams(top_p=-1.0), xs.SamplingParams(top_k=5)]
    out = xs.sample_batch(block, params, rngs, prompts=[[1], [2], [3]])
    assert isinstance(out[1], xs.SampleError) and out[1].field == "top_p"
    assert rngs[1] == xs.stream(2)
    assert out[0] == xs.sample(block[0], None, xs.stream(1), prompt=[1])
    assert out[2] == xs.sample(block[2], params[2], xs.stream(3), prompt=[3])
    assert rngs[2].draws_u32 == 2


def test_batch_argument_errors():
    block = np.stack([row(1), row(2)])
    shared = xs.stream(1)
    with pytest.raises(xs.SampleError) as e:
        xs.sample_batch(block, None, [shared, shared])
    assert e.value.field == "rngs"
    with pytest.raises(xs.SampleError) as e:
        xs.sample_batch(block, [None], [xs.stream(1), xs.stream(2)])
    assert e.value.field == "params"
    with pytest.raises(xs.SampleError) as e:
        xs.sample_batch(block, None, [xs.stream(1)])
    assert e.value.field == "rngs"
    with pytest.raises(xs.SampleError) as e:
        xs.sample_batch(block, None, [xs.stream(1), xs.stream(2)], prompts=[[0], [2**40]])
    assert e.value.field == "prompts[1]"
    # An id the library rejects is that row's error.
    out = xs.sample_batch(block, None, [xs.stream(1), xs.stream(2)], prompts=[[0], [V]])
    assert out[1].field == "prompt" and isinstance(out[0], xs.Token)


def test_sampling_params():
    p = xs.SamplingParams(temperature=0.7, top_k=50)
    assert (p.temperature, p.top_k, p.top_p, p.min_p) == (0.7, 50, 1.0, 0.0)
    assert p == xs.SamplingParams(top_k=50, temperature=0.7)
    assert p != xs.SamplingParams()
    assert repr(xs.SamplingParams(top_p=0.9)).startswith("SamplingParams(temperature=1.0, ")
    p.top_p = 0.5
    assert p.top_p == 0.5
    with pytest.raises(TypeError, match="unknown field top_n"):
        xs.SamplingParams(top_n=3)
    with pytest.raises(TypeError, match="top_k: expected an int"):
        xs.SamplingParams(top_k=2.5)


def test_logprob_off_keeps_ids_and_generator():
    params = xs.SamplingParams(top_k=40)
    a, b = xs.stream(4), xs.stream(4)
    for _ in range(5):
        on = xs.sample(row(), params, a)
        off = xs.sample(row(), params, b, logprob=False)
        assert on.id == off.id and np.isnan(off.logprob)
    assert a == b

