#!/usr/bin/env python3
"""bench/threads_table.py on small runs of the command-line program: one
table per condition with a cell per configuration and vocabulary (the
ratio and both medians), and exit 1 (a failing or silent program) or 2
(bad usage) with what went wrong.

    python3 tests/tools/bench_threads_table_test.py --cli build/exactsample
"""

import os
import re
import subprocess
import sys
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "support"))
import cli_harness  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
TABLE = os.path.join(HERE, "..", "..", "bench", "threads_table.py")
CLI = None  # set by main()
CONFIGS = ("plain", "topk40", "topp", "minp", "full", "greedy")
CELL = re.compile(r"^(\d+\.\d\d) \[(\d+(?:\.\d+)?) / (\d+(?:\.\d+)?)\]$")


class ThreadsTableTest(cli_harness.TempDirTest):
    prefix = "threads_table_"

    def table(self, *args, exe=None):
        return subprocess.run([sys.executable, TABLE, "--exactsample", exe or CLI, *args],
                              capture_output=True, text=True)

    def test_one_table_per_condition_with_every_cell(self):
        run = self.table("--vocab", "3000,5000", "--iters", "8", "--condition", "quiet,--batch 8")
        self.assertEqual(run.returncode, 0, run.stderr)
        titles = [line for line in run.stdout.splitlines() if "median at 1 thread" in line]
        self.assertEqual(len(titles), 2, run.stdout)
        self.assertTrue(titles[0].startswith("quiet (--iters 8)"), titles[0])
        self.assertTrue(titles[1].startswith("--batch 8 (--iters 1)"), titles[1])
        rows = [line for line in run.stdout.splitlines() if line.startswith("| ")]
        self.assertEqual(rows.count("| config | V = 3000 | V = 5000 |"), 2, run.stdout)
        for config in CONFIGS:
            found = [r for r in rows if r.startswith(f"| {config} |")]
            self.assertEqual(len(found), 2, f"{config}: {run.stdout}")
            for row in found:
                cells = [c.strip() for c in row.strip("|").split("|")[1:]]
                self.assertEqual(len(cells), 2, row)
                for cell in cells:
                    m = CELL.match(cell)
                    self.assertIsNotNone(m, cell)
                    one, two = float(m.group(2)), float(m.group(3))
                    self.assertGreater(one, 0)
                    self.assertGreater(two, 0)

    def test_an_unknown_condition_is_bad_usage(self):
        run = self.table("--condition", "quiet,loud")
        self.assertEqual(run.returncode, 2)
        self.assertIn("--condition 'loud'", run.stderr)
        self.assertEqual(run.stdout, "")

    def test_a_vocabulary_that_is_not_a_number_is_bad_usage(self):
        run = self.table("--vocab", "3000,lots")
        self.assertEqual(run.returncode, 2)
        self.assertIn("--vocab '3000,lots'", run.stderr)
        self.assertEqual(run.stdout, "")

    def test_a_missing_program_is_named(self):
        missing = self.path("no_such_program")
        run = self.table("--vocab", "64", "--condition", "quiet", exe=missing)
        self.assertEqual(run.returncode, 1)
        self.assertIn(f"{missing}: cannot run it", run.stderr)
        self.assertNotIn("Traceback", run.stderr)

    def test_a_failing_program_is_named_with_its_status(self):
        run = self.table("--vocab", "64", "--condition", "quiet", exe="/bin/false")
        self.assertEqual(run.returncode, 1)
        self.assertIn("failed (1)", run.stderr)

    def test_a_program_that_prints_no_rows_fails(self):
        run = self.table("--vocab", "64", "--condition", "quiet", exe="/bin/true")
        self.assertEqual(run.returncode, 1)
        self.assertIn("no rows for", run.stderr)

    def test_a_run_the_program_refuses_fails(self):
        run = self.table("--vocab", "0", "--condition", "quiet")
        self.assertEqual(run.returncode, 1)
        self.assertIn("--vocab 0", run.stderr)


if __name__ == "__main__":
    cli_harness.main(sys.modules[__name__])
