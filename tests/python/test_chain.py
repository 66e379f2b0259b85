"""The module's chain fields (docs/llama-samplers.md): SamplingParams.chain
and llama.cpp's samplers' fields, their errors, and the fixture's stateless
cases (tests/data/chain_golden.json, written by tools/spec_sampler.py) on
the reference engine and on the fast engine on every supported target."""

import json
import os

import numpy as np
import pytest

import exactsample as xs
from conftest import TEST_DATA, hexes, module_replay


def chain_cases():
    with open(os.path.join(TEST_DATA, "chain_golden.json"), encoding="utf-8") as f:
        return json.load(f)["cases"]


# Mirostat and adaptive-p carry state a stateless call starts afresh: those
# cases are the C++ program's.
STATELESS = [c for c in chain_cases() if not {"mirostat", "adaptive_target"} & set(c["params"])]


def test_stateless_fixture_cases(engine):
    assert len(STATELESS) >= 17
    assert {"dry_breakers", "bad_breaker"} <= {c["name"] for c in STATELESS}
    for case in STATELESS:
        got = module_replay(case, engine)
        if "error" in case:
            assert got.get("error") == case["error"], case["name"]
        else:
            assert (got["ids"], hexes(got["logprobs"])) == (case["ids"],
                                                            hexes(case["logprobs"])), case["name"]


def test_chain_values():
    assert xs.SamplingParams().chain == "spec"
    assert xs.SamplingParams(chain="llama").chain == "llama"
    p = xs.SamplingParams(chain=["top_k", "temperature"], top_k=3)
    assert p.chain == ["top_k", "temperature"]
    assert p != xs.SamplingParams(top_k=3)
    assert "chain=['top_k', 'temperature']" in repr(p)
    p.chain = "spec"
    assert p == xs.SamplingParams(top_k=3)
    q = xs.SamplingParams(mirostat=2, mirostat_tau=1.5, typical_p=0.9)
    assert (q.mirostat, q.mirostat_tau, q.typical_p) == (2, 1.5, 0.9)


def test_chain_errors():
    with pytest.raises(ValueError, match="chain = 'fast': not a preset"):
        xs.SamplingParams(chain="fast")
    with pytest.raises(ValueError, match=r"chain\[1\] = 'topk': not a step"):
        xs.SamplingParams(chain=["top_k", "topk"])
    with pytest.raises(ValueError, match="chain: not a preset name or a list of step names"):
        xs.SamplingParams(chain=3)
    with pytest.raises(TypeError, match="mirostat: expected an int"):
        xs.SamplingParams(mirostat=1.5)


def test_breakers_values():
    assert xs.SamplingParams().dry_sequence_breakers == []
    p = xs.SamplingParams(dry_multiplier=1.5, dry_sequence_breakers=[[5], (3, 4)])
    assert p.dry_sequence_breakers == [[5], [3, 4]]
    assert "dry_sequence_breakers=[[5], [3, 4]]" in repr(p)
    q = xs.SamplingParams(dry_multiplier=1.5)
    assert p != q
    q.dry_sequence_breakers = [[5], [3, 4]]
    assert p == q
    q.dry_sequence_breakers = [[5], [3]]
    assert p != q


def test_breakers_type_errors():
    for bad, where in [(5, ""), ([5], r"\[0\]"), ([[1], [2.5]], r"\[1\]"), ([[True]], r"\[0\]")]:
        with pytest.raises(TypeError, match="dry_sequence_breakers" + where + ": expected a list of id lists"):
            xs.SamplingParams(dry_sequence_breakers=bad)
    with pytest.raises(ValueError, match=r"dry_sequence_breakers\[0\]: id 4294967296 is outside int32"):
        xs.SamplingParams(dry_sequence_breakers=[[2 ** 32]])


def test_breakers_bad_values_are_the_pages():
    logits = np.array([0.5, 1.5, -1.0, 0.25], dtype=np.float32)
    for breakers, message in [
            ([[]], "dry_sequence_breakers[0]: empty"),
            ([[1], [0] * 22], "dry_sequence_breakers[1]: 22 ids, at most 21"),
            ([[1], [1], [9]], "dry_sequence_breakers[2][0] = 9: outside [0, 4)")]:
        p = xs.SamplingParams(dry_multiplier=1.0, dry_sequence_breakers=breakers)
        rng = xs.stream(1)
        with pytest.raises(xs.SampleError) as e:
            xs.sample(logits, p, rng)
        assert str(e.value) == message
        assert rng.draws_u32 == 0


# A sequence copies its breakers; its params' copy outlives it.
def test_sequence_breakers_outlive_their_sources():
    logits = np.array([0.5, 1.5, -1.0, 0.25, 2.0, 0.1], dtype=np.float32)
    p = xs.SamplingParams(dry_multiplier=2.0, dry_allowed_length=1, dry_sequence_breakers=[[4]])
    seq = xs.Sequence(6, p, seed=3)
    p.dry_sequence_breakers = [[1]]
    kept = seq.params
    del seq
    assert kept.dry_sequence_breakers == [[4]]
    seq = xs.Sequence(6, kept, seed=3)
    other = xs.Sequence(6, xs.SamplingParams(dry_multiplier=2.0, dry_allowed_length=1), seed=3)
    got = [seq.sample(logits).id for _ in range(12)]
    without = [other.sample(logits).id for _ in range(12)]
    assert got != without  # the breaker changed something, or the test shows nothing
