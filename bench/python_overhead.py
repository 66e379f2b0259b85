#!/usr/bin/env python3
"""Per-call overhead of exactsample.sample over the C++ sample() call.

Calls alternate on the same f32 row: exactsample.sample timed from Python
(time.perf_counter_ns around the call) and the C++ call timed inside the
same process (build/python/_exactsample_probe, steady_clock around
sample()), both with stream(seed) generators from one seed, so each pair
does the same work; which of the two goes first alternates, so that the
cache state a call starts from favours neither. Prints the medians and the
median of the paired differences (the module's overhead, the Python
timer's own cost included).

    PYTHONPATH=build/python /usr/bin/python3 bench/python_overhead.py [--vocab 128256] [--iters 5000]
"""

import argparse
import statistics
import time

import numpy as np

import exactsample as xs
import _exactsample_probe


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--vocab", type=int, default=128256)
    ap.add_argument("--iters", type=int, default=5000)
    ap.add_argument("--seed", type=int, default=20261129)
    args = ap.parse_args()

    # A row like the standard one: N(0, 1.5^2) with 20 ids raised by 8 to 14.
    gen = np.random.default_rng(args.seed)
    row = gen.normal(0.0, 1.5, args.vocab).astype(np.float32)
    row[gen.choice(args.vocab, min(20, args.vocab), replace=False)] += gen.uniform(8, 14, min(20, args.vocab)).astype(np.float32)

    params = xs.SamplingParams()  # plain: temperature 1
    rng = xs.stream(args.seed)
    probe = _exactsample_probe.Probe(args.seed)
    for _ in range(50):  # warm-up: workspaces sized, caches filled
        xs.sample(row, params, rng)
        probe.sample_ns(row)

    clock = time.perf_counter_ns

    def module_call():
        start = clock()
        xs.sample(row, params, rng)
        return clock() - start

    module_ns, cpp_ns, overhead_ns = [], [], []
    for i in range(args.iters):
        if i % 2:
            module = module_call()
            cpp = probe.sample_ns(row)
        else:
            cpp = probe.sample_ns(row)
            module = module_call()
        module_ns.append(module)
        cpp_ns.append(cpp)
        overhead_ns.append(module - cpp)

    print(f"V = {args.vocab}, plain, fast engine, {args.iters} paired calls, "
          f"target {next(t.name for t in xs.targets() if t.active)}")
    print(f"exactsample.sample median {statistics.median(module_ns) / 1e3:.2f} us")
    print(f"C++ sample()       median {statistics.median(cpp_ns) / 1e3:.2f} us")
    print(f"overhead (paired)  median {statistics.median(overhead_ns) / 1e3:.2f} us")


if __name__ == "__main__":
    main()
