#!/usr/bin/env python3
"""Cross-language parity: `exactsample replay` against tools/spec_sampler.py.

Generates random replay cases (tools/replay_cases.py) from a fixed seed, runs
both programs on the same file, and requires per case the same error
message (or none), the same ids and bit-equal logprobs (float.hex, no tolerance);
with --speculative the cases are verifications of draft tokens, whose
accepted counts and draws must agree too.

    python3 tests/parity/python_parity_test.py --cli build/exactsample [--cases N] [--seed S]
                                        [--speculative [--gamma-max G]] [--random-only]
                                        [--chains]
"""

import argparse
import json
import os
import subprocess
import sys
import tempfile

TOOLS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "tools")
sys.path.insert(0, TOOLS)
import replay_cases  # noqa: E402


def run(cmd):
    """Runs a replay command; its output lines parsed, or exits on a crash."""
    proc = subprocess.run(cmd, capture_output=True, text=True)
    if proc.returncode not in (0, 1):  # 1: some case was bad input
        sys.exit(f"{' '.join(cmd)} exited {proc.returncode}:\n{proc.stderr}")
    return [json.loads(line) for line in proc.stdout.splitlines()]


def hexes(result, field="logprobs"):
    return [float(v).hex() for v in result.get(field, [])]


def tops(result):
    return [[[i, float(v).hex()] for i, v in top] for top in result.get("top_logprobs", [])]


def first_difference(cpp, py):
    """None if the two results agree, else a text naming the first step."""
    if cpp.get("name") != py.get("name"):
        return f"names differ: {cpp.get('name')!r} vs {py.get('name')!r}"
    if ("error" in cpp) != ("error" in py):
        return (f"error-or-not differs: C++ {cpp.get('error', 'no error')!r}, "
                f"Python {py.get('error', 'no error')!r}")
    if "error" in cpp:
        if cpp["error"] != py["error"]:
            return f"errors differ: C++ {cpp['error']!r}, Python {py['error']!r}"
        return None
    cpp_steps = list(zip(cpp["ids"], hexes(cpp)))
    py_steps = list(zip(py["ids"], hexes(py)))
    for step in range(max(len(cpp_steps), len(py_steps))):
        a = cpp_steps[step] if step < len(cpp_steps) else None
        b = py_steps[step] if step < len(py_steps) else None
        if a != b:
            return f"step {step}: C++ (id, logprob) {a}, Python {b}"
    for what, get in (("processed_logprobs", lambda r: hexes(r, "processed_logprobs")),
                      ("top_logprobs", tops),
                      ("accepted", lambda r: r.get("accepted")),
                      ("rng_draws_consumed", lambda r: r.get("rng_draws_consumed"))):
        if get(cpp) != get(py):
            return f"{what}: C++ {get(cpp)}, Python {get(py)}"
    return None


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--cli", required=True, help="the exactsample program")
    ap.add_argument("--cases", type=int, default=400)
    ap.add_argument("--seed", type=int, default=20240601)
    ap.add_argument("--vocab-max", type=int, default=5000)
    ap.add_argument("--vocab-min", type=int, default=2)
    ap.add_argument("--engine", default="reference", help="reference or fast")
    ap.add_argument("--features", action="store_true",
                    help="cases with logit bias, masks and top_logprobs")
    ap.add_argument("--windows", action="store_true",
                    help="cases with penalty windows (penalty_last_n)")
    ap.add_argument("--chains", action="store_true",
                    help="cases with llama.cpp's samplers in random chains")
    ap.add_argument("--all-targets", action="store_true",
                    help="run the fast engine on every target `targets --supported` lists")
    ap.add_argument("--speculative", action="store_true",
                    help="verification cases (draft_ids) instead of sampling cases")
    ap.add_argument("--gamma-max", type=int, default=8,
                    help="with --speculative, the most draft tokens of a random case")
    ap.add_argument("--random-only", action="store_true",
                    help="random cases alone, without the fixed edge and bad-input ones "
                         "(which the small-vocabulary runs have)")
    args = ap.parse_args()

    make = replay_cases.random_verifications if args.speculative else replay_cases.random_cases
    extra = {"chains": True} if args.chains else {}
    if args.speculative:
        extra["gamma_max"] = args.gamma_max
    cases = make(args.cases, args.seed, args.vocab_max, args.vocab_min, args.features,
                 args.windows, fixed=not args.random_only, **extra)
    fd, path = tempfile.mkstemp(prefix="parity_", suffix=".json")
    os.close(fd)
    replay_cases.write_cases(path, cases)
    py = run([sys.executable, os.path.join(TOOLS, "spec_sampler.py"), "replay", path])
    runs = [["--engine", args.engine]]
    if args.all_targets:
        listed = subprocess.run([args.cli, "targets", "--supported"], check=True,
                                capture_output=True, text=True).stdout.split()
        runs = [["--engine", "fast", "--target", t] for t in listed]

    failed = []
    for flags in runs:
        cpp = run([args.cli, "replay", path] + flags)
        if len(cpp) != len(cases) or len(py) != len(cases):
            sys.exit(f"expected {len(cases)} lines, C++ ({' '.join(flags)}) wrote "
                     f"{len(cpp)}, Python {len(py)} (cases kept in {path})")
        for case, a, b in zip(cases, cpp, py):
            why = first_difference(a, b)
            if why:
                failed.append((case, f"{' '.join(flags)}: {why}"))
    if failed:
        case, why = failed[0]
        vocab = len(case.get("logits", case.get("target_logits", [[]])[0]))
        print(f"first difference: case {case['name']!r} "
              f"(V = {vocab}, params {case.get('params', {})}, "
              f"seed {case['seed']}): {why}")
        print(f"cases kept in {path}")
    else:
        os.remove(path)
    print(f"{len(runs) * len(cases) - len(failed)} passed, {len(failed)} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
