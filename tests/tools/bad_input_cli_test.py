#!/usr/bin/env python3
"""Bad input to the `exactsample` program: no crash, no hang, no silent pass.

Each case checks the exit status and the first line of the message:
directories and empty paths as inputs, deep JSON, the steps cap, flushed
lines, bad audit flags, audits that compare nothing, ids outside int32,
greedy streams with more ids than rows, the numeric-string grammar (on both
sides), brief values in messages, logits beyond f32, stdin as "-", bench's
logits files and --config lists, --target with the reference engine, the
help text and running out of memory.

    python3 tests/tools/bad_input_cli_test.py --cli build/exactsample
"""

import json
import os
import resource
import subprocess
import sys
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "support"))
import cli_harness  # noqa: E402
from audit_cli_test import write_lines, write_npy  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
SPEC_SAMPLER = os.path.join(HERE, "..", "..", "tools", "spec_sampler.py")
GOLDEN = os.path.join(HERE, "..", "data", "sampler_golden.json")
CLI = None  # set by main()


def run(*args, stdin=None, limit_bytes=None):
    """(exit status, stdout, first line of stderr)."""
    def cap():
        resource.setrlimit(resource.RLIMIT_AS, (limit_bytes, limit_bytes))
    proc = subprocess.run([CLI, *args], capture_output=True, text=True, input=stdin,
                          timeout=300, preexec_fn=cap if limit_bytes else None)
    return proc.returncode, proc.stdout, (proc.stderr.splitlines() or [""])[0]


def case(name="c", logits=(1.0, 2.0), **fields):
    return {"name": name, "logits": list(logits), "seed": 1, **fields}


class BadInputTest(cli_harness.TempDirTest):
    prefix = "bad_input_"

    def write_cases(self, cases, name="cases.json"):
        with open(self.path(name), "w", encoding="utf-8") as f:
            json.dump({"cases": cases}, f)
        return self.path(name)

    def replay_error(self, c):
        """The error line `replay` prints for one case (exit 1)."""
        status, out, _ = run("replay", self.write_cases([c]))
        self.assertEqual(status, 1, out)
        return json.loads(out.splitlines()[0])["error"]

    # ------------------------------------------------------------ 1, 13

    def test_directories_and_empty_paths_exit_2(self):
        folder = self.path("dir.npy")
        os.mkdir(folder)
        write_npy(self.path("x.npy"), [[0.0, 1.0]])
        write_lines(self.path("streams.jsonl"), [{"logits": "dir.npy", "ids": [0]}])
        for args in [["replay", folder], ["audit", "--replay", folder],
                     ["audit", "--logits", folder], ["bench", "--logits", folder],
                     ["audit", "--logits", self.path("x.npy"), "--requests", folder],
                     ["audit", "--greedy-streams", folder],
                     ["audit", "--greedy-streams", self.path("streams.jsonl")]]:
            status, _, err = run(*args)
            self.assertEqual(status, 2, args)
            self.assertTrue(err.endswith(f"{folder}: is a directory, not a file"), err)
        status, _, err = run("replay", "")
        self.assertEqual((status, err), (2, 'exactsample replay: "": empty path; give a '
                                            'file, or - for standard input'))

    def test_dash_reads_standard_input(self):
        with open(GOLDEN, encoding="utf-8") as f:
            golden = f.read()
        status, out, _ = run("replay", "-", stdin=golden)
        self.assertEqual(status, 0)
        self.assertEqual(out, run("replay", GOLDEN)[1])
        status, out, _ = run("audit", "--json", "--replay", "-", stdin=golden)
        self.assertEqual(status, 0)
        self.assertEqual(json.loads(out.splitlines()[-1])["result"], "pass")
        status, _, err = run("audit", "--replay", "-", "--against", "-", stdin=golden)
        self.assertEqual((status, err),
                         (2, "exactsample audit: only one input can be - (standard input)"))

    # ------------------------------------------------------------ 2, 10

    def test_deep_json_is_refused(self):
        deep = "[" * 100000 + "]" * 100000
        for text in ['{"cases": [{"name": "a", "seed": 1, "logits": ' + deep + "}]}",
                     '{"cases": ' + deep + "}"]:
            with open(self.path("deep.json"), "w") as f:
                f.write(text)
            status, _, err = run("replay", self.path("deep.json"))
            self.assertEqual((status, err), (2, "exactsample replay: " + self.path("deep.json") +
                                             ": nested deeper than 32 levels"))

    def test_both_sides_refuse_the_same_nesting(self):
        # 29 arrays inside case, cases and the document: 32 levels, read;
        # one more: refused, by the program and by the Python transcription.
        for arrays, readable in [(29, True), (30, False)]:
            logits = "[" * arrays + "1.0" + "]" * arrays
            with open(self.path("nest.json"), "w") as f:
                f.write('{"cases": [{"name": "a", "seed": 1, "logits": ' + logits + "}]}")
            status, _, _ = run("replay", self.path("nest.json"))
            py = subprocess.run([sys.executable, SPEC_SAMPLER, "replay", self.path("nest.json")],
                                capture_output=True, text=True)
            self.assertEqual(status, 1 if readable else 2, arrays)
            self.assertEqual(py.returncode, 0 if readable else 2, arrays)
            if not readable:
                self.assertTrue(py.stderr.strip().endswith("nested deeper than 32 levels"),
                                py.stderr)

    def test_values_are_described_briefly(self):
        error = self.replay_error(case(params={"temperature": list(range(100000))}))
        self.assertEqual(error, 'temperature: expected a number or a numeric string (JSON '
                                'number syntax, "inf", "-inf" or "nan"), got an array of '
                                "100000 items")
        error = self.replay_error(case(params={"top_p": "x" * 5000}))
        self.assertLess(len(error), 200)
        self.assertIn('"xxxxxxxx', error)
        self.assertIn("... (5000 bytes)", error)

    # ------------------------------------------------------------ 3, 14

    def test_steps_are_capped(self):
        self.assertEqual(self.replay_error(case(steps=65537)),
                         "steps: expected an integer in [0, 65536], got 65537")
        status, out, _ = run("replay", self.write_cases([case(steps=65536)]))
        self.assertEqual(status, 0)
        self.assertEqual(len(json.loads(out)["ids"]), 65536)
        write_npy(self.path("x.npy"), [[0.0, 1.0]])
        for steps in ["-2", "65537"]:
            status, _, err = run("audit", "--logits", self.path("x.npy"), "--steps", steps)
            self.assertEqual((status, err),
                             (2, f"--steps: Value {steps} not in range 0 to 65536"))

    # ------------------------------------------------------------ 4

    def test_each_case_line_is_flushed(self):
        slow = case("slow", [float(i % 97) for i in range(50000)], steps=65536,
                    params={"repetition_penalty": 1.1})
        path = self.write_cases([case("quick"), slow])
        proc = subprocess.Popen([CLI, "replay", path, "--engine", "reference"],
                                stdout=subprocess.PIPE, text=True)
        try:
            first = proc.stdout.readline()  # before the slow case ends
            self.assertIsNone(proc.poll())
            self.assertEqual(json.loads(first)["name"], "quick")
        finally:
            proc.kill()
            proc.wait()
            proc.stdout.close()

    # ------------------------------------------------------------ 5, 6

    def test_bad_audit_flags_exit_2(self):
        write_npy(self.path("x.npy"), [[0.0, 1.0]])
        x = self.path("x.npy")
        for args, first in [
                (["--temperature", "-1"],
                 "exactsample audit: bad flag: temperature = -1.0: must be finite and >= 0"),
                (["--top-k", "-3"],
                 "exactsample audit: bad flag: top_k = -3: must be >= 0 (0 turns it off)"),
                (["--seed", "-1"], "--seed: -1 is not an integer in [0, 18446744073709551615]"),
                (["--seed", "18446744073709551616"],
                 "--seed: 18446744073709551616 is not an integer in [0, 18446744073709551615]"),
                (["--seed", "1e23"], "--seed: 1e23 is not an integer in [0, 18446744073709551615]")]:
            status, _, err = run("audit", "--logits", x, *args)
            self.assertEqual((status, err), (2, first), args)
        write_lines(self.path("s.jsonl"), [{"logits": "x.npy", "ids": [1]}])
        status, _, err = run("audit", "--greedy-streams", self.path("s.jsonl"),
                             "--tie-tolerance", "nan")
        self.assertEqual((status, err), (2, "--tie-tolerance: nan is not a finite number >= 0"))

    def test_nothing_compared_is_not_a_pass(self):
        nothing = "exactsample audit: nothing compared: no request produced a token " \
                  "(no requests, every one rejected, or steps 0)"
        inf = float("inf")
        for rows, one_d in [([[float("nan"), 1.0]], False), ([[inf, 1.0]], False),
                            ([[-inf, -inf]], False), ([[]], True), ([[]] * 4, False)]:
            write_npy(self.path("x.npy"), rows, one_d=one_d)
            status, out, err = run("audit", "--json", "--logits", self.path("x.npy"))
            self.assertEqual((status, err), (2, nothing), rows)
            self.assertEqual(json.loads(out.splitlines()[-1])["result"], "nothing compared")
        write_npy(self.path("x.npy"), [[0.0, 1.0]])
        write_lines(self.path("empty.jsonl"), [])
        status, _, err = run("audit", "--logits", self.path("x.npy"), "--requests",
                             self.path("empty.jsonl"))
        self.assertEqual((status, err), (2, nothing))

    # ------------------------------------------------------------ 7, 8

    def test_against_ids_outside_int32_exit_2(self):
        path = self.write_cases([case(steps=1)])
        write_lines(self.path("other.jsonl"),
                    [{"name": "c", "ids": [18446744073709551615], "logprobs": [-1.0]}])
        status, _, err = run("audit", "--replay", path, "--against", self.path("other.jsonl"))
        self.assertEqual((status, err), (2, "exactsample audit: " + self.path("other.jsonl") +
                                         " line 1: ids[0]: expected an integer in "
                                         "[-2147483648, 2147483647], got 18446744073709551615"))

    def test_greedy_stream_with_more_ids_than_rows_exits_2(self):
        write_npy(self.path("s.npy"), [[0.0, 1.0], [1.0, 0.0]])
        write_lines(self.path("s.jsonl"), [{"logits": "s.npy", "ids": [1, 0, 1]}])
        status, _, err = run("audit", "--greedy-streams", self.path("s.jsonl"))
        self.assertEqual((status, err), (2, "exactsample audit: " + self.path("s.jsonl") +
                                         " line 1: ids: 3 ids for the 2 rows of " +
                                         self.path("s.npy") + "; give one row of logits "
                                         "per step"))

    # ------------------------------------------------------------ 9, 11, 12

    def test_numeric_strings_follow_one_grammar_on_both_sides(self):
        bad = ["0x1p3", " 1.0", "1.0 ", "1_0", "+1", "01", ".5", "1.", "Infinity", "1e400"]
        good = ["1.5e3", "-0", "0.25", "-inf", "2E-2"]
        cases = [case(f"bad {s!r}", [s, 1.0], steps=2) for s in bad]
        cases.append(case("good", [*good, 1.0], steps=3))
        path = self.write_cases(cases)
        status, out, _ = run("replay", path)
        self.assertEqual(status, 1)
        lines = [json.loads(l) for l in out.splitlines()]
        for s, line in zip(bad, lines):
            self.assertTrue(line["error"].startswith("logits[0]: "), line)
        self.assertEqual(len(lines[-1]["ids"]), 3)
        py = subprocess.run([sys.executable, SPEC_SAMPLER, "replay", path],
                            capture_output=True, text=True)
        self.assertEqual(py.returncode, 0)  # rejected cases are results
        with open(self.path("py.jsonl"), "w") as f:
            f.write(py.stdout)
        status, out, err = run("audit", "--replay", path, "--against", self.path("py.jsonl"))
        self.assertEqual(status, 0, out + err)

    def test_out_of_range_numbers_say_so(self):
        for value in [1e39, -1e39, "1e39", "-1e39"]:
            error = self.replay_error(case(logits=[1.0, value]))
            self.assertTrue(error.startswith("logits[1]: "), error)
            self.assertIn("is beyond the f32 range (largest 3.4028235e+38)", error)
        self.assertEqual(self.replay_error(case(params={"top_k": 18446744073709551616})),
                         "top_k: expected an integer in [-9223372036854775808, "
                         "9223372036854775807], got 18446744073709551616")
        self.assertEqual(self.replay_error(case(prompt=[18446744073709551616])),
                         "prompt[0]: expected an integer in [-2147483648, 2147483647], "
                         "got 18446744073709551616")
        self.assertEqual(self.replay_error(case(seed=-1)),
                         "seed: expected an integer in [0, 18446744073709551615], got -1")

    # ------------------------------------------------------------ 15, 16

    def test_bench_reads_npy_and_refuses_unknown_files(self):
        write_npy(self.path("one.npy"), [[0.5, 1.0, -2.0]])
        status, out, _ = run("bench", "--logits", self.path("one.npy"), "--iters", "2",
                             "--config", "plain", "--engine", "fast", "--json")
        self.assertEqual(status, 0)
        self.assertEqual({json.loads(l)["vocab"] for l in out.splitlines()}, {3})
        write_npy(self.path("three.npy"), [[0.0] * 40] * 3)
        status, _, err = run("bench", "--logits", self.path("three.npy"))
        self.assertEqual((status, err), (2, "exactsample bench: " + self.path("three.npy") +
                                         ": 3 rows; bench times one row: give shape (V,) "
                                         "or (1, V), e.g. a[0]"))
        status, _, err = run("bench", "--logits", self.path("three.bin"))
        self.assertEqual((status, err), (2, "exactsample bench: " + self.path("three.bin") +
                                         ": unknown kind of file: give FILE.npy, or raw "
                                         "little-endian f32 values as FILE.f32"))

    def test_bench_config_list_comes_with_the_floor(self):
        status, out, _ = run("bench", "--vocab", "500", "--iters", "2", "--engine", "fast",
                             "--config", "topp,minp", "--json")
        self.assertEqual(status, 0)
        self.assertEqual([json.loads(l)["config"] for l in out.splitlines()],
                         ["floor", "topp", "minp"])
        status, out, _ = run("bench", "--vocab", "500", "--iters", "2", "--config", "topp")
        self.assertEqual(status, 0)
        ratio = [l for l in out.splitlines() if l.startswith("topp ")][-1]
        self.assertNotIn(" - ", ratio)

    # ------------------------------------------------------------ 17, 18

    def test_replay_target_needs_the_fast_engine(self):
        status, _, err = run("replay", GOLDEN, "--engine", "reference", "--target", "SCALAR")
        self.assertEqual((status, err), (2, "exactsample replay: --target SCALAR applies to "
                                            "the fast engine only, not to --engine reference"))

    def test_replay_help_names_the_engines(self):
        status, out, _ = run("replay", "--help")
        self.assertEqual(status, 0)
        self.assertIn("--engine TEXT:{fast,reference}", out)
        self.assertNotIn("->", out)

    # ------------------------------------------------------------ 25

    @unittest.skipIf(cli_harness.emulated(), "qemu-user reserves the guest's memory itself: "
                     "an address-space cap stops the emulator, not the program")
    def test_out_of_memory_exits_2(self):
        limit = 1 << 30
        status, _, err = run("bench", "--vocab", str(1 << 30), limit_bytes=limit)
        self.assertEqual((status, err), (2, "exactsample: out of memory"))
        path = self.write_cases([case(logits=[0.5] * 3000000)])
        status, _, err = run("replay", path, limit_bytes=100 << 20)
        self.assertEqual((status, err), (2, "exactsample: out of memory"))


if __name__ == "__main__":
    cli_harness.main(sys.modules[__name__])
