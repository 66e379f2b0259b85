#!/usr/bin/env python3
"""Faults and edge inputs of the `exactsample` program: no crash, no lost
result, no silent accept, messages that name the field.

Each case checks the exit status and the first line of the message: read
errors, standard output that cannot be written, unknown case fields and
duplicate keys, the nesting limit on empty containers (on both sides),
loose flags, .npy f64 values beyond f32, unknown commands and unclear
values, -inf logprobs (left out of top_logprobs, written "-inf" and read
back), empty allow lists and logit_bias keys (on both sides).

    python3 tests/tools/input_faults_cli_test.py --cli build/exactsample
"""

import json
import os
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


def run(*args, stdin=None, stdout=subprocess.PIPE, preexec_fn=None):
    """(exit status, stdout, first line of stderr)."""
    proc = subprocess.run([CLI, *args], stdout=stdout, stderr=subprocess.PIPE, text=True,
                          stdin=stdin, timeout=300, preexec_fn=preexec_fn)
    return proc.returncode, proc.stdout, (proc.stderr.splitlines() or [""])[0]


def spec_sampler(path):
    """(exit status, stdout lines as objects, stderr) of the Python transcription."""
    proc = subprocess.run([sys.executable, SPEC_SAMPLER, "replay", path], capture_output=True,
                          text=True, timeout=300)
    lines = [json.loads(line) for line in proc.stdout.splitlines()]
    return proc.returncode, lines, proc.stderr.strip()


def case(name="c", logits=(1.0, 2.0), **fields):
    return {"name": name, "logits": list(logits), "seed": 1, **fields}


class InputFaultsTest(cli_harness.TempDirTest):
    prefix = "input_faults_"

    def write(self, name, text):
        with open(self.path(name), "w", encoding="utf-8") as f:
            f.write(text)
        return self.path(name)

    def write_cases(self, cases, name="cases.json"):
        return self.write(name, json.dumps({"cases": cases}))

    def replay_line(self, c, status=0):
        """The line `replay` prints for one case, with its exit status."""
        got, out, err = run("replay", self.write_cases([c]))
        self.assertEqual(got, status, out + err)
        return json.loads(out.splitlines()[0])

    # ------------------------------------------------------------ 1

    @unittest.skipIf(cli_harness.emulated(), "the emulator's /proc/self/mem is its own")
    def test_a_read_error_exits_2_naming_the_file(self):
        mem = "/proc/self/mem"  # reading offset 0 fails with EIO
        write_lines(self.path("streams.jsonl"), [{"logits": mem, "ids": [0]}])
        for args in [["replay", mem], ["audit", "--replay", mem], ["audit", "--logits", mem],
                     ["audit", "--greedy-streams", mem],
                     ["audit", "--greedy-streams", self.path("streams.jsonl")]]:
            status, _, err = run(*args)
            self.assertEqual(status, 2, args)
            self.assertTrue(err.endswith(f"{mem}: read error: Input/output error"), (args, err))

    def test_a_directory_on_standard_input_is_no_empty_file(self):
        folder = os.open(self.dir.name, os.O_RDONLY)
        try:
            status, _, err = run("replay", "-", stdin=folder)
        finally:
            os.close(folder)
        self.assertEqual((status, err), (2, "exactsample replay: - (standard input): is a "
                                            "directory, not a file"))

    # ------------------------------------------------------------ 3

    def test_output_that_cannot_be_written_exits_2(self):
        golden_out = self.path("golden.jsonl")
        with open(golden_out, "w") as f:
            subprocess.run([CLI, "replay", GOLDEN], stdout=f, check=True)
        commands = [["replay", GOLDEN], ["audit", "--replay", GOLDEN],
                    ["audit", "--json", "--replay", GOLDEN],
                    ["audit", "--replay", GOLDEN, "--against", golden_out],
                    ["bench", "--vocab", "100", "--iters", "1", "--config", "plain"],
                    ["bench", "--vocab", "100", "--iters", "1", "--config", "plain", "--json"],
                    ["demo"], ["targets"], ["targets", "--supported"], ["--version"],
                    ["--help"], ["replay", "--help"]]
        lost = "exactsample: cannot write standard output; the output is incomplete"
        for args in commands:
            with open("/dev/full", "w") as full:
                status, _, err = run(*args, stdout=full)
            self.assertEqual((status, err), (2, lost), ["/dev/full", *args])
            status, _, err = run(*args, stdout=None, preexec_fn=lambda: os.close(1))
            self.assertEqual((status, err), (2, lost), ["closed", *args])
            status, _, _ = run(*args)
            self.assertEqual(status, 0, args)

    # ------------------------------------------------------------ 6

    def test_unknown_case_fields_are_refused_on_both_sides(self):
        for field, value in [("param", {"temperature": -5}), ("step", 3), ("prompts", [1])]:
            path = self.write_cases([case(**{field: value})])
            status, out, _ = run("replay", path)
            self.assertEqual(status, 1, field)
            self.assertTrue(json.loads(out)["error"].startswith(f"{field}: unknown case field"),
                            out)
            py_status, lines, _ = spec_sampler(path)
            self.assertEqual(py_status, 0)
            self.assertEqual(lines[0]["error"], f"{field}: unknown case field")
        # The expected results a case may carry (the golden fixture's) are no request.
        status, out, _ = run("replay", GOLDEN)
        self.assertEqual(status, 0)
        self.assertEqual(len(out.splitlines()), 12)

    def test_a_key_given_twice_makes_the_file_unreadable_on_both_sides(self):
        for text in ['{"cases": [{"name": "a", "seed": 1, "logits": [1.0], '
                     '"params": {"temperature": 0.5, "temperature": 2.0}}]}',
                     '{"cases": [{"name": "a", "name": "b", "seed": 1, "logits": [1.0]}]}',
                     '{"cases": [], "cases": []}']:
            path = self.write("dup.json", text)
            status, _, err = run("replay", path)
            self.assertEqual(status, 2, text)
            self.assertRegex(err, r'^exactsample replay: .*dup\.json: the key "[a-z]+" appears '
                                  r"twice in one object$")
            py_status, _, py_err = spec_sampler(path)
            self.assertEqual(py_status, 2, text)
            self.assertIn("appears twice in one object", py_err)
        write_npy(self.path("x.npy"), [[0.0, 1.0]])
        write_lines(self.path("r.jsonl"), [])
        with open(self.path("r.jsonl"), "w") as f:
            f.write('{"seed": 1, "seed": 2}\n')
        status, _, err = run("audit", "--logits", self.path("x.npy"), "--requests",
                             self.path("r.jsonl"))
        self.assertEqual((status, err), (2, "exactsample audit: " + self.path("r.jsonl") +
                                         ' line 1: the key "seed" appears twice in one object'))

    # ------------------------------------------------------------ 7

    def test_empty_containers_count_as_levels_on_both_sides(self):
        # The document, cases and the case are 3 levels; 29 more (empty
        # arrays, or arrays around an empty object) make 32, read; 30, not.
        for arrays, readable in [(29, True), (30, False)]:
            for inner in ["", "{}"]:
                nest = "[" * arrays + inner + "]" * arrays
                if inner:  # the object is a level of its own
                    nest = "[" * (arrays - 1) + inner + "]" * (arrays - 1)
                path = self.write("nest.json", '{"cases": [{"name": "a", "seed": 1, '
                                               '"logits": ' + nest + "}]}")
                status, _, err = run("replay", path)
                py_status, _, py_err = spec_sampler(path)
                self.assertEqual(status, 1 if readable else 2, (arrays, inner, err))
                self.assertEqual(py_status, 0 if readable else 2, (arrays, inner))
                if not readable:
                    self.assertTrue(err.endswith("nested deeper than 32 levels"), err)
                    self.assertTrue(py_err.endswith("nested deeper than 32 levels"), py_err)

    # ------------------------------------------------------------ 8

    def test_loose_flags_are_bad_usage(self):
        write_npy(self.path("x.npy"), [[0.0, 1.0]])
        x = self.path("x.npy")
        for args, first in [
                (["audit", "--logits", x, "--temperature", ""], '--temperature: "" is not a number'),
                (["audit", "--logits", x, "--top-p", "0.5x"], "--top-p: 0.5x is not a number"),
                (["audit", "--logits", x, "--top-k", "9223372036854775808"],
                 "--top-k: 9223372036854775808 is not an integer in "
                 "[-9223372036854775808, 9223372036854775807]"),
                (["bench", "--mask", "nan"], "--mask: nan is not a number in [0, 1]"),
                (["bench", "--threads", "1,,2"], '--threads: "1,,2" has an empty item'),
                (["bench", "--config", "plain,"], '--config: "plain," has an empty item'),
                (["bench", "--dtype", ",f16"], '--dtype: ",f16" has an empty item'),
                (["targets", "--supported=2"], "supported was given a disallowed flag override"),
                (["audit", "--logits", x, "--json=0"], "json was given a disallowed flag override")]:
            status, _, err = run(*args)
            self.assertEqual((status, err), (2, first), args)

    # ------------------------------------------------------------ 9

    def test_f64_npy_values_beyond_f32_are_refused_as_written(self):
        for value, shown in [(-1e39, "-1e+39"), (1e39, "1e+39"), (3.5e38, "3.5e+38")]:
            write_npy(self.path("x.npy"), [[0.0, 1.0], [2.0, value]], dtype="<f8")
            want = (f"{self.path('x.npy')}: row 1, logits[1] = {shown} is beyond the f32 range "
                    "(largest 3.4028235e+38); write inf or -inf for an infinite logit")
            status, _, err = run("audit", "--logits", self.path("x.npy"))
            self.assertEqual((status, err), (2, "exactsample audit: " + want), value)
            write_npy(self.path("one.npy"), [[0.0, value]], dtype="<f8")
            status, _, err = run("bench", "--logits", self.path("one.npy"), "--iters", "1")
            self.assertEqual(status, 2, value)
            self.assertTrue(err.endswith(f"logits[1] = {shown} is beyond the f32 range (largest "
                                         "3.4028235e+38); write inf or -inf for an infinite "
                                         "logit"), err)
        # Infinities stay what they are; the largest f32 and what rounds to it are read.
        write_npy(self.path("x.npy"), [[float("-inf"), 3.4028234663852886e38, 3.4028235e38, 1.0]],
                  dtype="<f8")
        status, out, err = run("audit", "--logits", self.path("x.npy"))
        self.assertEqual(status, 0, out + err)

    # ------------------------------------------------------------ 11

    def test_messages_say_what_is_wrong(self):
        status, _, err = run("sample")
        self.assertEqual((status, err), (2, 'exactsample: unknown command "sample"; the commands '
                                            "are replay, audit, bench, demo and targets (see "
                                            "--help)"))
        status, _, err = run()
        self.assertEqual((status, err), (2, "A subcommand is required"))
        line = self.replay_line(case(params={"top_k": -9223372036854775809}), status=1)
        self.assertEqual(line["error"], "top_k: expected an integer in [-9223372036854775808, "
                                        "9223372036854775807], got -9.223372036854776e+18 (the "
                                        "f64 nearest an integer below -2^63)")
        header = "{'descr': [('a', '<f4')], 'fortran_order': False, 'shape': (1,), }"
        header += " " * ((64 - (10 + len(header) + 1) % 64) % 64) + "\n"
        with open(self.path("s.npy"), "wb") as f:
            f.write(b"\x93NUMPY\x01\x00" + len(header).to_bytes(2, "little") +
                    header.encode() + b"\0" * 4)
        status, _, err = run("audit", "--logits", self.path("s.npy"))
        self.assertEqual((status, err), (2, "exactsample audit: " + self.path("s.npy") +
                                         ": bad header: structured dtypes are not supported; "
                                         "expected '<f4' (float32), '<f8' (float64) or '<f2' "
                                         "(float16)"))

    # ------------------------------------------------------------ 14, 15

    def test_minus_inf_logprobs_are_left_out_and_written_as_replay_values(self):
        # l = [1e308, -1e308, 0]: M = 1e308, so id 1's logprob overflows to -inf.
        top = case("top", [0.0, 0.0, 0.0], steps=1,
                   params={"logit_bias": {"0": 1e308, "1": -1e308}, "top_logprobs": 3})
        line = self.replay_line(top)
        self.assertEqual(line["top_logprobs"], [[[0, 0.0], [2, -1e308]]])
        # T = 1e308: t = [1, -1, 0], so id 1 is drawn now and then (q = 0.09),
        # and its logprob is -inf; the others' are 0 and -1e308.
        hot = case("minus_inf", [0.0, 0.0, 0.0], steps=64,
                   params={"temperature": 1e308, "logit_bias": {"0": 1e308, "1": -1e308}})
        path = self.write_cases([top, hot])
        status, out, _ = run("replay", path)
        self.assertEqual(status, 0)
        line = json.loads(out.splitlines()[1])
        self.assertIn(1, line["ids"])
        want = {0: 0.0, 1: "-inf", 2: -1e308}
        self.assertEqual(line["logprobs"], [want[i] for i in line["ids"]])
        py_status, lines, _ = spec_sampler(path)
        self.assertEqual(py_status, 0)
        self.assertEqual((lines[1]["ids"], lines[1]["logprobs"]), (line["ids"], line["logprobs"]))
        self.assertEqual(lines[0]["top_logprobs"], [[[0, 0.0], [2, -1e308]]])
        with open(self.path("lines.jsonl"), "w") as f:
            f.write(out)
        status, out, err = run("audit", "--replay", path, "--against", self.path("lines.jsonl"))
        self.assertEqual(status, 0, out + err)  # every value read back, bit for bit

    # ------------------------------------------------------------ 16, 17, 18

    def test_empty_allow_list_and_bias_keys_follow_one_rule_on_both_sides(self):
        cases = [case("empty", params={"allowed_token_ids": []}),
                 case("space", params={"logit_bias": {" 1": 1.0}}),
                 case("plus", params={"logit_bias": {"+1": 1.0}}),
                 case("zeros", params={"logit_bias": {"01": 1.0}}),
                 case("minus", params={"logit_bias": {"-1": 1.0}}),
                 case("outside", params={"logit_bias": {"2": 1.0}}),
                 case("allowed", params={"allowed_token_ids": [2]}),
                 case("banned", params={"banned_token_ids": [0, 7]}),
                 case("good", params={"logit_bias": {"0": 1.0, "1": -1.0}}, steps=2)]
        want = ["allowed_token_ids: empty, so no id may be drawn; leave it out to allow every id",
                'logit_bias key " 1": not an id in canonical decimal (digits, no sign, spaces '
                'or leading zeros: "0", "17")',
                'logit_bias key "+1": not an id in canonical decimal (digits, no sign, spaces '
                'or leading zeros: "0", "17")',
                'logit_bias key "01": not an id in canonical decimal (digits, no sign, spaces '
                'or leading zeros: "0", "17")',
                'logit_bias key "-1": not an id in canonical decimal (digits, no sign, spaces '
                'or leading zeros: "0", "17")',
                'logit_bias key "2": outside [0, V) with V = 2',
                "allowed_token_ids[0] = 2: outside [0, V) with V = 2",
                "banned_token_ids[1] = 7: outside [0, V) with V = 2"]
        path = self.write_cases(cases)
        status, out, _ = run("replay", path)
        self.assertEqual(status, 1)
        lines = [json.loads(line) for line in out.splitlines()]
        self.assertEqual([line.get("error") for line in lines], [*want, None])
        self.assertEqual(len(lines[-1]["ids"]), 2)
        py_status, py_lines, _ = spec_sampler(path)
        self.assertEqual(py_status, 0)
        self.assertEqual(["error" in line for line in py_lines], [True] * len(want) + [False])
        self.assertEqual([line["error"] for line in py_lines[:6]], want[:6])
        with open(self.path("py.jsonl"), "w") as f:
            f.writelines(json.dumps(line) + "\n" for line in py_lines)
        status, out, err = run("audit", "--replay", path, "--against", self.path("py.jsonl"))
        self.assertEqual(status, 0, out + err)


if __name__ == "__main__":
    cli_harness.main(sys.modules[__name__])
