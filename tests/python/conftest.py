"""Shared fixtures of the module's tests: the replay cases and their runs
through the module, tools/spec_sampler.py and `exactsample replay`.

Run by CTest (python/CMakeLists.txt), or by hand after a build:
    PYTHONPATH=build/python EXACTSAMPLE_CLI=build/exactsample /usr/bin/python3 -m pytest tests/python
"""

import json
import os
import subprocess
import sys

import numpy as np
import pytest

import exactsample as xs

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
TEST_DATA = os.path.join(ROOT, "tests", "data")
sys.path.insert(0, os.path.join(ROOT, "tools"))
import replay_cases  # noqa: E402
import spec_sampler  # noqa: E402

SUPPORTED_TARGETS = [t.name for t in xs.compiled_targets() if t.supported]
# The reference engine, and the fast engine on every target this CPU supports.
ENGINE_TARGETS = [("reference", "")] + [("fast", t) for t in SUPPORTED_TARGETS]


@pytest.fixture(params=ENGINE_TARGETS, ids=lambda p: p[1] or p[0])
def engine(request):
    """The engine name, with the fast engine forced to one target."""
    name, target = request.param
    xs.testing.force_target(target)
    yield name
    xs.testing.force_target("")


@pytest.fixture(scope="session")
def cli():
    return os.environ["EXACTSAMPLE_CLI"]


# The fields of xs.Constraints, which the replay cases keep among their params.
CONSTRAINT_FIELDS = ("logit_bias", "allowed_token_ids", "banned_token_ids", "allowed_bitmask")


def constrained(kwargs):
    """Keyword arguments with the bias and mask fields among them gathered
    into constraints=xs.Constraints(...) (none among them: unchanged)."""
    fields = {k: v for k, v in kwargs.items() if k in CONSTRAINT_FIELDS}
    rest = {k: v for k, v in kwargs.items() if k not in CONSTRAINT_FIELDS}
    if fields:
        rest["constraints"] = xs.Constraints(**fields)
    return rest


def hexes(values):
    """f64 bits, for comparisons without tolerance."""
    return [float(v).hex() for v in values]


# The tests replay each case once per engine; its request is read the first
# time. The cache holds the case too, so that no other case takes its id.
_REQUESTS = {}


def module_request(case):
    """(logits, prompt, params, seed, steps) of a replay case for the module,
    or the BadInput the reader raises for it."""
    if id(case) not in _REQUESTS:
        try:
            x, prompt, params, seed, steps = spec_sampler.read_case(case)
            # The bias and the mask are not the module's (yet): cases without them.
            for field in ("logit_bias", "allowed_token_ids", "banned_token_ids"):
                assert not params.pop(field), f"{case.get('name')}: {field} is not in the module"
            request = (np.array(x, dtype=np.float32), prompt, xs.SamplingParams(**params), seed,
                       steps)
        except spec_sampler.BadInput as e:
            request = e
        _REQUESTS[id(case)] = (case, request)
    return _REQUESTS[id(case)][1]


def module_replay(case, engine_name="fast"):
    """A replay case through the module, as a replay line: {"name", "ids",
    "logprobs"} or {"name", "error"}; `unparsed` marks a case the reader
    rejects before any sampling (a malformed field)."""
    name = case.get("name")
    request = module_request(case)
    if isinstance(request, spec_sampler.BadInput):
        return {"name": name, "error": str(request), "unparsed": True}
    logits, prompt, p, seed, steps = request
    rng = xs.stream(seed)
    ids, logprobs = [], []
    try:
        for _ in range(steps):
            token = xs.sample(logits, p, rng, prompt=prompt, generated=ids, engine=engine_name)
            ids.append(token.id)
            logprobs.append(token.logprob)
    except xs.SampleError as e:
        return {"name": name, "error": str(e)}
    return {"name": name, "ids": ids, "logprobs": logprobs, "draws_u32": rng.draws_u32}


def spec_replay(case):
    """The same through tools/spec_sampler.py, with the generator's draws."""
    result = spec_sampler.replay_case(case)
    if "error" not in result:
        x, prompt, params, seed, steps = spec_sampler.read_case(case)
        sampled = steps if params["temperature"] != 0 else 0
        result["draws_u32"] = 2 * sampled
    return result


def cli_replay(cli_path, cases, tmp_path_factory, flags=()):
    """`exactsample replay` on the cases: one parsed line per case."""
    path = tmp_path_factory.mktemp("replay") / "cases.json"
    replay_cases.write_cases(str(path), cases)
    proc = subprocess.run([cli_path, "replay", str(path), *flags], capture_output=True,
                          text=True)
    assert proc.returncode in (0, 1), proc.stderr
    return [json.loads(line) for line in proc.stdout.splitlines()]


def golden_cases():
    with open(os.path.join(TEST_DATA, "sampler_golden.json"), encoding="utf-8") as f:
        return json.load(f)["cases"]
