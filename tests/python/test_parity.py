"""The module gives the ids, logprob bits, errors and generator positions of
the golden fixture, tools/spec_sampler.py and `exactsample replay`, on the
reference engine and on the fast engine on every supported target."""

import pytest

import replay_cases
from conftest import cli_replay, golden_cases, hexes, module_replay, spec_replay

# Edge cases, bad inputs, then random requests (log-uniform V up to 5000).
CASES = replay_cases.random_cases(300, 15, 5000)
# Large vocabularies, against the C++ program only (the transcription is slow there).
LARGE = [c for c in replay_cases.random_cases(40, 16, 262144, 100000)
         if c["name"].startswith("random_")]


@pytest.fixture(scope="module")
def spec_results():
    return [spec_replay(c) for c in CASES]


@pytest.fixture(scope="module")
def cli_results(cli, tmp_path_factory):
    return {name: cli_replay(cli, CASES + LARGE, tmp_path_factory, ["--engine", name])
            for name in ("reference", "fast")}


def same(a, b):
    """(ids, logprob bits) or the error-or-not of two replay lines."""
    if "error" in a or "error" in b:
        return ("error" in a) == ("error" in b)
    return (a["ids"], hexes(a["logprobs"])) == (b["ids"], hexes(b["logprobs"]))


def test_golden_fixture(engine):
    for case in golden_cases():
        got = module_replay(case, engine)
        assert (got["ids"], hexes(got["logprobs"])) == (case["ids"], hexes(case["logprobs"])), \
            case["name"]


def test_random_requests_equal_spec_sampler(engine, spec_results):
    for case, want in zip(CASES, spec_results):
        got = module_replay(case, engine)
        assert same(got, want), (case["name"], got, want)
        if "error" not in got:
            assert got["draws_u32"] == want["draws_u32"], case["name"]


def test_random_requests_equal_replay(engine, cli_results):
    # The program's fast engine runs on the best target; the module's on each.
    for case, want in zip(CASES + LARGE, cli_results[engine]):
        got = module_replay(case, engine)
        assert want["name"] == case["name"]
        assert same(got, want), (case["name"], got, want)
        if "error" in got and not got.get("unparsed"):
            assert got["error"] == want["error"], case["name"]  # the C++ message
