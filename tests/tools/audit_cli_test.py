#!/usr/bin/env python3
"""`exactsample audit` run as a user would, with planted differences.

Clean audits exit 0 (the golden fixture, random cases against the Python
transcription, .npy logits with requests or flags); one-ulp and swapped-id
changes to the Python output exit 1 and name the right request, token and
stage; greedy streams count agreements, near-ties and divergences; bad
files and usage exit 2 with a message that names the problem.

    python3 tests/tools/audit_cli_test.py --cli build/exactsample
"""

import json
import math
import os
import struct
import subprocess
import sys
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "support"))
import cli_harness  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
TOOLS = os.path.join(HERE, "..", "..", "tools")
sys.path.insert(0, TOOLS)
import replay_cases  # noqa: E402
import spec_sampler  # noqa: E402

CLI = None  # set by main()
GOLDEN = os.path.join(HERE, "..", "data", "sampler_golden.json")


def audit(*args):
    """(exit status, JSON objects printed, stderr) of `audit --json ARGS`."""
    proc = subprocess.run([CLI, "audit", "--json", *args], capture_output=True, text=True)
    return proc.returncode, [json.loads(l) for l in proc.stdout.splitlines()], proc.stderr


def write_npy(path, rows, dtype="<f4", one_d=False):
    """A version 1.0 .npy file of `rows` (a list of lists), written by hand."""
    v = len(rows[0]) if rows else 0
    shape = f"({v},)" if one_d else f"({len(rows)}, {v})"
    header = f"{{'descr': '{dtype}', 'fortran_order': False, 'shape': {shape}, }}"
    header += " " * ((64 - (10 + len(header) + 1) % 64) % 64) + "\n"
    fmt = {"<f4": "<f", "<f8": "<d", ">f4": ">f", "<f2": "<e", ">f2": ">e"}[dtype]
    data = b"".join(struct.pack(fmt, x) for row in rows for x in row)
    with open(path, "wb") as f:
        f.write(b"\x93NUMPY\x01\x00" + struct.pack("<H", len(header)) +
                header.encode("latin1") + data)


def write_lines(path, objects):
    with open(path, "w", encoding="utf-8") as f:
        f.writelines(json.dumps(o) + "\n" for o in objects)


def python_output(cases_path):
    """tools/spec_sampler.py's result lines for a replay file."""
    proc = subprocess.run([sys.executable, os.path.join(TOOLS, "spec_sampler.py"),
                           "replay", cases_path], capture_output=True, text=True)
    return [json.loads(l) for l in proc.stdout.splitlines()]


class AuditTest(cli_harness.TempDirTest):
    prefix = "audit_"

    def findings(self, objects, kind="mismatch"):
        return [o for o in objects if o["kind"] == kind]

    def summary(self, objects):
        self.assertEqual(objects[-1]["kind"], "summary")
        return objects[-1]

    # ------------------------------------------------------------ clean audits

    def test_golden_fixture_is_clean(self):
        status, out, err = audit("--replay", GOLDEN)
        self.assertEqual(status, 0, err)
        s = self.summary(out)
        self.assertEqual((s["requests"], s["tokens"], s["mismatches"]), (12, 144, 0))
        self.assertEqual(s["result"], "pass")
        self.assertGreater(len(s["targets"]), 0)
        text = subprocess.run([CLI, "audit", "--replay", GOLDEN], capture_output=True,
                              text=True)
        self.assertEqual(text.returncode, 0)
        self.assertIn("result: pass", text.stdout)

    def random_cases(self):
        path = self.path("cases.json")
        replay_cases.write_cases(path, replay_cases.random_cases(120, 31, 1500))
        return path

    def test_python_transcription_agrees(self):
        cases = self.random_cases()
        write_lines(self.path("py.jsonl"), python_output(cases))
        status, out, err = audit("--replay", cases, "--against", self.path("py.jsonl"))
        self.assertEqual(status, 0, err + json.dumps(out[:3]))
        # Bad cases are rejected alike by both sides: reported, not mismatches.
        self.assertGreater(self.summary(out)["rejected"], 0)
        self.assertEqual(len(self.findings(out, "rejected")), self.summary(out)["rejected"])

    def verification_cases(self):
        path = self.path("verifications.json")
        replay_cases.write_cases(path, replay_cases.random_verifications(60, 32, 1500, 2, True))
        return path

    def test_verifications_agree_on_engines_and_with_the_transcription(self):
        cases = self.verification_cases()
        write_lines(self.path("py.jsonl"), python_output(cases))
        status, out, err = audit("--replay", cases, "--against", self.path("py.jsonl"))
        self.assertEqual(status, 0, err + json.dumps(out[:3]))
        s = self.summary(out)
        self.assertEqual(s["requests"], 60)
        self.assertGreater(s["tokens"], 60)
        self.assertEqual(s["rejected"], sum(1 for c in replay_cases.fixed_verifications()
                                            if c["name"].startswith("verify_bad_")))

    def test_verification_counts_and_logprobs_are_named(self):
        cases = self.verification_cases()
        lines = python_output(cases)
        i = next(k for k, l in enumerate(lines) if len(l.get("ids", [])) > 2)
        lines[i]["logprobs"][1] = math.nextafter(lines[i]["logprobs"][1], 0.0)
        k = next(k for k, l in enumerate(lines) if k != i and "accepted" in l)
        lines[k]["rng_draws_consumed"] += 1
        status, out, _ = self.against(cases, lines)
        self.assertEqual(status, 1)
        m = self.findings(out)
        self.assertEqual(sorted((f["request"], f["token"], f["stage"]) for f in m),
                         sorted([(i, 1, "logprob"), (k, len(lines[k]["ids"]), "outcome")]))
        [counts] = [f for f in m if f["request"] == k]
        self.assertIn("rng_draws_consumed " + str(lines[k]["rng_draws_consumed"]),
                      counts["values"][1])

    # ------------------------------------------------------------ planted differences

    def against(self, cases, lines):
        write_lines(self.path("other.jsonl"), lines)
        return audit("--replay", cases, "--against", self.path("other.jsonl"))

    def test_one_ulp_logprob_is_named(self):
        cases = self.random_cases()
        lines = python_output(cases)
        i = next(k for k, l in enumerate(lines) if len(l.get("ids", [])) > 3)
        lines[i]["logprobs"][3] = math.nextafter(lines[i]["logprobs"][3], 0.0)
        status, out, _ = self.against(cases, lines)
        self.assertEqual(status, 1)
        [m] = self.findings(out)
        self.assertEqual((m["request"], m["token"], m["stage"]), (i, 3, "logprob"))
        a, b = (int(v["bits"], 16) for v in m["values"])
        self.assertEqual(abs(a - b), 1)
        self.assertIn("library_trace", m)
        self.assertEqual(self.summary(out)["mismatches"], 1)

    def test_other_id_with_another_logit_is_a_logprob_difference(self):
        cases = self.random_cases()
        lines = python_output(cases)
        with open(cases, encoding="utf-8") as f:
            doc = json.load(f)["cases"]
        i = next(k for k, l in enumerate(lines)
                 if len(l.get("ids", [])) > 2 and len(set(doc[k]["logits"])) > 3)
        v = len(doc[i]["logits"])
        x = [spec_sampler.to_f32(spec_sampler.to_f64(t, "")) for t in doc[i]["logits"]]
        mine = lines[i]["ids"][2]
        other = next(j for j in range(v) if x[j] != x[mine] and x[j] != -math.inf)
        lines[i]["ids"][2] = other
        status, out, _ = self.against(cases, lines)
        self.assertEqual(status, 1)
        [m] = self.findings(out)
        self.assertEqual((m["request"], m["token"], m["stage"], m["at_id"]),
                         (i, 2, "logprob", other))

    def test_swapped_tie_is_a_kept_set_or_the_draw(self):
        # Ids 0 and 2 tie; top_k 2 keeps {0, 1}. Spec example: ids 1 and 3 tie
        # inside K = {1, 3}.
        cases = self.path("ties.json")
        replay_cases.write_cases(cases, [
            {"name": "topk_tie", "logits": [2.0, 5.0, 2.0, 1.0],
             "params": {"top_k": 2, "temperature": 50.0}, "seed": 1, "steps": 40},
            {"name": "spec_example", "logits": [1.0, 3.0, 2.0, 3.0, -1.0],
             "params": {"top_k": 3, "top_p": 0.8}, "seed": 0, "steps": 1},
        ])
        lines = python_output(cases)
        t = lines[0]["ids"].index(0)  # a token where the library picked id 0
        lines[0]["ids"][t] = 2        # same logit, so the same logprob
        lines[1]["ids"][0] = 4 - lines[1]["ids"][0]  # 3 <-> 1
        status, out, _ = self.against(cases, lines)
        self.assertEqual(status, 1)
        m = self.findings(out)
        self.assertEqual([(f["request"], f["token"], f["stage"]) for f in m],
                         [(0, t, "kept_top_k"), (1, 0, "id")])
        self.assertEqual(m[0]["at_id"], 2)
        self.assertEqual(m[0]["values"], [False, True])

    def test_error_or_not_and_line_order(self):
        lines = python_output(GOLDEN)
        lines[4] = {"name": lines[4]["name"], "error": "boom"}
        status, out, _ = self.against(GOLDEN, lines)
        self.assertEqual(status, 1)
        [m] = self.findings(out)
        self.assertEqual((m["request"], m["stage"]), (4, "outcome"))
        self.assertEqual(m["values"][1], "error: boom")
        lines = python_output(GOLDEN)
        status, _, err = self.against(GOLDEN, lines[1:])
        self.assertEqual(status, 2)
        self.assertIn("11 result lines for 12 requests", err)
        status, _, err = self.against(GOLDEN, lines[1:] + lines[:1])
        self.assertEqual(status, 2)
        self.assertIn("input order", err)

    # ------------------------------------------------------------ .npy logits

    def rows(self, count, vocab):
        rng = spec_sampler.stream(77, 3)
        return [[spec_sampler.to_f32(8 * rng.uniform_f64() - 4) for _ in range(vocab)]
                for _ in range(count)]

    def test_npy_with_requests_matches_the_python_transcription(self):
        rows = self.rows(3, 60)
        requests = [
            {"name": "a", "params": {"temperature": 0.8, "top_k": 10}, "prompt": [1, 2],
             "seed": 5, "steps": 6},
            {"name": "b", "params": {"top_p": 0.9, "min_p": 0.05,
                                     "repetition_penalty": 1.3}, "seed": 6, "row": 2},
            {"name": "c", "params": {"temperature": 0}, "prompt": [4], "seed": 7, "steps": 3},
            {"name": "d", "seed": 8, "steps": 2},  # row 3 % 3 = 0
            # A penalty window shorter than prompt + generated.
            {"name": "e", "params": {"penalty_last_n": 3, "repetition_penalty": 1.6,
                                     "presence_penalty": 0.8, "frequency_penalty": 0.6},
             "prompt": [5, 5, 9, 1, 2], "seed": 9, "steps": 10, "row": 1},
        ]
        row_of = [0, 2, 2, 0, 1]
        # f16: the engines read the words, the transcription the f16 values.
        halves = [[struct.unpack("<e", struct.pack("<e", x))[0] for x in row] for row in rows]
        for dtype, values in (("<f4", rows), ("<f8", rows), ("<f2", halves)):
            write_npy(self.path("x.npy"), rows, dtype)
            write_lines(self.path("r.jsonl"), requests)
            cases = [dict({k: v for k, v in r.items() if k != "row"},
                          logits=values[row_of[i]]) for i, r in enumerate(requests)]
            replay_cases.write_cases(self.path("same.json"), cases)
            write_lines(self.path("py.jsonl"), python_output(self.path("same.json")))
            status, out, err = audit("--logits", self.path("x.npy"), "--requests",
                                     self.path("r.jsonl"), "--against", self.path("py.jsonl"))
            self.assertEqual(status, 0, err + json.dumps(out))
            self.assertEqual(self.summary(out)["tokens"], 6 + 12 + 3 + 2 + 10)

    def test_npy_with_flags_and_one_row(self):
        write_npy(self.path("x.npy"), self.rows(4, 30))
        status, out, err = audit("--logits", self.path("x.npy"), "--temperature", "0.7",
                                 "--top-k", "5", "--frequency-penalty", "0.5",
                                 "--penalty-last-n", "2", "--seed", "3", "--steps", "4")
        self.assertEqual(status, 0, err)
        self.assertEqual((self.summary(out)["requests"], self.summary(out)["tokens"]), (4, 16))
        write_npy(self.path("one.npy"), self.rows(1, 30), one_d=True)
        status, out, err = audit("--logits", self.path("one.npy"))
        self.assertEqual(status, 0, err)
        self.assertEqual(self.summary(out)["tokens"], 12)

    def test_bad_npy_and_requests_exit_2_with_the_reason(self):
        for dtype in (">f4", ">f2"):
            write_npy(self.path("big.npy"), self.rows(1, 8), dtype)
            status, _, err = audit("--logits", self.path("big.npy"))
            self.assertEqual(status, 2)
            self.assertIn("big-endian", err)
            self.assertIn(f"a.astype('<{dtype[1:]}')", err)
        write_npy(self.path("x.npy"), self.rows(2, 8))
        with open(self.path("x.npy"), "rb") as f:
            cut = f.read()[:-3]
        with open(self.path("cut.npy"), "wb") as f:
            f.write(cut)
        status, _, err = audit("--logits", self.path("cut.npy"))
        self.assertEqual(status, 2)
        self.assertIn("truncated data", err)
        status, _, err = audit("--logits", self.path("x.npy"), "--penalty-last-n", "-1")
        self.assertEqual(status, 2)
        self.assertIn("bad flag: penalty_last_n = -1", err)
        for line, reason in [({"seed": 1, "top_k": 3}, 'unknown field "top_k"'),
                             ({"seed": 1, "row": 2}, "row: expected an integer in [0, 1], got 2"),
                             ({"steps": 1}, "seed")]:
            write_lines(self.path("r.jsonl"), [{"seed": 1}, line])
            status, _, err = audit("--logits", self.path("x.npy"), "--requests",
                                   self.path("r.jsonl"))
            self.assertEqual(status, 2, line)
            self.assertIn("r.jsonl line 2: ", err)
            self.assertIn(reason, err)

    # ------------------------------------------------------------ greedy streams

    def greedy_file(self, streams):
        """Each stream: (rows, other ids); the .npy files beside the JSONL."""
        lines = []
        for i, (rows, ids) in enumerate(streams):
            write_npy(self.path(f"s{i}.npy"), rows)
            lines.append({"name": f"s{i}", "logits": f"s{i}.npy", "ids": ids})
        write_lines(self.path("streams.jsonl"), lines)
        return self.path("streams.jsonl")

    def test_greedy_streams_count_agreements_ties_and_divergences(self):
        nan = float("nan")
        agreed = ([[0, 4, 3, 0], [5, 1, 1, 0]], [1, 0])
        tie = ([[0, 4, 3, 0], [0, 10, 9.995, 0], [nan, 0, 0, 0]], [1, 2, 0])
        real = ([[0, 10, 9.5, 0], [nan, 0, 0, 0]], [2, 0])
        status, out, err = audit("--greedy-streams", self.greedy_file([agreed, tie, real]))
        self.assertEqual(status, 1, err)
        s = self.summary(out)
        self.assertEqual((s["streams"], s["streams_agreed"], s["near_ties"], s["divergences"]),
                         (3, 1, 1, 1))
        self.assertEqual(s["steps_compared"], 2 + 2 + 1)
        kinds = [(o["kind"], o["request"], o["step"]) for o in out[:-1]]
        self.assertEqual(kinds, [("near_tie", 1, 1), ("divergence", 2, 0)])
        status, out, _ = audit("--greedy-streams", self.greedy_file([agreed, tie]))
        self.assertEqual(status, 0)
        status, out, _ = audit("--greedy-streams", self.greedy_file([agreed, tie]),
                               "--tie-tolerance", "1e-4")
        self.assertEqual(status, 1)
        self.assertEqual(self.summary(out)["divergences"], 1)

    def test_greedy_stream_bad_line_exits_2(self):
        path = self.greedy_file([([[0, 1]], [1])])
        with open(path, "a") as f:
            f.write(json.dumps({"logits": "s0.npy", "ids": [1],
                                "params": {"temperature": 0.5}}) + "\n")
        status, _, err = audit("--greedy-streams", path)
        self.assertEqual(status, 2)
        self.assertIn("line 2", err)
        self.assertIn("greedy stream needs 0", err)

    # ------------------------------------------------------------ usage

    def test_usage_errors_exit_2(self):
        write_npy(self.path("x.npy"), self.rows(1, 4))
        for args in [[], ["--replay", GOLDEN, "--logits", self.path("x.npy")],
                     ["--replay", GOLDEN, "--temperature", "0.5"],
                     ["--replay", GOLDEN, "--tie-tolerance", "0.1"],
                     ["--requests", "r.jsonl"],
                     ["--greedy-streams", "s.jsonl", "--against", "a.jsonl"],
                     ["--replay", "/nonexistent.json"]]:
            status, _, _ = audit(*args)
            self.assertEqual(status, 2, args)


if __name__ == "__main__":
    cli_harness.main(sys.modules[__name__])
