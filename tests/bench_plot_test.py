#!/usr/bin/env python3
"""bench/plot.py on small `exactsample bench --json` output and a small
Google Benchmark JSON document: it writes non-empty PNG charts, reads stdin,
and says clearly what is wrong with bad input or without matplotlib.

Debian's python3-matplotlib belongs to /usr/bin/python3, which need not be
the python3 that runs this test; the charts are drawn by the first of the
two that imports matplotlib, and those tests are skipped, with a message,
when neither does.

    python3 tests/bench_plot_test.py --cli build/exactsample
"""

import json
import os
import subprocess
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import cli_harness  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
PLOT = os.path.join(HERE, "..", "bench", "plot.py")
CLI = None  # set by main()


def python_with_matplotlib():
    for python in dict.fromkeys([sys.executable, "/usr/bin/python3"]):
        if os.path.exists(python) and subprocess.run(
                [python, "-c", "import matplotlib"], capture_output=True).returncode == 0:
            return python
    return None


PYTHON = python_with_matplotlib()
NO_MATPLOTLIB = (f"matplotlib is not importable by {sys.executable} nor /usr/bin/python3 "
                 "(Debian: apt-get install python3-matplotlib); charts not tested")


def kernel_entry(kernel, target, vocab, logits_per_s):
    """A Kernel/ run as Google Benchmark 1.7's JSON output writes it."""
    name = f"Kernel/{kernel}/{target}/{vocab}"
    return {"name": name, "family_index": 0, "per_family_instance_index": 0,
            "run_name": name, "run_type": "iteration", "repetitions": 1,
            "repetition_index": 0, "threads": 1, "iterations": 100,
            "real_time": 10.0, "cpu_time": 10.0, "time_unit": "us",
            "logits": logits_per_s}


class PlotTest(cli_harness.TempDirTest):
    prefix = "plot_"

    def plot(self, *args, stdin=None, python=None, env=None):
        return subprocess.run([python or PYTHON or sys.executable, PLOT, *args],
                              input=stdin, capture_output=True, text=True, env=env)

    def bench_lines(self):
        lines = ""
        for vocab in ("1000", "3000"):
            for extra in ([], ["--engine", "fast", "--threads", "2", "--no-logprob"]):
                proc = subprocess.run([CLI, "bench", "--json", "--vocab", vocab,
                                       "--iters", "3", *extra],
                                      capture_output=True, text=True, check=True)
                lines += proc.stdout
        return lines

    def assert_pngs(self, folder, names):
        for name in names:
            path = os.path.join(folder, name)
            self.assertTrue(os.path.isfile(path), path)
            with open(path, "rb") as f:
                data = f.read()
            self.assertGreater(len(data), 1000, path)
            self.assertEqual(data[:8], b"\x89PNG\r\n\x1a\n", path)

    @unittest.skipIf(PYTHON is None, NO_MATPLOTLIB)
    def test_charts_from_files(self):
        with open(self.path("bench.jsonl"), "w") as f:
            f.write(self.bench_lines())
        entries = [kernel_entry(k, t, v, rate)
                   for v in (32000, 128256)
                   for k in ("floor", "max", "topk")
                   for t, rate in (("AVX2", 9e8), ("SSE4", 2e8), ("scalar", 1.5e8))]
        entries.append(dict(entries[0], run_type="aggregate", aggregate_name="mean"))
        with open(self.path("kernels.json"), "w") as f:
            json.dump({"context": {"library_build_type": "release"},
                       "benchmarks": entries}, f)
        proc = self.plot(self.path("bench.jsonl"), self.path("kernels.json"),
                         "--out", self.path("out"))
        self.assertEqual(proc.returncode, 0, proc.stderr)
        names = [f"time_{c}.png" for c in
                 ("floor", "plain", "topk40", "topp", "minp", "full", "greedy")]
        names += ["kernels_32000.png", "kernels_128256.png"]
        self.assert_pngs(self.path("out"), names)
        self.assertEqual(sorted(proc.stdout.split()),
                         sorted(os.path.join(self.path("out"), n) for n in names))

    @unittest.skipIf(PYTHON is None, NO_MATPLOTLIB)
    def test_stdin(self):
        proc = self.plot("--out", self.path("out"), stdin=self.bench_lines())
        self.assertEqual(proc.returncode, 0, proc.stderr)
        self.assert_pngs(self.path("out"), ["time_plain.png", "time_floor.png"])

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
        proc = self.plot("--out", self.path("out"), stdin="")
        self.assertNotEqual(proc.returncode, 0)
        self.assertIn("nothing to plot", proc.stderr)

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


if __name__ == "__main__":
    if PYTHON is None:
        print(f"SKIPPED chart tests: {NO_MATPLOTLIB}", file=sys.stderr)
    cli_harness.main(sys.modules[__name__])
