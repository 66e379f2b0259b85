"""The runtime features through the module (logit_bias, allowed_token_ids,
banned_token_ids, allowed_bitmask, top_logprobs, processed_logprob) equal
tools/spec_sampler.py's transcription of the same rules, bit for bit, on
the reference engine and the fast engine on every supported target."""

import struct

import numpy as np
import pytest

import exactsample as xs
from conftest import spec_sampler


def bits(v):
    return struct.pack("<d", v)


def cases():
    r = np.random.default_rng(7)
    out = []
    for k in range(24):
        v = int(r.integers(2, 3000))
        x = (r.normal(0, 2, v) * (k % 3 + 1)).astype(np.float32)
        params = {"temperature": [1.0, 0.7, 0.0][k % 3], "top_k": [0, 40][k % 2],
                  "top_p": [1.0, 0.9][k % 4 // 2], "top_logprobs": k % 21}
        ids = lambda n: sorted({int(i) for i in r.integers(0, v, n)})  # noqa: E731
        if k % 4 != 3:
            params["logit_bias"] = {str(i): float(b) for i, b in
                                    zip(ids(8), r.choice([-100.0, 100.0, 0.5, -2.25], 8))}
        if k % 3 == 1:
            params["allowed_token_ids"] = ids(max(1, v // 2))
        if k % 5 == 2:
            params["banned_token_ids"] = ids(5)
        out.append({"name": f"features_{k}", "logits": x, "params": params,
                    "seed": 100 + k, "steps": 3})
    return out


def module_run(case, engine, bitmask):
    x, p = case["logits"], dict(case["params"])
    params = xs.SamplingParams(**{k: v for k, v in p.items()
                                  if k not in ("logit_bias", "allowed_token_ids",
                                               "banned_token_ids")})
    allowed = p.get("allowed_token_ids")
    extra = {"logit_bias": p.get("logit_bias"), "banned_token_ids": p.get("banned_token_ids")}
    if allowed is not None and bitmask:
        words = np.zeros((len(x) + 31) // 32, dtype=np.uint32)
        for i in allowed:
            words[i // 32] |= np.uint32(1 << (i % 32))
        extra["allowed_bitmask"] = words
    else:
        extra["allowed_token_ids"] = allowed
    rng = xs.stream(case["seed"])
    ids, logprobs, processed, tops = [], [], [], []
    for _ in range(case["steps"]):
        t = xs.sample(x, params, rng, generated=ids, engine=engine,
                      constraints=xs.Constraints(**extra))
        ids.append(t.id)
        logprobs.append(bits(t.logprob))
        processed.append(bits(t.processed_logprob))
        tops.append([(i, bits(lp)) for i, lp in t.top_logprobs])
    return ids, logprobs, processed, tops


def spec_run(case):
    got = spec_sampler.replay_case({**case, "logits": [float(v) for v in case["logits"]]})
    assert "error" not in got, got
    tops = [[(i, bits(lp)) for i, lp in step] for step in got.get("top_logprobs", [])]
    if not tops:
        tops = [[] for _ in got["ids"]]
    return (got["ids"], [bits(v) for v in got["logprobs"]],
            [bits(v) for v in got["processed_logprobs"]], tops)


CASES = cases()
SPEC = {c["name"]: spec_run(c) for c in CASES}


@pytest.mark.parametrize("bitmask", [False, True], ids=["ids", "bitmask"])
def test_features_equal_the_transcription(engine, bitmask):
    for case in CASES:
        assert module_run(case, engine, bitmask) == SPEC[case["name"]], case["name"]


def test_bad_feature_inputs_name_their_field():
    x = np.zeros(40, dtype=np.float32)
    rng = xs.stream(1)
    before = rng.draws_u32
    bad = [({"logit_bias": {40: 1.0}}, "constraints.logit_bias"),
           ({"logit_bias": {"3": float("nan")}}, "constraints.logit_bias"),
           ({"logit_bias": [1, 2]}, "constraints.logit_bias"),
           ({"allowed_token_ids": [-1]}, "constraints.allowed_token_ids"),
           ({"banned_token_ids": [40]}, "constraints.banned_token_ids"),
           ({"allowed_bitmask": np.zeros(1, dtype=np.uint32)}, None),
           ({"allowed_bitmask": np.zeros(2, dtype=np.int64)}, "constraints.allowed_bitmask")]
    for fields, field in bad:
        with pytest.raises(xs.SampleError) as e:
            xs.sample(x, None, rng, constraints=xs.Constraints(**fields))
        if field is not None:
            assert e.value.field == field, (fields, str(e.value))
            assert str(e.value).startswith(field), (fields, str(e.value))
        with pytest.raises(xs.SampleError):
            xs.validate(x, None, constraints=xs.Constraints(**fields))
    # Anything but a Constraints (or None) is refused by name.
    with pytest.raises(xs.SampleError) as e:
        xs.sample(x, None, rng, constraints={"logit_bias": {1: 1.0}})
    assert e.value.field == "constraints" and "is not an exactsample.Constraints" in str(e.value)
    assert rng.draws_u32 == before


@pytest.mark.parametrize("threads", [1, 2])
def test_batch_rows_take_their_own_features(threads):
    same_v = [c for c in CASES if len(c["logits"]) > 32][:6]
    v = min(len(c["logits"]) for c in same_v)
    rows = np.stack([c["logits"][:v] for c in same_v])
    trimmed = []
    for c in same_v:
        p = dict(c["params"])
        for key in ("allowed_token_ids", "banned_token_ids"):
            if p.get(key) is not None:
                p[key] = [i for i in p[key] if i < v] or None
        if "logit_bias" in p:
            p["logit_bias"] = {k: b for k, b in p["logit_bias"].items() if int(k) < v}
        trimmed.append(p)
    constraints_of = lambda p: xs.Constraints(  # noqa: E731
        logit_bias=p.get("logit_bias"), allowed_token_ids=p.get("allowed_token_ids"),
        banned_token_ids=p.get("banned_token_ids"))
    plain = lambda p: xs.SamplingParams(**{k: p[k] for k in  # noqa: E731
                                           ("temperature", "top_k", "top_p", "top_logprobs")})
    want = []
    for x, p, c in zip(rows, trimmed, same_v):
        rng = xs.stream(c["seed"])
        t = xs.sample(x, plain(p), rng, constraints=constraints_of(p))
        want.append((t.id, bits(t.logprob), bits(t.processed_logprob), t.top_logprobs))
    rngs = [xs.stream(c["seed"]) for c in same_v]
    got = xs.sample_batch(rows, [plain(p) for p in trimmed], rngs, threads=threads,
                          constraints=[constraints_of(p) for p in trimmed])
    assert [(t.id, bits(t.logprob), bits(t.processed_logprob), t.top_logprobs)
            for t in got] == want
    assert any(p.get("logit_bias") for p in trimmed)
    assert any(p.get("allowed_token_ids") for p in trimmed)


def test_int32_bitmask_is_read_as_its_bits_in_place():
    # xgrammar's layout: int32 words, bit i % 32 of word i / 32 (bit 31 the sign bit).
    v = 100
    x = np.random.default_rng(3).normal(0, 2, v).astype(np.float32)
    allowed = [0, 31, 32, 63, 64, 95, 99]  # bit 31 set in words 0, 1 and 2
    words = np.zeros((v + 31) // 32, dtype=np.uint32)
    for i in allowed:
        words[i // 32] |= np.uint32(1 << (i % 32))
    signed = words.view(np.int32)
    assert (signed < 0).any()
    params = xs.SamplingParams(temperature=0.9, top_logprobs=5)
    for seed in range(20):
        a, b, c = xs.stream(seed), xs.stream(seed), xs.stream(seed)
        want = xs.sample(x, params, a, constraints=xs.Constraints(allowed_token_ids=allowed))
        assert xs.sample(x, params, b, constraints=xs.Constraints(allowed_bitmask=words)) == want
        assert xs.sample(x, params, c, constraints=xs.Constraints(allowed_bitmask=signed)) == want
        assert a == b == c
    before = signed.copy()
    xs.sample_batch(np.stack([x, x]), params, [xs.stream(1), xs.stream(2)],
                    constraints=[xs.Constraints(allowed_bitmask=signed),
                                 xs.Constraints(allowed_bitmask=words)])
    assert (signed == before).all()


def test_constraints_hold_their_fields_and_serve_every_row():
    c = xs.Constraints(logit_bias={1: 2.0}, banned_token_ids=[0])
    assert (c.logit_bias, c.allowed_token_ids, c.banned_token_ids, c.allowed_bitmask) == \
        ({1: 2.0}, None, [0], None)
    assert repr(c).startswith("Constraints(logit_bias={1: 2.0}, allowed_token_ids=None")
    x = np.random.default_rng(5).normal(0, 1, (3, 50)).astype(np.float32)
    alone = [xs.sample(r, None, xs.stream(i), constraints=c) for i, r in enumerate(x)]
    shared = xs.sample_batch(x, None, [xs.stream(i) for i in range(3)], constraints=c)
    per_row = xs.sample_batch(x, None, [xs.stream(i) for i in range(3)], constraints=[c, c, c])
    assert shared == per_row == alone
    assert all(t.id != 0 for t in alone)
    with pytest.raises(xs.SampleError) as e:
        xs.sample_batch(x, None, [xs.stream(i) for i in range(3)], constraints=[c])
    assert e.value.field == "constraints" and "1 entries for 3 rows" in str(e.value)
