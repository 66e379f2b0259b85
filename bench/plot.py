#!/usr/bin/env python3
"""Charts of exactsample's speed, as PNG files.

Reads, from each FILE (or stdin when there is none, or for "-"):
- `exactsample bench --json` output, one JSON object per line, and writes
  time_<config>.png: median microseconds per token against V, one line per
  engine and target (threads and logprob-off marked), log-log; every
  configuration's chart also shows the floor rows (one max + exp + exact Z
  pass) dashed, and time_floor.png shows them alone;
- Google Benchmark's JSON output of exactsample_bench
  (--benchmark_format=json or --benchmark_out=FILE), and writes
  kernels_<V>.png: logits per second of each Kernel/<kernel>/<target>/<V>,
  one bar per target (the median over repetitions).

    build/exactsample bench --vocab 32000 --json > bench.jsonl
    build/exactsample bench --vocab 128256 --json >> bench.jsonl
    build/exactsample_bench --benchmark_filter='^Kernel/' \\
        --benchmark_format=json > kernels.json
    python3 bench/plot.py bench.jsonl kernels.json --out plots

Needs matplotlib (Debian: apt-get install python3-matplotlib).
"""

import argparse
import json
import os
import statistics
import sys
from collections import defaultdict

FLOOR_CONFIGS = ("floor", "floor-scalar")
KERNEL_ORDER = ["floor", "max", "expsum", "topk", "nucleus", "cdf", "exactsum"]
# exactsample_bench's name for the scalar twins; Highway's own SCALAR target
# (portable SIMD emulation) keeps its name.
SCALAR_TWIN = "scalar"


def import_pyplot():
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError as e:
        sys.exit(f"bench/plot.py needs matplotlib ({e}) in {sys.executable}; on "
                 "Debian: apt-get install python3-matplotlib and run it with "
                 "/usr/bin/python3")
    return plt


def read_input(name, text):
    """(bench rows, Google Benchmark entries) of one input's text."""
    try:
        doc = json.loads(text)
    except json.JSONDecodeError:
        doc = None
    if isinstance(doc, dict) and "benchmarks" in doc:
        return [], doc["benchmarks"]
    rows = []
    for n, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        try:
            row = json.loads(line)
        except json.JSONDecodeError as e:
            sys.exit(f"bench/plot.py: {name} line {n}: not JSON ({e}); give "
                     "`exactsample bench --json` lines or Google Benchmark's JSON")
        missing = {"engine", "config", "vocab", "target", "threads", "logprob",
                   "median_us"} - set(row)
        if missing:
            sys.exit(f"bench/plot.py: {name} line {n}: no {', '.join(sorted(missing))}; "
                     "not an `exactsample bench --json` line")
        rows.append(row)
    return rows, []


def series_label(row):
    if row["config"] in FLOOR_CONFIGS:
        label = ("floor, scalar twin" if row["config"] == "floor-scalar"
                 else f"floor, {row['target']}")
    else:
        label = f"{row['engine']}, {row['target']}"
    if row["threads"] != 1:
        label += f", {row['threads']} threads"
    if not row["logprob"]:
        label += ", no logprob"
    return label


def series(rows):
    """{label: (target, [(V, median us)])}, repeated measurements merged by
    their median."""
    points = defaultdict(lambda: defaultdict(list))
    targets = {}
    for r in rows:
        label = series_label(r)
        points[label][r["vocab"]].append(r["median_us"])
        targets[label] = r["target"]
    return {label: (targets[label], sorted((v, statistics.median(us))
                                           for v, us in by_v.items()))
            for label, by_v in points.items()}


def plot_times(plt, rows, out):
    by_config = defaultdict(list)
    for r in rows:
        by_config["floor" if r["config"] in FLOOR_CONFIGS else r["config"]].append(r)
    floor = series(by_config.get("floor", []))
    written = []
    for config, config_rows in by_config.items():
        fig, ax = plt.subplots(figsize=(8, 5))
        color_of_target = {}
        for i, (label, (target, pts)) in enumerate(series(config_rows).items()):
            color_of_target.setdefault(target, f"C{i % 10}")
            ax.plot(*zip(*pts), marker="o", color=f"C{i % 10}", label=label)
        if config != "floor":
            # Dashed, in the colour of the engine line on the same target.
            for j, (label, (target, pts)) in enumerate(floor.items()):
                color = color_of_target.get(target, f"C{(len(color_of_target) + j) % 10}")
                ax.plot(*zip(*pts), "--", marker=".", color=color, alpha=0.8,
                        label=f"{label} (max + exp + Z pass)")
        ax.set_xscale("log")
        ax.set_yscale("log")
        vocabs = sorted({r["vocab"] for r in config_rows})
        ax.set_xticks(vocabs, [str(v) for v in vocabs], rotation=30, ha="right")
        ax.minorticks_off()
        ax.set_xlabel("vocabulary size V")
        ax.set_ylabel("median microseconds per token")
        ax.set_title(f"exactsample: time per token, {config}")
        ax.grid(True, which="both", alpha=0.3)
        ax.legend(fontsize="small")
        written.append(save(plt, fig, os.path.join(out, f"time_{config}.png")))
    return written


def kernel_throughput(entries):
    """{V: {kernel: {target: logits/s}}} from Kernel/<kernel>/<target>/<V> runs."""
    runs = defaultdict(list)
    for b in entries:
        if b.get("run_type", "iteration") != "iteration" or b.get("error_occurred"):
            continue
        parts = b.get("run_name", b["name"]).split("/")
        if len(parts) == 4 and parts[0] == "Kernel" and "logits" in b:
            runs[tuple(parts[1:])].append(b["logits"])
    table = defaultdict(lambda: defaultdict(dict))
    for (kernel, target, vocab), rates in runs.items():
        table[int(vocab)][kernel][target] = statistics.median(rates)
    return table


def plot_kernels(plt, entries, out):
    written = []
    for vocab, kernels in sorted(kernel_throughput(entries).items()):
        names = sorted(kernels, key=lambda k: (KERNEL_ORDER + [k]).index(k))
        targets = list(dict.fromkeys(t for k in names for t in kernels[k]))
        width = 0.8 / len(targets)
        fig, ax = plt.subplots(figsize=(10, 5))
        for i, target in enumerate(targets):
            xs = [j + (i - (len(targets) - 1) / 2) * width for j in range(len(names))]
            ys = [kernels[k].get(target, 0) for k in names]
            ax.bar(xs, ys, width,
                   label="scalar twin" if target == SCALAR_TWIN else target)
        ax.set_xticks(range(len(names)), names)
        ax.set_yscale("log")
        ax.set_ylabel("logits per second")
        ax.set_title(f"exactsample kernels per target, V = {vocab} (higher is better)")
        ax.grid(True, axis="y", which="both", alpha=0.3)
        ax.legend(fontsize="small")
        written.append(save(plt, fig, os.path.join(out, f"kernels_{vocab}.png")))
    return written


def save(plt, fig, path):
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)
    return path


def main():
    ap = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0],
        epilog="Inputs: `exactsample bench --json` lines, Google Benchmark JSON.")
    ap.add_argument("files", nargs="*", default=["-"], metavar="FILE",
                    help="input files; - or none: stdin")
    ap.add_argument("--out", default=".", help="folder for the PNG files (default .)")
    args = ap.parse_args()
    plt = import_pyplot()
    rows, entries = [], []
    for name in args.files:
        try:
            text = sys.stdin.read() if name == "-" else open(name, encoding="utf-8").read()
        except OSError as e:
            sys.exit(f"bench/plot.py: {name}: cannot read ({e.strerror})")
        more_rows, more_entries = read_input(name, text)
        rows += more_rows
        entries += more_entries
    os.makedirs(args.out, exist_ok=True)
    written = plot_times(plt, rows, args.out) + plot_kernels(plt, entries, args.out)
    if not written:
        sys.exit("bench/plot.py: nothing to plot: no bench rows and no Kernel/ benchmarks")
    for path in written:
        print(path)


if __name__ == "__main__":
    main()
