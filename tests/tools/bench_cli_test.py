#!/usr/bin/env python3
"""`exactsample bench` run as a user would, on small rows.

The JSON lines have the documented fields and types, one per engine row and
floor row; --config, --engine, --target, --threads, --no-logprob and
--logits FILE shape the output; the text table prints the ratios; a missing
or malformed logits file and bad usage exit 2 with a message that names the
problem.

    python3 tests/tools/bench_cli_test.py --cli build/exactsample
"""

import json
import os
import struct
import subprocess
import sys
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "support"))
import cli_harness  # noqa: E402

CLI = None  # set by main()
CONFIGS = ["plain", "topk40", "topp", "minp", "full", "greedy"]
FIELDS = ["engine", "config", "vocab", "target", "threads", "logprob", "median_us",
          "min_us", "iters", "batch", "contend", "dtype", "history", "architecture",
          "emulator"]


def bench(*args):
    """(exit status, stdout, stderr) of `exactsample bench ARGS`."""
    proc = subprocess.run([CLI, "bench", *args], capture_output=True, text=True)
    return proc.returncode, proc.stdout, proc.stderr


def bench_json(*args):
    status, out, err = bench("--json", *args)
    if status != 0:
        raise AssertionError(f"bench {args} exited {status}: {err}")
    return [json.loads(line) for line in out.splitlines()]


def supported_targets():
    out = subprocess.run([CLI, "targets", "--supported"], capture_output=True,
                         text=True, check=True).stdout
    return out.split()


class BenchCliTest(cli_harness.TempDirTest):
    prefix = "bench_"

    def test_json_schema_and_rows(self):
        rows = bench_json("--vocab", "4096", "--iters", "5")
        best = supported_targets()[0]
        for r in rows:
            self.assertEqual(list(r), FIELDS)
            self.assertIsInstance(r["median_us"], float)
            self.assertIsInstance(r["min_us"], float)
            self.assertGreater(r["min_us"], 0)
            self.assertLessEqual(r["min_us"], r["median_us"])
            self.assertEqual((r["vocab"], r["threads"], r["logprob"], r["dtype"], r["history"]),
                             (4096, 1, True, "f32", None))
        cells = {(r["config"], r["engine"]): r for r in rows}
        expected = [("floor", "fast"), ("floor-scalar", "scalar")] + [
            (c, e) for c in CONFIGS for e in ("reference", "fast")]
        self.assertEqual(list(cells), expected)
        self.assertEqual(cells[("floor", "fast")]["target"], best)
        self.assertEqual(cells[("floor-scalar", "scalar")]["target"], "scalar")
        for c in CONFIGS:
            self.assertEqual(cells[(c, "fast")]["target"], best)
            self.assertEqual(cells[(c, "fast")]["iters"], 5)
            self.assertEqual(cells[(c, "reference")]["target"], "scalar")
            self.assertEqual(cells[(c, "reference")]["iters"], 3)  # a tenth, at least 3

    def test_options_shape_the_rows(self):
        rows = bench_json("--vocab", "2000", "--iters", "40", "--config", "topp",
                          "--engine", "fast", "--threads", "2", "--no-logprob")
        self.assertEqual([r["config"] for r in rows], ["floor", "topp"])  # the yardstick
        r = rows[1]
        self.assertEqual((r["config"], r["engine"], r["threads"], r["logprob"], r["iters"]),
                         ("topp", "fast", 2, False, 40))
        rows = bench_json("--vocab", "2000", "--iters", "40", "--config", "minp",
                          "--engine", "reference")
        self.assertEqual([(r["engine"], r["iters"]) for r in rows], [("reference", 4)])
        rows = bench_json("--vocab", "2000", "--iters", "3", "--config", "floor-scalar")
        self.assertEqual([(r["engine"], r["target"]) for r in rows], [("scalar", "scalar")])
        # A list of thread counts: a fast row per count, in the order given.
        rows = bench_json("--vocab", "40000", "--iters", "3", "--config", "plain",
                          "--engine", "fast", "--threads", "1,2,3")
        self.assertEqual([(r["config"], r["threads"]) for r in rows],
                         [("floor", 1), ("plain", 1), ("plain", 2), ("plain", 3)])

    def test_dtypes_each_get_their_rows_and_a_ratio(self):
        # Engine rows per type in the order given (floor rows stay f32);
        # with --threads, each type at each count; batches too.
        rows = bench_json("--vocab", "3000", "--iters", "3", "--config", "plain,topk40",
                          "--dtype", "f32,bf16,f16")
        self.assertEqual(
            [(r["config"], r["engine"], r["dtype"]) for r in rows],
            [("floor", "fast", "f32")] +
            [(c, e, d) for c in ("plain", "topk40") for d in ("f32", "bf16", "f16")
             for e in ("reference", "fast")])
        rows = bench_json("--vocab", "40000", "--iters", "2", "--config", "plain",
                          "--engine", "fast", "--dtype", "bf16", "--threads", "1,2",
                          "--batch", "2")
        self.assertEqual([(r["dtype"], r["threads"]) for r in rows],
                         [("f32", 1), ("bf16", 1), ("bf16", 2)])
        status, out, err = bench("--vocab", "3000", "--iters", "3", "--engine", "fast",
                                 "--dtype", "f32,bf16,f16")
        self.assertEqual(status, 0, err)
        self.assertIn("median in each row type / median in f32", out)
        for c in CONFIGS:
            self.assertRegex(out, rf"\n{c} +\d+\.\d\d +\d+\.\d\d\n")
        # A 16-bit file row, timed in f16: its values exactly.
        import numpy as np
        np.save(self.path("row.npy"), np.linspace(-5, 5, 999).astype(np.float16))
        rows = bench_json("--logits", self.path("row.npy"), "--iters", "2", "--config",
                          "greedy", "--engine", "fast", "--dtype", "f16")
        self.assertEqual([(r["vocab"], r["dtype"]) for r in rows], [(999, "f32"), (999, "f16")])
        # A row whose values overflow f16: refused naming the option and type.
        values = [70000.0, 1.0, 2.0]
        with open(self.path("big.f32"), "wb") as f:
            f.write(struct.pack("<3f", *values))
        status, _, err = bench("--logits", self.path("big.f32"), "--dtype", "f16")
        self.assertEqual(status, 2)
        self.assertIn("--dtype f16", err)
        self.assertIn("logits[0] = inf", err)

    def test_row_seed_batch_and_contention(self):
        # Another seed of the standard row: the same kind of row, other times.
        status, out, err = bench("--vocab", "2000", "--iters", "3", "--row-seed", "7",
                                 "--config", "plain", "--engine", "fast")
        self.assertEqual(status, 0, err)
        rows = bench_json("--vocab", "40000", "--iters", "4", "--config", "plain",
                          "--engine", "fast", "--threads", "1,2", "--batch", "3",
                          "--contend", "1")
        self.assertEqual([(r["config"], r["threads"], r["batch"], r["contend"]) for r in rows],
                         [("floor", 1, 3, 1), ("plain", 1, 3, 1), ("plain", 2, 3, 1)])
        status, out, err = bench("--vocab", "2000", "--iters", "3", "--config", "plain",
                                 "--batch", "2", "--contend", "1")
        self.assertEqual(status, 0, err)
        self.assertIn("batches of 2 rows, 1 busy threads beside", out)
        rows = bench_json("--vocab", "2000", "--iters", "3", "--config", "plain",
                          "--engine", "fast")
        self.assertEqual([(r["batch"], r["contend"]) for r in rows], [(0, 0), (0, 0)])

    def test_history_rows_and_ratios(self):
        # A row per configuration (and full with its penalties off) per N,
        # the configurations in their order, the lengths in the order given;
        # the floor stays stateless.
        rows = bench_json("--vocab", "4096", "--iters", "3", "--config", "full,topk40",
                          "--engine", "fast", "--history", "0,1000")
        self.assertEqual([(r["config"], r["history"]) for r in rows],
                         [("floor", None), ("topk40", 0), ("topk40", 1000), ("full", 0),
                          ("full", 1000), ("full-nopen", 0), ("full-nopen", 1000)])
        rows = bench_json("--vocab", "3000", "--iters", "10", "--config", "minp",
                          "--history", "6", "--dtype", "bf16", "--bias", "4")
        self.assertEqual([(r["config"], r["engine"], r["dtype"], r["history"]) for r in rows],
                         [("floor", "fast", "f32", None), ("minp", "reference", "bf16", 6),
                          ("minp", "fast", "bf16", 6), ("minp+", "fast", "bf16", 6)])
        status, out, err = bench("--vocab", "3000", "--iters", "3", "--config", "full",
                                 "--engine", "fast", "--history", "0,20,300")
        self.assertEqual(status, 0, err)
        self.assertIn("sequence path, median with N history ids / median with N = 0", out)
        self.assertRegex(out, r"\nconfig +engine +dtype +threads +N=20 +N=300\n")
        for config in ("full", "full-nopen"):
            self.assertRegex(out, rf"\n{config} +fast +f32 +1 +\d+\.\d\d +\d+\.\d\d\n")
            self.assertRegex(out, rf"\n{config} +fast +\S+ +f32 +1 +[0-9.]+ +[0-9.]+ +3 +300\n")

    def test_every_supported_target(self):
        for target in supported_targets():
            rows = bench_json("--vocab", "1000", "--iters", "2", "--config", "floor",
                              "--target", target)
            self.assertEqual([r["target"] for r in rows], [target])
            rows = bench_json("--vocab", "1000", "--iters", "2", "--config", "greedy",
                              "--target", target)
            self.assertEqual([(r["config"], r["engine"], r["target"]) for r in rows],
                             [("floor", "fast", target), ("greedy", "reference", "scalar"),
                              ("greedy", "fast", target)])

    def test_logits_file(self):
        values = [((i * 7919) % 1000) / 100.0 - 5.0 for i in range(3001)]
        with open(self.path("row.f32"), "wb") as f:
            f.write(struct.pack("<3001f", *values))
        rows = bench_json("--logits", self.path("row.f32"), "--iters", "3")
        self.assertEqual(len(rows), 14)
        self.assertTrue(all(r["vocab"] == 3001 for r in rows))
        status, out, err = bench("--logits", self.path("row.f32"), "--iters", "3",
                                 "--config", "plain")
        self.assertEqual(status, 0, err)
        self.assertIn("row.f32, V = 3001", out)

    def test_text_table_has_the_ratios(self):
        status, out, err = bench("--vocab", "3000", "--iters", "5")
        self.assertEqual(status, 0, err)
        self.assertIn("fast/floor", out)
        self.assertIn("reference/fast", out)
        self.assertIn("floor-scalar/floor", out)
        for c in CONFIGS:
            self.assertRegex(out, rf"\n{c} +[12] +\d+\.\d\d +\d+\.\d\d\n")
        # With a list of thread counts: a speed-up column per extra count.
        status, out, err = bench("--vocab", "3000", "--iters", "3", "--engine", "fast",
                                 "--threads", "1,2")
        self.assertEqual(status, 0, err)
        self.assertIn("median at 1 threads / median at N threads", out)
        for c in CONFIGS:
            self.assertRegex(out, rf"\n{c} +\d+\.\d\d\n")

    def test_speculative_times_a_verification_against_its_single_calls(self):
        status, out, err = bench("--speculative", "3", "--vocab", "4096", "--iters", "5",
                                 "--json")
        self.assertEqual(status, 0, err)
        [row] = [json.loads(line) for line in out.splitlines()]
        self.assertEqual((row["mode"], row["gamma"], row["vocab"], row["config"]),
                         ("speculative", 3, 4096, "plain"))
        self.assertLessEqual(row["accepted"], 3)
        # A sampled target: one draw per tested draft, one more at the end.
        self.assertEqual(row["draws"], row["accepted"] + (1 if row["accepted"] == 3 else 2))
        for key in ("verify", "singles"):
            self.assertGreater(row[key + "_min_us"], 0)
            self.assertLessEqual(row[key + "_min_us"], row[key + "_median_us"])
        self.assertEqual(row["ratio_median"], row["verify_median_us"] / row["singles_median_us"])
        # These rows reject the first draft for some seed below 1000: that
        # verification (the residual's) is timed too.
        self.assertLess(row["rejected_seed"], 1000)
        self.assertGreater(row["rejected_median_us"], 0)
        self.assertEqual(row["rejected_ratio_median"],
                         row["rejected_median_us"] / row["singles_median_us"])
        status, out, err = bench("--speculative", "2", "--vocab", "512", "--iters", "3",
                                 "--config", "greedy", "--engine", "reference")
        self.assertEqual(status, 0, err)
        self.assertIn("G = 2, V = 512, config greedy, reference engine on scalar", out)
        self.assertIn("0 draws", out)
        self.assertIn(" 3 +  2 single calls", out)
        self.assertIn("verify / singles", out)
        small = ["--vocab", "64", "--iters", "1", "--speculative", "2"]
        for args, reason in [
                (small + ["--batch", "4"], "drop --batch"),
                (small + ["--dtype", "bf16"], "drop --batch"),
                (small + ["--config", "plain,full"], "one configuration"),
                (small + ["--threads", "1,2"], "one configuration"),
                (small + ["--config", "floor"], "floor is not an engine row"),
                (small + ["--target", "NOSUCH"], "NOSUCH"),
                (["--speculative", "2", "--logits", self.path("missing.f32")], "cannot open"),
                (["--speculative", "0"], "not in range")]:
            status, _, err = bench(*args)
            self.assertEqual(status, 2, (args, err))
            self.assertIn(reason, err, args)

    def test_bad_logits_files_exit_2(self):
        missing = self.path("missing.f32")
        status, _, err = bench("--logits", missing)
        self.assertEqual(status, 2)
        self.assertIn(f"{missing}: cannot open", err)
        with open(self.path("odd.f32"), "wb") as f:
            f.write(b"\0" * 10)
        status, _, err = bench("--logits", self.path("odd.f32"))
        self.assertEqual(status, 2)
        self.assertIn("10 bytes is not a multiple of 4", err)
        open(self.path("empty.f32"), "wb").close()
        status, _, err = bench("--logits", self.path("empty.f32"))
        self.assertEqual(status, 2)
        self.assertIn("empty", err)
        with open(self.path("nan.f32"), "wb") as f:
            f.write(struct.pack("<3f", 1.0, float("nan"), 2.0))
        status, _, err = bench("--logits", self.path("nan.f32"))
        self.assertEqual(status, 2)
        self.assertIn("NaN", err)

    def test_chain_runs_every_configuration_in_its_order(self):
        for chain in ("llama", "penalties,temperature,top_k,top_p,min_p"):
            rows = bench_json("--chain", chain, "--config", "plain,topk40", "--vocab", "2000",
                              "--iters", "5", "--engine", "both")
            self.assertEqual(sorted({(r["config"], r["engine"]) for r in rows
                                     if r["config"] != "floor"}),
                             [("plain", "fast"), ("plain", "reference"),
                              ("topk40", "fast"), ("topk40", "reference")], chain)

    def test_chains_given_more_than_once_each_get_their_rows(self):
        rows = bench_json("--chain", "spec", "--chain", "llama+typical",
                          "--chain", "llama+typical+xtc", "--chain", "llama+top_n_sigma", "--chain", "llama+dry",
                          "--config", "full", "--vocab", "2000",
                          "--iters", "5", "--engine", "both", "--typical-p", "0.9",
                          "--xtc-probability", "1", "--xtc-threshold", "0",
                          "--top-n-sigma", "0.5")
        self.assertEqual(sorted({(r["config"], r["engine"]) for r in rows
                                 if r["config"] != "floor"}),
                         [(c, e) for c in ("full@llama+dry", "full@llama+top_n_sigma",
                                           "full@llama+typical", "full@llama+typical+xtc",
                                           "full@spec")
                          for e in ("fast", "reference")])

    def test_usage_errors_exit_2(self):
        with open(self.path("row.f32"), "wb") as f:
            f.write(struct.pack("<4f", 1, 2, 3, 4))
        for args, reason in [
                (["--vocab", "100", "--logits", self.path("row.f32")], "excludes"),
                (["--config", "nucleus"], "nucleus"),
                (["--engine", "slow"], "slow"),
                (["--target", "NOSUCH"], "NOSUCH"),
                (["--iters", "0"], "iters"),
                (["--threads", "0"], "threads"),
                (["--threads", "1,0"], "threads"),
                (["--vocab", "0"], "vocab"),
                (["--row-seed", "3", "--logits", self.path("row.f32")], "excludes"),
                (["--batch", "0"], "batch"),
                (["--contend", "-1"], "contend"),
                (["--dtype", "f8"], "--dtype: f8"),
                (["--dtype", "f32,bf8"], "bf8"),
                (["--history", "-1"], "--history"),
                (["--history", "0,x"], "--history"),
                (["--history", "16777217"], "--history"),
                (["--history", "10", "--batch", "2"], "drop --batch"),
                (["--chain", "fast"], "chain = 'fast': not a preset"),
                (["--chain", "top_k,topk"], "chain[1] = 'topk': not a step"),
                (["--chain", "top_k", "--config", "topk40"],
                 "no temperature step"),
                (["--chain", "llama+top_k"], "'+top_k': not +dry, +top_n_sigma, +typical or +xtc"),
                (["--chain", "penalties,top_k,temperature+typical", "--config", "topk40"],
                 "no typical step"),
                (["--typical-p", "2"], "--typical-p"),
                (["--top-n-sigma", "0"], "--top-n-sigma"),
                (["--dry-multiplier", "-1"], "--dry-multiplier"),
                (["--chain", "penalties,top_k,temperature+top_n_sigma", "--config", "topk40"],
                 "no top_n_sigma step"),
                (["--xtc-probability", "-1"], "--xtc-probability"),
                (["--xtc-threshold", "1.5"], "--xtc-threshold")]:
            status, _, err = bench(*args)
            self.assertEqual(status, 2, args)
            self.assertIn(reason, err, args)


if __name__ == "__main__":
    cli_harness.main(sys.modules[__name__])
