#!/usr/bin/env python3
"""Issue 27's table in one command: one thread against two, every
configuration, at each vocabulary size, quiet, under contention and as a
batch (alone and under contention); median at 1 thread / median at 2 threads (above 1: two threads are
faster), each cell from one `exactsample bench --json` run.

    python3 bench/threads_table.py [--exactsample build/exactsample] [--iters 2000]

2000 calls per row by default: with 400, the contended medians moved by up
to 8% between runs (other work's time slices land on some calls).
"""

import argparse
import json
import subprocess
import sys

CONFIGS = ["plain", "topk40", "topp", "minp", "full", "greedy"]
VOCABS = [32000, 128256, 151936, 262144]
CONDITIONS = {
    "quiet": [],
    "--contend 2": ["--contend", "2"],
    "--batch 8": ["--batch", "8"],
    "--batch 8 --contend 2": ["--batch", "8", "--contend", "2"],
}


def medians(exe, vocab, extra, iters):
    """{(config, threads): median_us} from one bench run."""
    command = [exe, "bench", "--vocab", str(vocab), "--engine", "fast",
               "--config", ",".join(CONFIGS), "--threads", "1,2",
               "--iters", str(iters), "--json"] + extra
    try:
        run = subprocess.run(command, capture_output=True, text=True)
    except OSError as e:
        sys.exit(f"{exe}: cannot run it ({e.strerror})")
    if run.returncode != 0:
        sys.exit(f"{' '.join(command)} failed ({run.returncode}): {run.stderr.strip()}")
    rows = [json.loads(line) for line in run.stdout.splitlines() if line.startswith("{")]
    found = {(r["config"], r["threads"]): r["median_us"] for r in rows if r["config"] in CONFIGS}
    missing = [(c, t) for c in CONFIGS for t in (1, 2) if (c, t) not in found]
    if missing:
        sys.exit(f"{' '.join(command)}: no rows for {missing}")
    return found


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--exactsample", default="build/exactsample")
    parser.add_argument("--iters", type=int, default=2000)
    parser.add_argument("--vocab", default=",".join(map(str, VOCABS)),
                        help="comma-separated vocabulary sizes")
    parser.add_argument("--condition", default=",".join(CONDITIONS),
                        help="comma-separated: " + ", ".join(CONDITIONS))
    args = parser.parse_args()
    try:
        vocabs = [int(v) for v in args.vocab.split(",")]
    except ValueError:
        parser.error(f"--vocab {args.vocab!r}: comma-separated whole numbers")
    conditions = args.condition.split(",")
    for name in conditions:
        if name not in CONDITIONS:
            parser.error(f"--condition {name!r}: one of {', '.join(CONDITIONS)}")

    for name in conditions:
        # Batch rows are iterated per token of the batch, so fewer calls.
        iters = max(1, args.iters // 8) if "--batch" in CONDITIONS[name] else args.iters
        cells = {v: medians(args.exactsample, v, CONDITIONS[name], iters) for v in vocabs}
        print(f"\n{name} (--iters {iters}): median at 1 thread / median at 2 threads, "
              "[us at 1 / us at 2]")
        print("| config | " + " | ".join(f"V = {v}" for v in vocabs) + " |")
        print("|---|" + "---|" * len(vocabs))
        for config in CONFIGS:
            row = []
            for v in vocabs:
                one, two = cells[v][(config, 1)], cells[v][(config, 2)]
                row.append(f"{one / two:.2f} [{one:.1f} / {two:.1f}]")
            print(f"| {config} | " + " | ".join(row) + " |")
        sys.stdout.flush()


if __name__ == "__main__":
    main()
