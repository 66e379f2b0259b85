#!/usr/bin/env python3
"""tools/spec_sampler.py reproduces tests/data/sampler_golden.json bit for bit.

The golden ids and logprobs come from an independent Python implementation
of the spec, so this checks the transcription itself, without the C++.
The --cli argument (given to every script test) is accepted and not used.
"""

import argparse
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "tools"))
import spec_sampler  # noqa: E402


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--cli", help="not used")
    ap.parse_args()
    with open(os.path.join(HERE, "..", "data", "sampler_golden.json"), encoding="utf-8") as f:
        cases = json.load(f)["cases"]
    failed = 0
    for case in cases:
        got = spec_sampler.replay_case(case)
        want = (case["ids"], [float(v).hex() for v in case["logprobs"]])
        have = (got.get("ids"), [v.hex() for v in got.get("logprobs", [])])
        if have != want:
            failed += 1
            print(f"{case['name']}: want {want}\n  got {have} {got.get('error', '')}")
    print(f"{len(cases) - failed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
