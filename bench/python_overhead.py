#!/usr/bin/env python3
"""Per-call overhead of exactsample.sample, exactsample.Sequence.sample and
exactsample.sample_batch(..., output="numpy") over the C++ calls they wrap.

Calls alternate on the same f32 rows: the module's call timed from Python
(time.perf_counter_ns around the call) and the C++ call timed inside the
same process (exactsample.testing's probes, steady_clock around
sample(), Sequence::sample() or sample_batch() on the module's own copy of
the library and the calling thread's workspace, so both calls share one
thread pool and one workspace), both with generators from
the same seeds, so each pair does the same work (the two sequences append
the same tokens, the two batches draw the same ids); which of the two goes
first alternates, so that the cache state a call starts from favours
neither. Prints per API the medians and the median of the paired
differences (the module's overhead, the Python timer's own cost included),
for the batch also as a share of the C++ call.

    PYTHONPATH=build/python /usr/bin/python3 bench/python_overhead.py [--vocab 128256] [--iters 5000] [--rows 8] [--threads 0]
"""

import argparse
import statistics
import time

import numpy as np

import exactsample as xs


def paired(module_call, cpp_call, iters):
    """(module ns, C++ ns, module - C++ ns) medians over alternating pairs."""
    clock = time.perf_counter_ns

    def module_ns():
        start = clock()
        module_call()
        return clock() - start

    module, cpp, overhead = [], [], []
    for i in range(iters):
        if i % 2:
            m = module_ns()
            c = cpp_call()
        else:
            c = cpp_call()
            m = module_ns()
        module.append(m)
        cpp.append(c)
        overhead.append(m - c)
    return statistics.median(module), statistics.median(cpp), statistics.median(overhead)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--vocab", type=int, default=128256)
    ap.add_argument("--iters", type=int, default=5000)
    ap.add_argument("--seed", type=int, default=20261129)
    ap.add_argument("--rows", type=int, default=8, help="rows of the batch calls")
    ap.add_argument("--threads", type=int, default=0,
                    help="threads of the batch calls (0: the hardware's)")
    args = ap.parse_args()
    for name in ("vocab", "iters", "rows"):
        if getattr(args, name) < 1:
            ap.error(f"--{name} {getattr(args, name)}: at least 1")
    if args.threads < 0:
        ap.error(f"--threads {args.threads}: 0 (the hardware's) or more")

    # Rows like the standard one: N(0, 1.5^2) with 20 ids raised by 8 to 14.
    gen = np.random.default_rng(args.seed)

    def standard_row():
        row = gen.normal(0.0, 1.5, args.vocab).astype(np.float32)
        peaks = min(20, args.vocab)
        row[gen.choice(args.vocab, peaks, replace=False)] += gen.uniform(8, 14, peaks).astype(np.float32)
        return row

    row = standard_row()
    block = np.stack([standard_row() for _ in range(args.rows)])

    params = xs.SamplingParams()  # plain: temperature 1
    rng = xs.stream(args.seed)
    probe = xs.testing.Probe(args.seed)
    seq = xs.Sequence(args.vocab, params, seed=args.seed)
    seq_probe = xs.testing.SequenceProbe(args.vocab, args.seed)
    batch_rngs = [xs.stream(args.seed + i) for i in range(args.rows)]
    batch_probe = xs.testing.BatchProbe(args.rows, args.seed)
    pairs = {
        "exactsample.sample": ("C++ sample()", lambda: xs.sample(row, params, rng),
                               lambda: probe.sample_ns(row)),
        "Sequence.sample": ("C++ Sequence::sample()", lambda: seq.sample(row),
                            lambda: seq_probe.sample_ns(row)),
        f"sample_batch {args.rows} rows": (
            "C++ sample_batch()",
            lambda: xs.sample_batch(block, params, batch_rngs, threads=args.threads,
                                    output="numpy"),
            lambda: batch_probe.sample_ns(block, args.threads)),
    }
    for _, module_call, cpp_call in pairs.values():
        for _ in range(50):  # warm-up: workspaces sized, caches filled
            module_call()
            cpp_call()

    print(f"V = {args.vocab}, plain, fast engine, {args.iters} paired calls, "
          f"target {next(t.name for t in xs.compiled_targets() if t.active)}, "
          f"batch threads {args.threads}")
    for name, (cpp_name, module_call, cpp_call) in pairs.items():
        module, cpp, overhead = paired(module_call, cpp_call, args.iters)
        print(f"{name:<24} median {module / 1e3:8.2f} us")
        print(f"{cpp_name:<24} median {cpp / 1e3:8.2f} us")
        print(f"{'overhead (paired)':<24} median {overhead / 1e3:8.2f} us "
              f"({100 * overhead / cpp:.1f}% of the C++ median)")


if __name__ == "__main__":
    main()
