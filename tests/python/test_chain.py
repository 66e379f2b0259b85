"""The module's chain fields (docs/llama-samplers.md): SamplingParams.chain
and llama.cpp's samplers' fields, their errors, and the fixture's stateless
cases (tests/data/chain_golden.json, written by tools/spec_sampler.py) on
the reference engine and on the fast engine on every supported target."""

import json
import os

import pytest

import exactsample as xs
from conftest import TEST_DATA, hexes, module_replay


def chain_cases():
    with open(os.path.join(TEST_DATA, "chain_golden.json"), encoding="utf-8") as f:
        return json.load(f)["cases"]


# Mirostat and adaptive-p carry state a stateless call starts afresh, and the
# module takes no breakers yet: those cases are the C++ program's.
STATELESS = [c for c in chain_cases()
             if not {"mirostat", "adaptive_target", "dry_sequence_breakers"} & set(c["params"])]


def test_stateless_fixture_cases(engine):
    assert len(STATELESS) >= 15
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
