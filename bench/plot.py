#!/usr/bin/env python3
"""Charts of exactsample's speed, as PNG files.

Reads, from each FILE (or stdin when there is none, or for "-"):

- `exactsample bench --json` output, one JSON object per line (times are
  medians of wall-clock time per token, steady_clock, calls interleaved),
  and writes
  - ratio_<V>.png: fast / floor per configuration (one bar per target,
    thread count and logprob setting; linear axis, a line at 1 = one
    max + exp + exact Z pass over V, a tick where the spec needs 2; bars
    above RATIO_CUT are cut there, value written);
  - threads_<config>_<V>.png, where several thread counts were timed:
    speed-up of N threads over 1 (median at 1 / median at N) per target,
    with the ideal N dashed;
  - time_<config>.png: fast engine microseconds per token against V, the
    floor of the same target dotted, linear axes up to RATIO_CUT times the
    floor (time_floor.png: the floors alone);
  - reference.png: the reference engine per configuration against V, with
    the scalar-twin floor (log scale: it is 10 to 130 times slower);
- Google Benchmark's JSON output of exactsample_bench
  (--benchmark_format=json or --benchmark_out=FILE), and writes
  kernels_<V>.png: logits per second of each Kernel/<kernel>/<target>/<V>
  (V / real time per iteration, the median over repetitions), one panel
  per kernel, one bar per target.

Ratios (fast / floor, speed-ups) are taken inside one `exactsample bench`
run (consecutive lines of one input with one V, target and logprob
setting); several runs give the median ratio, and a dot per run.
Every chart gives a series the same colour: AVX3 blue, AVX2 orange, SSE4
green, SSSE3 purple, Highway's SCALAR brown, the scalar twins grey, the
reference red; thread counts and logprob off change the hatch, marker or
line style, not the colour.

    build/exactsample bench --vocab 32000 --threads 1,2 --json > bench.jsonl
    build/exactsample bench --vocab 128256 --threads 1,2 --json >> bench.jsonl
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
import zlib
from collections import defaultdict

FLOOR_CONFIGS = ("floor", "floor-scalar")
CONFIG_ORDER = ["plain", "topk40", "topp", "minp", "full", "greedy"]
# The standard configurations' parameters (tools/lib/standard_inputs.cc).
CONFIG_PARAMS = {
    "plain": "temperature 1",
    "topk40": "top_k 40, T 0.8",
    "topp": "top_p 0.9, T 0.8",
    "minp": "min_p 0.05",
    "full": "rep 1.1, freq 0.2, pres 0.2 over 64 ids, top_k 40, top_p 0.95, "
            "min_p 0.05, T 0.7",
    "greedy": "T 0",
    "floor": "one max + exp + exact Z pass over V",
    "floor-scalar": "the floor by the scalar twins",
}
# (temperature, top_k) of each configuration, for the passes the spec needs.
CONFIG_SAMPLING = {"plain": (1.0, 0), "topk40": (0.8, 40), "topp": (0.8, 0),
                   "minp": (1.0, 0), "full": (0.7, 40), "greedy": (0.0, 0)}
KERNEL_ORDER = ["floor", "max", "expsum", "topk", "nucleus", "filter", "compact",
                "cdf", "exactsum"]
KERNEL_PARAMS = {"floor": "max + exp + Z", "max": "WidenMax", "expsum": "T 1",
                 "topk": "k 40, T 0.8", "nucleus": "p 0.9, T 0.8",
                 "filter": "after the 40th id, T 0.8", "compact": "top-p candidates",
                 "cdf": "u 0.5"}
# exactsample_bench's name for the scalar twins; Highway's own SCALAR target
# (portable SIMD emulation) keeps its name.
SCALAR_TWIN = "scalar"
BENCH_CLOCK = "wall clock, steady_clock"
KERNEL_CLOCK = "Google Benchmark real time"

# One colour per series on every chart.
SERIES_ORDER = ["AVX3", "AVX2", "SSE4", "SSSE3", "SCALAR", "scalar twin", "reference"]
COLOURS = {"AVX3": "#1f77b4", "AVX2": "#ff7f0e", "SSE4": "#2ca02c",
           "SSSE3": "#9467bd", "SCALAR": "#8c564b", "scalar twin": "#7f7f7f",
           "reference": "#d62728"}
SPARE_COLOURS = ["#17becf", "#bcbd22", "#e377c2", "#393b79", "#637939", "#8c6d31"]
# fast / floor above this is cut at the top of the ratio and time charts
# (value written), so that one slow series does not hide the others.
RATIO_CUT = 4.0
THREAD_HATCHES = ["", "//", "xx", "\\\\", "++", "--"]
THREAD_MARKERS = ["o", "s", "^", "D", "v", "P"]


def colour(key):
    """The fixed colour of a series: a target name, "scalar twin" or
    "reference"; other targets get a spare colour chosen by their name."""
    if key in COLOURS:
        return COLOURS[key]
    return SPARE_COLOURS[zlib.crc32(key.encode()) % len(SPARE_COLOURS)]


def series_order(key):
    return (SERIES_ORDER.index(key) if key in SERIES_ORDER else len(SERIES_ORDER), key)


def series_key(row):
    """What picks a bench row's colour."""
    if row["engine"] == "reference":
        return "reference"
    if row["config"] == "floor-scalar" or row["target"] == SCALAR_TWIN:
        return "scalar twin"
    key = row["target"]
    if row.get("batch", 0):
        key += f", batch {row['batch']}"
    if row.get("contend", 0):
        key += f", {row['contend']} busy"
    return key


def variant_label(key, threads, logprob):
    label = key
    if threads != 1:
        label += f", {threads} threads"
    if not logprob:
        label += ", no logprob"
    return label


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
        if not isinstance(row, dict):
            sys.exit(f"bench/plot.py: {name} line {n}: not a JSON object; give "
                     "`exactsample bench --json` lines or Google Benchmark's JSON")
        missing = {"engine", "config", "vocab", "target", "threads", "logprob",
                   "median_us"} - set(row)
        if missing:
            sys.exit(f"bench/plot.py: {name} line {n}: no {', '.join(sorted(missing))}; "
                     "not an `exactsample bench --json` line")
        if row.get("dtype", "f32") != "f32":
            continue  # --dtype's 16-bit rows: the table's ratio reports them
        rows.append(row)
    return rows, []


def split_runs(rows):
    """The rows of one input cut into `exactsample bench` runs: a run has one
    V, one logprob setting and one fast target, and no row twice."""
    runs, run, seen, target = [], [], set(), None
    for r in rows:
        key = (r["engine"], r["config"], r["target"], r["threads"])
        fast = r["engine"] == "fast"
        if run and (key in seen or r["vocab"] != run[0]["vocab"]
                    or r["logprob"] != run[0]["logprob"]
                    or r.get("batch", 0) != run[0].get("batch", 0)
                    or r.get("contend", 0) != run[0].get("contend", 0)
                    or (fast and target is not None and r["target"] != target)):
            runs.append(run)
            run, seen, target = [], set(), None
        run.append(r)
        seen.add(key)
        if fast:
            target = r["target"]
    if run:
        runs.append(run)
    return runs


def floor_passes(config, vocab, logprob):
    """The max + exp + Z passes over all V ids the spec needs (as
    `exactsample bench` counts them), or None for an unknown config."""
    if config not in CONFIG_SAMPLING:
        return None
    temperature, top_k = CONFIG_SAMPLING[config]
    top_k = 0 < top_k < vocab
    softmax_over_all = temperature != 0 and not top_k
    shared = logprob and temperature == 1
    return int(logprob) + int(softmax_over_all and not shared)


def config_sort(config):
    return (CONFIG_ORDER.index(config) if config in CONFIG_ORDER else len(CONFIG_ORDER),
            config)


def params_title(config):
    params = CONFIG_PARAMS.get(config)
    return f"{config} ({params})" if params else config


def median_iters(rows):
    iters = sorted({r["iters"] for r in rows if "iters" in r})
    if not iters:
        return "median"
    if len(iters) == 1:
        return f"median of {iters[0]} calls"
    return f"median of {iters[0]} to {iters[-1]} calls"


def is_engine_row(row):
    return row["config"] not in FLOOR_CONFIGS


def fast_variant(row):
    return (series_key(row), row["threads"], row["logprob"])


def variant_sort(variant):
    key, threads, logprob = variant
    return (series_order(key), not logprob, threads)


# ---- fast / floor ---------------------------------------------------------

def floor_ratios(runs):
    """{V: {config: {variant: [fast/floor per run]}}}. The floor of a run is
    its own `floor` row, else the median of the input's floor rows with the
    same V and target."""
    input_floors = defaultdict(list)
    for run in runs:
        for r in run:
            if r["config"] == "floor":
                input_floors[(r["_input"], r["vocab"], r["target"])].append(r["median_us"])
    table = defaultdict(lambda: defaultdict(lambda: defaultdict(list)))
    for run in runs:
        own = {r["target"]: r["median_us"] for r in run if r["config"] == "floor"}
        for r in run:
            if r["engine"] != "fast" or not is_engine_row(r):
                continue
            floor = own.get(r["target"])
            if floor is None:
                others = input_floors.get((r["_input"], r["vocab"], r["target"]))
                floor = statistics.median(others) if others else None
            if floor:
                table[r["vocab"]][r["config"]][fast_variant(r)].append(
                    r["median_us"] / floor)
    return table


def plot_ratios(plt, runs, out):
    written = []
    for vocab, by_config in sorted(floor_ratios(runs).items()):
        configs = sorted(by_config, key=config_sort)
        variants = sorted({v for c in configs for v in by_config[c]}, key=variant_sort)
        width = 0.8 / len(variants)
        bars = len(configs) * len(variants)
        fig, ax = plt.subplots(figsize=(min(16, 4 + 0.32 * bars) if bars > 24 else 11.5,
                                        5.8))
        largest = max(max(r) for c in by_config.values() for r in c.values())
        top = min(max(largest, 2.0), RATIO_CUT)
        cut = largest > RATIO_CUT
        passes_shown = False
        for i, variant in enumerate(variants):
            key, threads, logprob = variant
            xs, ys = [], []
            for j, config in enumerate(configs):
                ratios = by_config[config].get(variant)
                if not ratios:
                    continue
                x = j + (i - (len(variants) - 1) / 2) * width
                y = statistics.median(ratios)
                xs.append(x)
                ys.append(y)
                if len(ratios) > 1:
                    shown = [r for r in ratios if r <= RATIO_CUT]
                    ax.plot([x] * len(shown), shown, ".", color="black", ms=3, zorder=3)
                ax.annotate(f"{y:.2f}" + (" cut" if y > RATIO_CUT else ""),
                            (x, min(max(ratios), RATIO_CUT)), textcoords="offset points",
                            xytext=(0, 2), ha="center", va="bottom", fontsize=7,
                            rotation=90 if len(variants) > 3 or y > RATIO_CUT else 0,
                            bbox={"fc": "white", "ec": "none", "pad": 0.4, "alpha": 0.8},
                            zorder=5)
                passes = floor_passes(config, vocab, logprob)
                if passes is not None and passes >= 2:
                    ax.plot([x - width / 2, x + width / 2], [passes, passes], color="black",
                            lw=2.5, zorder=4,
                            label=None if passes_shown else
                            "2 floors: what the spec needs (drawn when 2)")
                    passes_shown = True
            ax.bar(xs, [min(y, RATIO_CUT) for y in ys], width,
                   label=variant_label(*variant), **bar_style(key, threads, logprob))
            cut_xs = [x for x, y in zip(xs, ys) if y > RATIO_CUT]
            if cut_xs:  # a break mark where the bar is cut
                ax.plot(cut_xs, [RATIO_CUT] * len(cut_xs), "_", color="black", ms=14,
                        mew=2, zorder=4)
        ax.axhline(1, color="black", lw=1, ls="--",
                   label="floor = 1: one max + exp + exact Z pass over V")
        ax.set_xticks(range(len(configs)),
                      [f"{c}\n{passes_text(c, vocab, by_config[c])}" for c in configs],
                      fontsize=9)
        ax.set_xlim(-0.6, len(configs) - 0.4)
        ax.set_ylim(0, top * (1.3 if cut else 1.18))
        ax.set_ylabel("fast / floor (ratio of medians, lower is better)")
        notes = ["dots: single runs, bars: their median"
                 if any(len(r) > 1 for c in by_config.values() for r in c.values())
                 else "one run"]
        if cut:
            notes.append(f"bars above {RATIO_CUT:g} cut there, value written")
        ax.set_title(f"exactsample fast engine against the floor, V = {vocab}\n"
                     f"median time per token ({BENCH_CLOCK}), fast / floor from the same "
                     f"`exactsample bench` run; {'; '.join(notes)}", fontsize=10)
        ax.grid(True, axis="y", alpha=0.3)
        ax.legend(fontsize="small", loc="upper left", bbox_to_anchor=(1.01, 1))
        rect = params_footnote(fig, configs)
        written.append(save(plt, fig, os.path.join(out, f"ratio_{vocab}.png"), rect))
    return written


def passes_text(config, vocab, by_variant):
    counts = sorted({floor_passes(config, vocab, logprob)
                     for _, _, logprob in by_variant} - {None}, reverse=True)
    if not counts:
        return ""
    if len(counts) == 1:
        return f"{counts[0]} pass" + ("" if counts[0] == 1 else "es")
    with_lp = floor_passes(config, vocab, True)
    without = floor_passes(config, vocab, False)
    return (f"{with_lp} pass" + ("" if with_lp == 1 else "es")
            + f"\n({without} without logprob)")


def params_footnote(fig, configs):
    """Writes the configurations' parameters under the chart; the layout
    rectangle that leaves room for them."""
    lines = [f"{c}: {CONFIG_PARAMS[c]}" for c in configs if c in CONFIG_PARAMS]
    if not lines:
        return (0, 0, 1, 1)
    text = "; ".join(lines[:3]) + ("\n" + "; ".join(lines[3:]) if len(lines) > 3 else "")
    fig.text(0.01, 0.01, text, fontsize=7.5, va="bottom", ha="left")
    return (0, 0.07 if len(lines) > 3 else 0.045, 1, 1)


def bar_style(key, threads, logprob):
    hatch = THREAD_HATCHES[min(thread_rank(threads), len(THREAD_HATCHES) - 1)]
    return {"color": colour(key), "alpha": 1.0 if logprob else 0.45,
            "hatch": hatch, "edgecolor": "black", "linewidth": 0.6}


def thread_rank(threads):
    """0 for 1 thread, 1 for 2, 2 for 4, ..."""
    return max(0, threads.bit_length() - 1)


def line_style(threads, logprob):
    return {"marker": THREAD_MARKERS[min(thread_rank(threads), len(THREAD_MARKERS) - 1)],
            "linestyle": "-" if logprob else "--"}


# ---- threads --------------------------------------------------------------

def thread_speedups(runs):
    """{(config, V): {(key, logprob): {N: [median at 1 / median at N]}}},
    from runs that timed 1 and N threads; where no run did, from the medians
    of all runs."""
    within = defaultdict(lambda: defaultdict(lambda: defaultdict(list)))
    pooled = defaultdict(lambda: defaultdict(list))
    for run in runs:
        by_series = defaultdict(dict)
        for r in run:
            if r["engine"] == "fast" and is_engine_row(r):
                s = (r["config"], r["vocab"], series_key(r), r["logprob"])
                by_series[s][r["threads"]] = r["median_us"]
                pooled[s][r["threads"]].append(r["median_us"])
        for (config, vocab, key, logprob), times in by_series.items():
            if 1 in times and len(times) > 1:
                for n, us in times.items():
                    within[(config, vocab)][(key, logprob)][n].append(times[1] / us)
    for (config, vocab, key, logprob), times in pooled.items():
        if (key, logprob) in within.get((config, vocab), {}):
            continue
        if 1 in times and len(times) > 1:
            one = statistics.median(times[1])
            within[(config, vocab)][(key, logprob)].update(
                {n: [one / statistics.median(us)] for n, us in times.items()})
    return within


def plot_threads(plt, runs, out):
    written = []
    table = thread_speedups(runs)
    for (config, vocab), by_series in sorted(
            table.items(), key=lambda kv: (config_sort(kv[0][0]), kv[0][1])):
        counts = sorted({n for s in by_series.values() for n in s})
        fig, ax = plt.subplots(figsize=(8, 5.2))
        top = max(counts)
        ax.plot([0, top + 0.5], [0, top + 0.5], color="grey", ls="--", lw=1,
                label="ideal: N")
        for k, ((key, logprob), points) in enumerate(sorted(
                by_series.items(), key=lambda kv: variant_sort((kv[0][0], 1, kv[0][1])))):
            ns = sorted(points)
            ys = [statistics.median(points[n]) for n in ns]
            style = line_style(1, logprob)
            ax.plot(ns, ys, color=colour(key), label=variant_label(key, 1, logprob),
                    **style)
            for n in ns:
                if len(points[n]) > 1:
                    ax.plot([n] * len(points[n]), points[n], ".", color=colour(key),
                            ms=4, alpha=0.6)
                top = max(top, max(points[n]))
            for n, y in zip(ns, ys):
                if n != 1:
                    ax.annotate(f"{y:.2f}", (n, y), textcoords="offset points",
                                xytext=(7, 3 + 11 * k), va="bottom", fontsize=8,
                                color=colour(key))
        ax.set_xlim(0, max(counts) + 0.5)
        ax.set_ylim(0, top * 1.1)
        ax.set_xticks(counts)
        ax.set_xlabel("threads N (SampleOptions::threads)")
        ax.set_ylabel("speed-up: median at 1 thread / median at N")
        ax.set_title(f"exactsample fast engine, threads in one row: {params_title(config)}, "
                     f"V = {vocab}\nmedian time per token ({BENCH_CLOCK}), both counts "
                     "from the same `exactsample bench` run", fontsize=10)
        ax.grid(True, alpha=0.3)
        ax.legend(fontsize="small", loc="upper left")
        written.append(save(plt, fig, os.path.join(out, f"threads_{config}_{vocab}.png")))
    return written


# ---- time against V -------------------------------------------------------

def medians_by_v(rows):
    """[(V, median of the rows' medians)]"""
    by_v = defaultdict(list)
    for r in rows:
        by_v[r["vocab"]].append(r["median_us"])
    return sorted((v, statistics.median(us)) for v, us in by_v.items())


def plot_times(plt, rows, out):
    fast = defaultdict(lambda: defaultdict(list))
    floors = defaultdict(list)
    for r in rows:
        if r["config"] in FLOOR_CONFIGS:
            floors[series_key(r)].append(r)
        elif r["engine"] == "fast":
            fast[r["config"]][fast_variant(r)].append(r)
    charts = dict(fast)
    if floors:
        charts["floor"] = {}
    written = []
    for config in sorted(charts, key=config_sort):
        variants = charts[config]
        fig, ax = plt.subplots(figsize=(10.5, 5.4))
        shown_rows, lines, floor_top = [], [], 0.0
        for variant in sorted(variants, key=variant_sort):
            key, threads, logprob = variant
            shown_rows += variants[variant]
            pts = medians_by_v(variants[variant])
            lines.append((key, pts))
            ax.plot(*zip(*pts), color=colour(key), label=variant_label(*variant),
                    **line_style(threads, logprob))
        keys = {v[0] for v in variants} if config != "floor" else set(floors)
        for key in sorted(keys & set(floors), key=series_order):
            shown_rows += floors[key]
            pts = medians_by_v(floors[key])
            floor_top = max(floor_top, max(us for _, us in pts))
            ax.plot(*zip(*pts), color=colour(key), ls=":", marker="x", lw=1.5,
                    label=f"floor, {key}" + (" (max + exp + Z pass)" if config != "floor"
                                             else ""))
        vocabs = sorted({r["vocab"] for r in shown_rows})
        ax.set_xticks(vocabs, [str(v) for v in vocabs], rotation=30, ha="right")
        ax.set_xlim(0, max(vocabs) * 1.05)
        # Points far above the floor would hide the others: the axis stops at
        # RATIO_CUT times the highest floor and they are written at its top.
        cap = RATIO_CUT * floor_top
        off_scale = [(key, v, us) for key, pts in lines for v, us in pts
                     if floor_top and us > cap]
        ax.set_ylim(0, cap * 1.12 if off_scale else None)
        for k, (key, v, us) in enumerate(off_scale):
            ax.annotate(f"\u2191 {us:.0f}", (v, cap * 1.12), textcoords="offset points",
                        xytext=(-4, -10 - 10 * (k % 3)), ha="right", va="top", fontsize=7.5,
                        color=colour(key))
        ax.set_xlabel("vocabulary size V")
        ax.set_ylabel("microseconds per token")
        if config == "floor":
            title = ("exactsample floor: time per token, one max + exp + exact Z pass "
                     "over V per target")
        else:
            title = f"exactsample fast engine: time per token, {params_title(config)}"
        notes = "" if config == "floor" else "; dotted: the floor on the same target"
        if off_scale:
            notes += (f"\n\u2191: medians above {RATIO_CUT:g} x the floor, off the axis, "
                      "value written")
        ax.set_title(f"{title}\n{median_iters(shown_rows)} ({BENCH_CLOCK}), "
                     f"`exactsample bench`{notes}", fontsize=10)
        ax.grid(True, alpha=0.3)
        ax.legend(fontsize="small", loc="upper left", bbox_to_anchor=(1.01, 1))
        written.append(save(plt, fig, os.path.join(out, f"time_{config}.png")))
    return written


def plot_reference(plt, rows, out):
    reference = defaultdict(list)
    for r in rows:
        if r["engine"] == "reference":
            reference[r["config"]].append(r)
    if not reference:
        return []
    scalar_floor = [r for r in rows if r["config"] == "floor-scalar"]
    fig, ax = plt.subplots(figsize=(10.5, 5.6))
    shown = []
    configs = sorted(reference, key=config_sort)
    for i, config in enumerate(configs):
        shown += reference[config]
        pts = medians_by_v(reference[config])
        ax.plot(*zip(*pts), color=colour("reference"),
                marker=THREAD_MARKERS[i % len(THREAD_MARKERS)],
                ls=["-", "--", "-.", ":"][i % 4], label=config)
    if scalar_floor:
        shown += scalar_floor
        pts = medians_by_v(scalar_floor)
        ax.plot(*zip(*pts), color=colour("scalar twin"), ls=":", marker="x",
                label="floor by the scalar twins (one max + exp + Z pass)")
    vocabs = sorted({r["vocab"] for r in shown})
    ax.set_yscale("log")
    ax.set_xticks(vocabs, [str(v) for v in vocabs], rotation=30, ha="right")
    ax.set_xlim(0, max(vocabs) * 1.05)
    ax.set_xlabel("vocabulary size V")
    ax.set_ylabel("microseconds per token (log scale)")
    ax.set_title("exactsample reference engine (the spec step by step, one thread): "
                 f"time per token\n{median_iters(shown)} ({BENCH_CLOCK}), "
                 "`exactsample bench`", fontsize=10)
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize="small", loc="upper left", bbox_to_anchor=(1.01, 1))
    rect = params_footnote(fig, configs)
    return [save(plt, fig, os.path.join(out, "reference.png"), rect)]


# ---- kernels --------------------------------------------------------------

UNIT_SECONDS = {"ns": 1e-9, "us": 1e-6, "ms": 1e-3, "s": 1.0}


def kernel_rate(entry, vocab):
    """Logits per second: V over the real time per iteration, else the
    `logits` counter."""
    unit = UNIT_SECONDS.get(entry.get("time_unit", "ns"))
    real = entry.get("real_time")
    if unit and isinstance(real, (int, float)) and real > 0:
        return vocab / (real * unit)
    return entry.get("logits")


def kernel_throughput(entries):
    """{V: {kernel: {target: logits/s}}} from Kernel/<kernel>/<target>/<V>
    runs: the median over repetitions, or the `median` aggregate where only
    aggregates were reported."""
    runs, medians = defaultdict(list), defaultdict(list)
    for b in entries:
        if not isinstance(b, dict) or b.get("error_occurred") or "name" not in b:
            continue
        parts = b.get("run_name", b["name"]).split("/")
        if len(parts) != 4 or parts[0] != "Kernel" or not parts[3].isdigit():
            continue
        rate = kernel_rate(b, int(parts[3]))
        if rate is None:
            continue
        run_type = b.get("run_type", "iteration")
        if run_type == "iteration":
            runs[tuple(parts[1:])].append(rate)
        elif run_type == "aggregate" and b.get("aggregate_name") == "median":
            medians[tuple(parts[1:])].append(rate)
    for name, rates in medians.items():
        runs.setdefault(name, rates)
    table = defaultdict(lambda: defaultdict(dict))
    for (kernel, target, vocab), rates in runs.items():
        table[int(vocab)][kernel][target] = statistics.median(rates)
    return table


def kernel_sort(kernel):
    return (KERNEL_ORDER.index(kernel) if kernel in KERNEL_ORDER else len(KERNEL_ORDER),
            kernel)


def target_key(target):
    return "scalar twin" if target == SCALAR_TWIN else target


def plot_kernels(plt, entries, out):
    written = []
    for vocab, kernels in sorted(kernel_throughput(entries).items()):
        names = sorted(kernels, key=kernel_sort)
        targets = sorted({t for k in names for t in kernels[k]},
                         key=lambda t: series_order(target_key(t)))
        cols = min(3, len(names))
        rows = (len(names) + cols - 1) // cols
        fig, axes = plt.subplots(rows, cols, figsize=(4.2 * cols, 2.9 * rows + 1.2),
                                 squeeze=False)
        for ax in axes.flat[len(names):]:
            ax.set_visible(False)
        for ax, kernel in zip(axes.flat, names):
            present = [t for t in targets if t in kernels[kernel]]
            scale, unit = rate_unit(max(kernels[kernel][t] for t in present))
            for i, target in enumerate(present):
                y = kernels[kernel][target] / scale
                ax.bar(i, y, 0.75, color=colour(target_key(target)),
                       edgecolor="black", linewidth=0.6)
                ax.text(i, y, f"{y:.3g}", ha="center", va="bottom", fontsize=7)
            ax.set_xticks(range(len(present)),
                          ["twin" if t == SCALAR_TWIN else t for t in present],
                          fontsize=7.5, rotation=30 if len(present) > 4 else 0)
            ax.set_ylim(0, max(kernels[kernel][t] for t in present) / scale * 1.2)
            ax.set_ylabel(f"{unit} logits/s", fontsize=8)
            ax.tick_params(axis="y", labelsize=7.5)
            params = KERNEL_PARAMS.get(kernel)
            ax.set_title(f"{kernel} ({params})" if params else kernel, fontsize=9)
            ax.grid(True, axis="y", alpha=0.3)
        handles = [plt.Rectangle((0, 0), 1, 1, facecolor=colour(target_key(t)),
                                 edgecolor="black", linewidth=0.6) for t in targets]
        fig.legend(handles, ["scalar twin (scalar_ref/twins/)" if t == SCALAR_TWIN else t
                             for t in targets],
                   loc="lower center", ncol=len(targets), fontsize="small", frameon=False)
        fig.suptitle(f"exactsample kernels per target, V = {vocab}: logits per second "
                     "(higher is better)\nV / real time per iteration "
                     f"({KERNEL_CLOCK}), median over repetitions, one thread; "
                     "linear axis per kernel", fontsize=10)
        written.append(save(plt, fig, os.path.join(out, f"kernels_{vocab}.png"),
                            (0, 0.06, 1, 1)))
    return written


def rate_unit(largest):
    for scale, unit in ((1e9, "G"), (1e6, "M"), (1e3, "k")):
        if largest >= scale:
            return scale, unit
    return 1.0, ""


def save(plt, fig, path, rect=(0, 0, 1, 1)):
    fig.tight_layout(rect=rect)
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
    rows, runs, entries = [], [], []
    for name in args.files:
        try:
            text = sys.stdin.read() if name == "-" else open(name, encoding="utf-8").read()
        except OSError as e:
            sys.exit(f"bench/plot.py: {name}: cannot read ({e.strerror})")
        more_rows, more_entries = read_input(name, text)
        for r in more_rows:
            r["_input"] = name
        rows += more_rows
        runs += split_runs(more_rows)
        entries += more_entries
    # After the inputs: a bad one is named without the seconds pyplot's
    # import takes, and whether matplotlib is there or not.
    plt = import_pyplot()
    os.makedirs(args.out, exist_ok=True)
    written = (plot_ratios(plt, runs, args.out) + plot_threads(plt, runs, args.out)
               + plot_times(plt, rows, args.out) + plot_reference(plt, rows, args.out)
               + plot_kernels(plt, entries, args.out))
    if not written:
        sys.exit("bench/plot.py: nothing to plot: no bench rows and no Kernel/ benchmarks")
    for path in written:
        print(path)


if __name__ == "__main__":
    main()
