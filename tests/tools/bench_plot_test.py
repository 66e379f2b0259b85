#!/usr/bin/env python3
"""bench/plot.py on small `exactsample bench --json` output and small
Google Benchmark JSON documents: it writes the charts that the input
supports (non-empty PNGs) and no others, reads stdin, pairs each row with
the floor of its own run, and says clearly what is wrong with bad input or
without matplotlib.

Debian's python3-matplotlib belongs to /usr/bin/python3, which need not be
the python3 that runs this test; the charts are drawn by the first of the
two that imports matplotlib, and those tests are skipped, with a message,
when neither does. The tests of plot.py's own tables import it without
matplotlib.

    python3 tests/tools/bench_plot_test.py --cli build/exactsample
"""

import importlib.util
import json
import os
import subprocess
import sys
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "support"))
import cli_harness  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
PLOT = os.path.join(HERE, "..", "..", "bench", "plot.py")
CLI = None  # set by main()
CONFIGS = ("plain", "topk40", "topp", "minp", "full", "greedy")
KERNELS = ("floor", "max", "expsum", "topk", "nucleus", "filter", "compact", "cdf",
           "exactsum")


def python_with_matplotlib():
    for python in dict.fromkeys([sys.executable, "/usr/bin/python3"]):
        if os.path.exists(python) and subprocess.run(
                [python, "-c", "import matplotlib"], capture_output=True).returncode == 0:
            return python
    return None


PYTHON = python_with_matplotlib()
NO_MATPLOTLIB = (f"matplotlib is not importable by {sys.executable} nor /usr/bin/python3 "
                 "(Debian: apt-get install python3-matplotlib); charts not tested")


def load_plot_module():
    spec = importlib.util.spec_from_file_location("bench_plot", PLOT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def kernel_entry(kernel, target, vocab, real_us, run_type="iteration", aggregate=None):
    """A Kernel/ run as Google Benchmark 1.7's JSON output writes it."""
    name = f"Kernel/{kernel}/{target}/{vocab}"
    entry = {"name": name, "family_index": 0, "per_family_instance_index": 0,
             "run_name": name, "run_type": run_type, "repetitions": 1,
             "repetition_index": 0, "threads": 1, "iterations": 100,
             "real_time": real_us, "cpu_time": real_us, "time_unit": "us",
             "logits": vocab / real_us * 1e6}
    if aggregate:
        entry["name"] += f"_{aggregate}"
        entry["aggregate_name"] = aggregate
    return entry


def row(config, median_us, engine="fast", target="AVX2", vocab=1000, threads=1,
        logprob=True):
    return {"engine": engine, "config": config, "vocab": vocab, "target": target,
            "threads": threads, "logprob": logprob, "median_us": median_us,
            "min_us": median_us, "iters": 3}


class PlotTest(cli_harness.TempDirTest):
    prefix = "plot_"

    def plot(self, *args, stdin=None, python=None, env=None):
        return subprocess.run([python or PYTHON or sys.executable, PLOT, *args],
                              input=stdin, capture_output=True, text=True, env=env)

    def bench(self, *args):
        return subprocess.run([CLI, "bench", "--json", "--iters", "3", *args],
                              capture_output=True, text=True, check=True).stdout

    def write(self, name, text):
        with open(self.path(name), "w") as f:
            f.write(text)
        return self.path(name)

    def kernels_json(self, name, entries):
        return self.write(name, json.dumps({"context": {"library_build_type": "release"},
                                            "benchmarks": entries}))

    def assert_written(self, proc, names):
        """Exactly `names` were written to out/ and listed, each a PNG."""
        self.assertEqual(proc.returncode, 0, proc.stderr)
        folder = self.path("out")
        for name in names:
            path = os.path.join(folder, name)
            self.assertTrue(os.path.isfile(path), path)
            with open(path, "rb") as f:
                data = f.read()
            self.assertGreater(len(data), 1000, path)
            self.assertEqual(data[:8], b"\x89PNG\r\n\x1a\n", path)
        self.assertEqual(sorted(os.listdir(folder)), sorted(names))
        self.assertEqual(sorted(proc.stdout.split()),
                         sorted(os.path.join(folder, n) for n in names))

    @unittest.skipIf(PYTHON is None, NO_MATPLOTLIB)
    def test_every_chart_from_files(self):
        # Floor, reference and fast rows with two thread counts, and a run
        # without the logprob, at two sizes.
        lines = ""
        for vocab in ("1000", "3000"):
            lines += self.bench("--vocab", vocab, "--threads", "1,2")
            lines += self.bench("--vocab", vocab, "--engine", "fast", "--no-logprob")
        entries = [kernel_entry(k, t, v, us)
                   for v in (32000, 128256)
                   for k in (*KERNELS, "newkernel")
                   for t, us in (("AVX2", 40.0), ("SSE4", 200.0), ("scalar", 210.0))]
        entries.append(dict(entries[0], run_type="aggregate", aggregate_name="mean"))
        proc = self.plot(self.write("bench.jsonl", lines),
                         self.kernels_json("kernels.json", entries),
                         "--out", self.path("out"))
        names = [f"time_{c}.png" for c in ("floor", *CONFIGS)]
        names += [f"ratio_{v}.png" for v in (1000, 3000)]
        names += [f"threads_{c}_{v}.png" for c in CONFIGS for v in (1000, 3000)]
        names += ["reference.png", "kernels_32000.png", "kernels_128256.png"]
        self.assert_written(proc, names)

    @unittest.skipIf(PYTHON is None, NO_MATPLOTLIB)
    def test_stdin_one_thread_count_no_reference(self):
        # One thread count: no threads_ chart; fast engine only: no reference.png.
        proc = self.plot("--out", self.path("out"),
                         stdin=self.bench("--vocab", "1000", "--engine", "fast"))
        self.assert_written(proc, [f"time_{c}.png" for c in ("floor", *CONFIGS)]
                            + ["ratio_1000.png"])

    @unittest.skipIf(PYTHON is None, NO_MATPLOTLIB)
    def test_no_floor_no_ratio(self):
        # No floor rows (bench times one with any fast row: dropped here):
        # nothing to divide by.
        lines = "".join(l for l in self.bench("--vocab", "1000", "--config", "plain",
                                              "--threads", "1,2").splitlines(True)
                        if json.loads(l)["config"] != "floor")
        proc = self.plot(self.write("plain.jsonl", lines), "--out", self.path("out"))
        self.assert_written(proc, ["time_plain.png", "threads_plain_1000.png",
                                   "reference.png"])

    @unittest.skipIf(PYTHON is None, NO_MATPLOTLIB)
    def test_reference_only(self):
        lines = self.bench("--vocab", "1000", "--config", "topp", "--engine", "reference")
        proc = self.plot(self.write("ref.jsonl", lines), "--out", self.path("out"))
        self.assert_written(proc, ["reference.png"])

    @unittest.skipIf(PYTHON is None, NO_MATPLOTLIB)
    def test_kernels_only_and_aggregates_only(self):
        # --benchmark_report_aggregates_only=true leaves only mean, median, ...
        entries = [kernel_entry(k, t, 32000, us, "aggregate", agg)
                   for k in ("filter", "compact") for t, us in (("AVX3", 30.0),
                                                                ("scalar", 90.0))
                   for agg in ("mean", "median", "stddev")]
        proc = self.plot(self.kernels_json("agg.json", entries), "--out", self.path("out"))
        self.assert_written(proc, ["kernels_32000.png"])

    @unittest.skipIf(PYTHON is None, NO_MATPLOTLIB)
    def test_bad_input_is_named(self):
        with open(self.path("bad.jsonl"), "w") as f:
            f.write('{"engine": "fast"}\n')
        proc = self.plot(self.path("bad.jsonl"), "--out", self.path("out"))
        self.assertNotEqual(proc.returncode, 0)
        self.assertIn("bad.jsonl line 1: no ", proc.stderr)
        proc = self.plot("--out", self.path("out"), stdin="not json\n")
        self.assertNotEqual(proc.returncode, 0)
        self.assertIn("- line 1: not JSON", proc.stderr)
        proc = self.plot("--out", self.path("out"), stdin="[1, 2]\n")
        self.assertNotEqual(proc.returncode, 0)
        self.assertIn("- line 1: not a JSON object", proc.stderr)
        proc = self.plot("--out", self.path("out"), stdin="")
        self.assertNotEqual(proc.returncode, 0)
        self.assertIn("nothing to plot", proc.stderr)
        proc = self.plot(self.path("missing.jsonl"), "--out", self.path("out"))
        self.assertNotEqual(proc.returncode, 0)
        self.assertIn("missing.jsonl: cannot read", proc.stderr)

    def test_without_matplotlib_the_message_says_so(self):
        # A matplotlib package that fails to import shadows any installed one.
        os.makedirs(self.path("fake/matplotlib"))
        with open(self.path("fake/matplotlib/__init__.py"), "w") as f:
            f.write("raise ImportError('no matplotlib here')\n")
        env = dict(os.environ, PYTHONPATH=self.path("fake"))
        proc = self.plot("--out", self.path("out"), stdin="", python=sys.executable,
                         env=env)
        self.assertEqual(proc.returncode, 1)
        self.assertIn("needs matplotlib", proc.stderr)
        self.assertIn("python3-matplotlib", proc.stderr)


class TablesTest(unittest.TestCase):
    """What the charts are drawn from; no matplotlib needed."""

    plot = load_plot_module()

    def test_passes_as_bench_counts_them(self):
        on = {c: self.plot.floor_passes(c, 128256, True) for c in CONFIGS}
        off = {c: self.plot.floor_passes(c, 128256, False) for c in CONFIGS}
        self.assertEqual(on, dict(plain=1, topk40=1, topp=2, minp=1, full=1, greedy=1))
        self.assertEqual(off, dict(plain=1, topk40=0, topp=1, minp=1, full=0, greedy=0))
        self.assertEqual(self.plot.floor_passes("topk40", 40, True), 2)  # k >= V: no cut

    def test_each_row_is_divided_by_its_own_runs_floor(self):
        rows = [row("floor", 100.0), row("plain", 110.0), row("topp", 220.0),
                row("floor-scalar", 500.0, engine="scalar", target="scalar"),
                row("plain", 1000.0, engine="reference", target="scalar"),
                # A second run, same V and target: its own floor.
                row("floor", 200.0), row("plain", 180.0),
                # A third, logprob off, no floor of its own: the input's floors.
                row("topk40", 45.0, logprob=False),
                # Another target.
                row("floor", 50.0, target="AVX3"), row("plain", 60.0, target="AVX3"),
                row("plain", 30.0, target="AVX3", threads=2)]
        for r in rows:
            r["_input"] = "x"
        runs = self.plot.split_runs(rows)
        self.assertEqual([len(r) for r in runs], [5, 2, 1, 3])
        table = self.plot.floor_ratios(runs)[1000]
        self.assertEqual(table["plain"][("AVX2", 1, True)], [1.1, 0.9])
        self.assertEqual(table["topp"][("AVX2", 1, True)], [2.2])
        self.assertEqual(table["topk40"][("AVX2", 1, False)], [0.3])
        self.assertEqual(table["plain"][("AVX3", 2, True)], [0.6])
        speedups = self.plot.thread_speedups(runs)
        self.assertEqual(list(speedups), [("plain", 1000)])
        self.assertEqual(speedups[("plain", 1000)][("AVX3", True)], {1: [1.0], 2: [2.0]})

    def test_kernel_order_and_rates(self):
        entries = [kernel_entry(k, "AVX2", 1000, 2.0) for k in ("zeta", *reversed(KERNELS))]
        entries += [kernel_entry("floor", "AVX2", 1000, 4.0),  # a second repetition
                    kernel_entry("floor", "AVX2", 1000, 8.0),
                    dict(kernel_entry("max", "SSE4", 1000, 1.0), error_occurred=True)]
        table = self.plot.kernel_throughput(entries)[1000]
        self.assertEqual(sorted(table, key=self.plot.kernel_sort), [*KERNELS, "zeta"])
        self.assertEqual(table["floor"], {"AVX2": 1000 / 4e-6})  # median of 2, 4, 8 us
        self.assertEqual(table["max"], {"AVX2": 1000 / 2e-6})

    def test_one_colour_per_series(self):
        names = ["AVX3", "AVX2", "SSE4", "SSSE3", "SCALAR", "scalar twin", "reference"]
        colours = [self.plot.colour(n) for n in names]
        self.assertEqual(len(set(colours)), len(names))
        self.assertEqual(self.plot.colour("AVX3_ZEN4"), self.plot.colour("AVX3_ZEN4"))
        self.assertEqual(self.plot.series_key(row("plain", 1.0, engine="reference",
                                                  target="scalar")), "reference")
        self.assertEqual(self.plot.series_key(row("floor-scalar", 1.0, engine="scalar",
                                                  target="scalar")), "scalar twin")
        self.assertEqual(self.plot.series_key(row("plain", 1.0, threads=2,
                                                  logprob=False)), "AVX2")


if __name__ == "__main__":
    if PYTHON is None:
        print(f"SKIPPED chart tests: {NO_MATPLOTLIB}", file=sys.stderr)
    cli_harness.main(sys.modules[__name__])
