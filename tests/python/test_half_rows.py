"""16-bit rows through the module: float16 arrays, and bf16 (or f16) words
as uint16/int16 arrays with dtype='bf16' ('f16'), give exactly what the row
widened to float32 by numpy gives (id, logprob bits, processed logprob, top
logprobs, generator), on both engines and every supported target; bad
dtypes are refused naming the field."""

import struct

import numpy as np
import pytest

import exactsample as xs


def bits(v):
    return struct.pack("<d", v)


def outcome(token, rng):
    return (token.id, bits(token.logprob), bits(token.processed_logprob),
            [(i, bits(lp)) for i, lp in token.top_logprobs], rng.state, rng.draws_u32)


def bf16_words(x):
    """float32 values to bf16 words (truncated: any words will do)."""
    return (np.asarray(x, np.float32).view(np.uint32) >> 16).astype(np.uint16)


def bf16_widened(words):
    return (words.astype(np.uint32) << 16).view(np.float32)


def rows(seed, v):
    """(the 16-bit array, its dtype keyword, the float32 row numpy widens)."""
    x = np.random.default_rng(seed).normal(0.0, 3.0, v)
    if v > 10:
        x[np.random.default_rng(seed + 1).integers(0, v, 3)] = -np.inf
    f16 = x.astype(np.float16)
    words = bf16_words(x)
    return [(f16, None, f16.astype(np.float32)),
            (f16.view(np.uint16), "f16", f16.astype(np.float32)),
            (words, "bf16", bf16_widened(words)),
            (words.view(np.int16), "bf16", bf16_widened(words))]


def supported_targets():
    return [t.name for t in xs.compiled_targets() if t.supported]


PARAMS = [xs.SamplingParams(),
          xs.SamplingParams(temperature=0.7, top_k=40, top_p=0.9, top_logprobs=5),
          xs.SamplingParams(temperature=0, top_logprobs=20),
          xs.SamplingParams(temperature=1.3, min_p=0.05, repetition_penalty=1.2,
                            top_logprobs=3)]


@pytest.mark.parametrize("target", supported_targets())
def test_sample_equals_the_widened_row(target):
    xs.testing.force_target(target)
    try:
        for seed, v in [(1, 1), (2, 37), (3, 5000), (4, 128256)]:
            for half, dtype, widened in rows(seed, v):
                for k, p in enumerate(PARAMS):
                    for engine in ("reference", "fast"):
                        if engine == "reference" and v > 5000:
                            continue
                        kw = dict(engine=engine, prompt=[0], generated=[0, v - 1],
                                  constraints=xs.Constraints(logit_bias={0: 1.5}) if k % 2
                                  else None)
                        a, b = xs.stream(seed), xs.stream(seed)
                        got = xs.sample(half, p, a, dtype=dtype, **kw)
                        want = xs.sample(widened, p, b, **kw)
                        assert outcome(got, a) == outcome(want, b), (seed, v, dtype, k, engine)
    finally:
        xs.testing.force_target("")


def test_every_finite_f16_word_widens_as_numpy_does():
    # One row of every finite f16 value: Z sums them all, so a word widened
    # differently changes the logprob's bits; top-20 shows the largest.
    words = np.arange(65536, dtype=np.uint32).astype(np.uint16)
    f16 = words.view(np.float16)
    f16 = f16[np.isfinite(f16)]
    small = f16[np.abs(f16.astype(np.float32)) < 16]
    for row in (f16, small, small[::-1].copy()):
        p = xs.SamplingParams(top_logprobs=20)
        a, b = xs.stream(5), xs.stream(5)
        assert outcome(xs.sample(row, p, a), a) == \
            outcome(xs.sample(row.astype(np.float32), p, b), b)
    # bf16: every word with |value| < 16, widened by a shift.
    all_bf16 = np.arange(65536, dtype=np.uint32).astype(np.uint16)
    wide = bf16_widened(all_bf16)
    keep = np.isfinite(wide) & (np.abs(wide) < 16)
    a, b = xs.stream(6), xs.stream(6)
    p = xs.SamplingParams(top_logprobs=20)
    assert outcome(xs.sample(all_bf16[keep], p, a, dtype="bf16"), a) == \
        outcome(xs.sample(wide[keep], p, b), b)


def test_sample_batch_and_validate_take_16_bit_rows():
    r = np.random.default_rng(8)
    block = r.normal(0, 2, (6, 3000)).astype(np.float32)
    words = bf16_words(block)
    for half, dtype, widened in [(block.astype(np.float16), None,
                                  block.astype(np.float16).astype(np.float32)),
                                 (words, "bf16", bf16_widened(words)),
                                 (words[:, ::2], "bf16", bf16_widened(words[:, ::2]))]:
        p = [xs.SamplingParams(temperature=0.9, top_logprobs=4), None] * 3
        ga = [xs.stream(i) for i in range(6)]
        gb = [xs.stream(i) for i in range(6)]
        got = xs.sample_batch(half, p, ga, threads=2, dtype=dtype)
        want = xs.sample_batch(widened, p, gb, threads=2)
        assert [outcome(t, g) for t, g in zip(got, ga)] == \
            [outcome(t, g) for t, g in zip(want, gb)]
        xs.validate(half[0], None, dtype=dtype)


def test_contiguous_16_bit_rows_are_read_in_place():
    words = bf16_words(np.ones(100, np.float32))
    assert xs._exactsample._read_address(words, dtype="bf16") == words.ctypes.data
    f16 = np.ones(100, np.float16)
    assert xs._exactsample._read_address(f16) == f16.ctypes.data
    view = f16[::3]
    assert xs._exactsample._read_address(view) != view.ctypes.data


@pytest.mark.parametrize("word,dtype", [(0x7C00, "f16"), (0x7E00, "f16"), (0x7F80, "bf16"),
                                        (0xFFC0, "bf16")])
def test_nan_and_inf_words_are_rejected_naming_logits(word, dtype):
    words = np.full(10, 0x3C00 if dtype == "f16" else 0x3F80, np.uint16)
    words[4] = word
    rng = xs.stream(1)
    for call in (lambda: xs.sample(words, None, rng, dtype=dtype),
                 lambda: xs.validate(words, None, dtype=dtype)):
        with pytest.raises(xs.SampleError) as e:
            call()
        assert e.value.field == "logits" and e.value.code == "invalid_logits"
        assert "logits[4]" in str(e.value)
    assert rng.draws_u32 == 0


def test_bad_dtypes_are_refused():
    words = np.ones(4, np.uint16)
    cases = [(words, None, "logits", "dtype='bf16'"),                 # words without a type
             (words, "f8", "dtype", "'f8'"),                        # no such type
             (np.ones(4, np.float32), "bf16", "logits", "bf16"),   # f32 array as bf16
             (np.ones(4, np.float16), "f32", "logits", "float16"),
             (np.ones(4, np.float64), None, "logits", "float64"),
             (np.ones(4, ">f2"), None, "logits", ">f2")]            # big-endian f16
    for row, dtype, field, text in cases:
        with pytest.raises(xs.SampleError) as e:
            xs.sample(row, None, xs.stream(1), dtype=dtype)
        assert e.value.field == field, (row.dtype, dtype)
        assert text in str(e.value), (row.dtype, dtype, str(e.value))
