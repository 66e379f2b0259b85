#!/usr/bin/env python3
"""Samples the rows llama_loop_test dumped again with tools/spec_sampler.py,
the spec's Python transcription, and checks each token and logprob bit for
bit against what exactsample gave inside llama.cpp.

    check_dumps.py DIR

DIR/cases.jsonl: one step per line (its row in DIR/<rows>, raw little-endian
f32, V per row; -inf for every id a sampler before exactsample removed), the
prompt and generated ids before the step, the parameters (floats as C's %a),
the bias and banned ids, the generator's state and increment before the
step, the token and its logprob. Exits 0 when every case matched, 1 at a
mismatch, 2 when DIR holds no case or cannot be read.
"""

import json
import os
import struct
import sys

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "..", "tools"))
import spec_sampler  # noqa: E402

FLOATS = ("temperature", "repetition_penalty", "presence_penalty", "frequency_penalty",
          "top_p", "min_p")


def bits(v):
    return struct.pack("<d", v)


def generator(state, inc):
    rng = object.__new__(spec_sampler.Pcg32)
    rng.state, rng.inc = state, inc
    return rng


def params(case):
    p = dict(spec_sampler.DEFAULTS)
    for name in FLOATS:
        p[name] = float.fromhex(case["params"][name])
    p["top_k"] = case["params"]["top_k"]
    p["penalty_last_n"] = case["params"]["penalty_last_n"]
    p["logit_bias"] = {i: float.fromhex(v) for i, v in zip(case["bias_ids"], case["bias_values"])}
    p["banned_token_ids"] = case["banned"]
    return p


def check(directory, case):
    V = case["vocab"]
    row = np.fromfile(os.path.join(directory, case["rows"]), dtype="<f4", count=V,
                      offset=4 * V * case["row"])
    if row.size != V:
        raise ValueError(f"{case['rows']} has no row {case['row']}")
    token, logprob, _, _ = spec_sampler.sample(row.astype(np.float64).tolist(), case["prompt"],
                                               case["generated"], params(case),
                                               generator(*case["rng"]))
    want = float.fromhex(case["logprob"])
    return token == case["id"] and bits(logprob) == bits(want), token, logprob


def main(argv):
    if len(argv) != 2:
        print("usage: check_dumps.py DIR", file=sys.stderr)
        return 2
    try:
        with open(os.path.join(argv[1], "cases.jsonl"), encoding="utf-8") as f:
            cases = [json.loads(line) for line in f]
    except (OSError, ValueError) as e:
        print(f"check_dumps.py: cannot read {argv[1]}: {e}", file=sys.stderr)
        return 2
    if not cases:
        print(f"check_dumps.py: {argv[1]}/cases.jsonl holds no case", file=sys.stderr)
        return 2
    by_vocab = {}
    for case in cases:
        ok, token, logprob = check(argv[1], case)
        if not ok:
            print(f"MISMATCH {case['rows']} row {case['row']}: spec {token} {logprob!r}, "
                  f"exactsample {case['id']} {float.fromhex(case['logprob'])!r}")
            return 1
        by_vocab[case["vocab"]] = by_vocab.get(case["vocab"], 0) + 1
    print("spec_sampler.py agrees on", ", ".join(f"{n} rows at V = {v}" for v, n in sorted(by_vocab.items())))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
