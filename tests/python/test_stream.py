"""The generators: spec/pcg32.md's vectors, stream() as
tools/spec_sampler.py defines it, advance and the hand-off."""

import copy
import json
import os

import numpy as np

import exactsample as xs
import spec_sampler
from conftest import TEST_DATA


def test_spec_vectors():
    with open(os.path.join(TEST_DATA, "pcg32_vectors.json"), encoding="utf-8") as f:
        vectors = json.load(f)
    for initstate, outputs in vectors["next_u32"].items():
        g = xs.Pcg32.seeded(int(initstate))
        assert [g.next_u32() for _ in outputs] == outputs


def test_streams_equal_the_transcription():
    for seed in (0, 1, 42, 2**64 - 1):
        for purpose in (xs.Purpose.SAMPLE, xs.Purpose.INIT, 7):
            ours = xs.stream(seed, purpose)
            theirs = spec_sampler.stream(seed, int(purpose))
            assert [ours.next_u32() for _ in range(20)] == [theirs.next_u32() for _ in range(20)]
            assert ours.uniform_f64().hex() == theirs.uniform_f64().hex()
            assert (ours.state, ours.inc, ours.draws_u32) == (theirs.state, theirs.inc, 22)
    assert xs.stream(5) == xs.stream(5, xs.Purpose.SAMPLE) == xs.stream(5, 4)


def test_advance_and_draws():
    a, b = xs.stream(9), xs.stream(9)
    for _ in range(1000):
        a.next_u32()
    b.advance(1000)
    assert a == b and b.draws_u32 == 1000
    c = copy.deepcopy(b)
    c.next_u32()
    assert c != b and copy.copy(b) == b == b.copy()


def test_handoff():
    logits = np.random.default_rng(1).normal(size=3000).astype(np.float32)
    params = xs.SamplingParams(temperature=0.9, top_p=0.95)
    one = xs.stream(77)
    first = [xs.sample(logits, params, one) for _ in range(3)]
    # A second worker continues from the reported draws, or from the plain state.
    two = xs.stream(77)
    two.advance(one.draws_u32)
    three = xs.Pcg32.from_state(one.state, one.inc, one.draws_u32)
    assert two == one == three
    rest = [xs.sample(logits, params, g) for g in (one, two, three)]
    assert rest[0] == rest[1] == rest[2] and len(first) == 3
    assert repr(three).startswith("Pcg32(state=0x")
