#!/usr/bin/env python3
"""tools/spec_sampler.py reproduces tests/data/sampler_golden.json and
chain_golden.json bit for bit.

sampler_golden.json's ids and logprobs come from an independent Python
implementation of the spec, so this checks the transcription itself,
without the C++; chain_golden.json's were written by the transcription, so
this keeps a change of it from moving them unseen.
The --cli argument (given to every script test) is accepted and not used.
"""

import argparse
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "tools"))
import spec_sampler  # noqa: E402


def hexes(values):
    return None if values is None else [float(v).hex() for v in values]


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--cli", help="not used")
    ap.parse_args()
    cases = []
    for name in ("sampler_golden.json", "chain_golden.json"):
        with open(os.path.join(HERE, "..", "data", name), encoding="utf-8") as f:
            cases += json.load(f)["cases"]
    failed = 0
    for case in cases:
        got = spec_sampler.replay_case(case)
        want = (case.get("ids"), hexes(case.get("logprobs")),
                hexes(case.get("processed_logprobs")), case.get("error"))
        have = (got.get("ids"), hexes(got.get("logprobs")),
                hexes(got.get("processed_logprobs")) if "processed_logprobs" in case else None,
                got.get("error"))
        if have != want:
            failed += 1
            print(f"{case['name']}: want {want}\n  got {have}")
    print(f"{len(cases) - failed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
