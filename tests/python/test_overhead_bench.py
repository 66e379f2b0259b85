"""bench/python_overhead.py on small runs: a median pair and a paired
overhead for each of the three APIs, timed against exactsample.testing's
probes (the C++ calls on the module's own copy of the library); bad usage
exits 2 and names the option; the probes refuse bad rows by name."""

import os
import re
import subprocess
import sys

import numpy as np

import exactsample as xs

BENCH = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "bench",
                     "python_overhead.py")
MEDIAN = re.compile(r"^(.+?)\s+median\s+(-?\d+\.\d\d) us")


def run(*args):
    return subprocess.run([sys.executable, BENCH, *args], capture_output=True, text=True,
                          env=os.environ.copy())


def test_every_api_has_both_medians_and_the_paired_overhead():
    out = run("--vocab", "64", "--iters", "20", "--rows", "3", "--threads", "2")
    assert out.returncode == 0, out.stderr
    lines = out.stdout.splitlines()
    assert lines[0].startswith("V = 64, plain, fast engine, 20 paired calls"), lines[0]
    names = [MEDIAN.match(line).group(1).strip() for line in lines[1:]]
    assert names == ["exactsample.sample", "C++ sample()", "overhead (paired)",
                     "Sequence.sample", "C++ Sequence::sample()", "overhead (paired)",
                     "sample_batch 3 rows", "C++ sample_batch()", "overhead (paired)"], names
    medians = [float(MEDIAN.match(line).group(2)) for line in lines[1:]]
    # Every call is timed (the overheads, differences, may be of either sign).
    assert all(m > 0 for i, m in enumerate(medians) if i % 3 != 2), medians


def test_bad_usage_exits_2_and_names_the_option():
    for args, word in ((["--iters", "0"], "--iters 0"), (["--rows", "0"], "--rows 0"),
                       (["--vocab", "0"], "--vocab 0"), (["--threads", "-1"], "--threads -1"),
                       (["--bogus"], "--bogus")):
        out = run(*args)
        assert out.returncode == 2, (args, out.stdout, out.stderr)
        assert word in out.stderr, (args, out.stderr)


def test_probes_sample_rows_and_refuse_a_wrong_block():
    row = np.zeros(8, np.float32)
    assert xs.testing.Probe(1).sample_ns(row) > 0
    assert xs.testing.SequenceProbe(8, 1).sample_ns(row) > 0
    batch = xs.testing.BatchProbe(2, 1)
    assert batch.sample_ns(np.zeros((2, 8), np.float32), 1) > 0
    try:
        batch.sample_ns(np.zeros((3, 8), np.float32), 1)
    except ValueError as e:
        assert "one row per generator" in str(e)
    else:
        raise AssertionError("a block of 3 rows for 2 generators was taken")


def test_probes_name_what_they_refuse_and_sample_after():
    bad = np.zeros(8, np.float32)
    bad[3] = np.nan
    good = np.zeros(8, np.float32)
    probe = xs.testing.Probe(1)
    seq = xs.testing.SequenceProbe(8, 1)
    for call, words in ((lambda: probe.sample_ns(bad), "logits[3] = nan"),
                        (lambda: seq.sample_ns(bad), "logits[3] = nan"),
                        (lambda: seq.sample_ns(np.zeros(9, np.float32)), "V = 9"),
                        (lambda: xs.testing.SequenceProbe(0, 1), "vocab = 0")):
        try:
            call()
        except ValueError as e:
            assert words in str(e), (words, str(e))
        else:
            raise AssertionError(f"{words}: taken")
    assert probe.sample_ns(good) > 0 and seq.sample_ns(good) > 0
