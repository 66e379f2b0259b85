"""exactsample.Sequence: every token equals the stateless exactsample.sample
with the full history, bit for bit (id, logprob, processed and top-N
logprobs, generator position), on the reference engine and the fast engine
on every supported target: long histories, accept, penalty windows, clones,
per-call overrides, batches, a snapshot restored in another process. Bad
input raises an error naming the field and the value and leaves the
sequence as it was, with no draw; a sequence in use by another thread is
refused, not raced."""

import copy
import json
import os
import pickle
import subprocess
import sys
import threading
import time

import numpy as np
import pytest

import exactsample as xs
from conftest import constrained, spec_replay
import replay_cases
import spec_sampler


def bits(t):
    """A token as comparable bits, no tolerance."""
    return (t.id, t.logprob.hex(), t.processed_logprob.hex(),
            [(i, lp.hex()) for i, lp in t.top_logprobs])


def state(rng):
    return (rng.state, rng.inc, rng.draws_u32)


def zipf_ids(gen, n, vocab):
    """Ids with the repeats of text: Zipf ranks over a shuffled vocabulary."""
    order = gen.permutation(vocab)
    return order[np.minimum(gen.zipf(1.2, n) - 1, vocab - 1)].astype(np.int32)


def row(gen, vocab):
    x = gen.normal(0.0, 1.5, vocab).astype(np.float32)
    x[gen.integers(0, vocab, 10)] += 9.0
    return x


class Stateless:
    """The same request through exactsample.sample: its own prompt,
    generated ids and generator."""

    def __init__(self, params, seed, **extras):
        self.params, self.rng, self.extras = params, xs.stream(seed), extras
        self.prompt, self.generated = [], []

    def sample(self, logits, engine, params=None, **extras):
        t = xs.sample(logits, params or self.params, self.rng,
                      prompt=np.array(self.prompt, dtype=np.int32),
                      generated=np.array(self.generated, dtype=np.int32), engine=engine,
                      **(extras or self.extras))
        self.generated.append(t.id)
        return t


PARAMS = [
    xs.SamplingParams(temperature=0.8, repetition_penalty=1.3, presence_penalty=0.5,
                      frequency_penalty=0.4, top_k=40, top_p=0.95, top_logprobs=5),
    xs.SamplingParams(repetition_penalty=0.7, presence_penalty=-1.0, frequency_penalty=0.9,
                      min_p=0.05, penalty_last_n=64, top_logprobs=3),
    xs.SamplingParams(repetition_penalty=1.5, frequency_penalty=0.3, penalty_last_n=1),
    xs.SamplingParams(temperature=0.0, repetition_penalty=1.2, presence_penalty=0.8,
                      penalty_last_n=7),
    xs.SamplingParams(temperature=1.3, presence_penalty=2.0, penalty_last_n=5000),
    xs.SamplingParams(top_p=0.9),  # penalties off
]


@pytest.mark.parametrize("which", range(len(PARAMS)))
def test_tokens_equal_stateless_with_the_full_history(engine, which):
    gen = np.random.default_rng(100 + which)
    vocab = 3000
    params = PARAMS[which]
    seq = xs.Sequence(vocab, params, seed=which)
    ref = Stateless(params, which)
    prompt = zipf_ids(gen, 300, vocab)
    for piece in np.array_split(prompt, 4):  # fed in pieces, and one by one
        seq.accept_prompt(piece)
    seq.accept_prompt([int(i) for i in prompt[:3]])
    ref.prompt = list(prompt) + list(prompt[:3])
    for step in range(60):
        logits = row(gen, vocab)
        if step % 7 == 3:  # a token chosen elsewhere
            forced = int(gen.integers(0, vocab))
            seq.accept(forced)
            ref.generated.append(forced)
            continue
        assert bits(seq.sample(logits, engine=engine)) == bits(ref.sample(logits, engine)), step
        assert state(seq.rng) == state(ref.rng)
    assert seq.generated.tolist() == ref.generated
    assert seq.prompt.tolist() == ref.prompt


@pytest.mark.parametrize("window", [0, 1, 1000, 60000, 200000])
def test_long_histories(window):
    gen = np.random.default_rng(7)
    vocab = 128256
    params = xs.SamplingParams(temperature=0.8, repetition_penalty=1.1, presence_penalty=0.5,
                               frequency_penalty=0.5, top_k=40, top_p=0.95, top_logprobs=2,
                               penalty_last_n=window)
    history = zipf_ids(gen, 100000, vocab)
    for engine in ("fast", "reference"):
        seq = xs.Sequence(vocab, params, seed=5)
        ref = Stateless(params, 5)
        seq.accept_prompt(history[:50000])
        for i in history[50000:]:
            seq.accept(int(i))
        ref.prompt, ref.generated = list(history[:50000]), list(history[50000:])
        for _ in range(3):
            logits = row(gen, vocab)
            assert bits(seq.sample(logits, engine=engine)) == bits(ref.sample(logits, engine))
            assert state(seq.rng) == state(ref.rng)


# Mirostat and adaptive-p too: an accept of the drawn id moves their state as
# sample does (the snapshot holds it).
@pytest.mark.parametrize("params", [PARAMS[1], xs.SamplingParams(mirostat=2, mirostat_eta=0.5),
                                    xs.SamplingParams(adaptive_target=0.3)])
def test_sample_only_then_accept_is_sample(params):
    gen = np.random.default_rng(3)
    a, b = xs.Sequence(500, params, seed=9), xs.Sequence(500, params, seed=9)
    for _ in range(30):
        logits = row(gen, 500)
        before = b.generated.tolist()
        t = b.sample_only(logits)
        assert b.generated.tolist() == before  # nothing appended, the generator moved
        assert bits(t) == bits(a.sample(logits))
        assert state(a.rng) == state(b.rng)
        b.accept(t.id)
    assert a.snapshot() == b.snapshot()


MASK_KEYWORDS = ("allowed_token_ids", "banned_token_ids", "allowed_bitmask")


def test_overrides_equal_stateless_with_them(engine):
    gen = np.random.default_rng(11)
    vocab = 2000
    bias = {3: 5.0, "17": -2.0}
    seq = xs.Sequence(vocab, PARAMS[0], seed=4,
                      constraints=xs.Constraints(logit_bias=bias, banned_token_ids=[5, 6]))
    ref = Stateless(PARAMS[0], 4,
                    constraints=xs.Constraints(logit_bias=bias, banned_token_ids=[5, 6]))
    seq.accept_prompt(zipf_ids(gen, 100, vocab))
    ref.prompt = seq.prompt.tolist()
    bitmask = np.full((vocab + 31) // 32, 0xFFFF00FF, dtype=np.uint32)
    calls = [
        {},
        {"params": xs.SamplingParams(repetition_penalty=1.4, penalty_last_n=3)},
        {"params": xs.SamplingParams(frequency_penalty=0.7, penalty_last_n=0)},
        {"logit_bias": {}},  # no bias this call
        {"logit_bias": {9: 30.0}},
        {"allowed_token_ids": list(range(0, vocab, 3))},
        {"allowed_bitmask": bitmask, "banned_token_ids": [8]},
    ]
    for step in range(28):
        call = calls[step % len(calls)]
        logits = row(gen, vocab)
        # The stateless call's constraints: a given logit_bias replaces the
        # sequence's; any mask field replaces its whole mask.
        extras = {"logit_bias": call.get("logit_bias", bias)}
        given = {k: v for k, v in call.items() if k in MASK_KEYWORDS}
        extras.update(given or {"banned_token_ids": [5, 6]})
        want = ref.sample(logits, engine, call.get("params"),
                          constraints=xs.Constraints(**extras))
        got = seq.sample(logits, engine=engine, **constrained(call))
        assert bits(got) == bits(want), (step, call)
        assert state(seq.rng) == state(ref.rng)


def test_16_bit_rows_equal_stateless():
    gen = np.random.default_rng(12)
    vocab = 4000
    seq = xs.Sequence(vocab, PARAMS[1], seed=2)
    ref = Stateless(PARAMS[1], 2)
    for _ in range(10):
        words = (row(gen, vocab).view(np.uint32) >> 16).astype(np.uint16)
        half = row(gen, vocab).astype(np.float16)
        assert bits(seq.sample(words, dtype="bf16")) == bits(
            xs.sample(words, PARAMS[1], ref.rng, generated=ref.generated, dtype="bf16"))
        ref.generated.append(seq.generated[-1].item())
        assert bits(seq.sample(half)) == bits(ref.sample(half, "fast"))


def test_windowed_replay_cases_equal_the_transcription(engine):
    """The replay cases with penalty windows, through a Sequence, against
    tools/spec_sampler.py (ids, logprob bits, errors, draws)."""
    for case in replay_cases.random_cases(80, 21, 2000, windows=True):
        want = spec_replay(case)
        try:
            x, prompt, p, seed, steps = spec_sampler.read_case(case)
        except spec_sampler.BadInput:
            assert "error" in want
            continue
        extras = {"logit_bias": p.pop("logit_bias") or None,
                  "allowed_token_ids": p.pop("allowed_token_ids") or None,
                  "banned_token_ids": p.pop("banned_token_ids") or None}
        logits = np.array(x, dtype=np.float32)
        try:
            seq = xs.Sequence(len(x), xs.SamplingParams(**p), seed=seed,
                              constraints=xs.Constraints(**extras))
            seq.accept_prompt(prompt)
            tokens = [seq.sample(logits, engine=engine) for _ in range(steps)]
        except xs.SampleError:
            assert "error" in want, case["name"]
            continue
        assert "error" not in want, case["name"]
        assert [t.id for t in tokens] == want["ids"], case["name"]
        assert [t.logprob.hex() for t in tokens] == [v.hex() for v in want["logprobs"]]
        assert [t.processed_logprob.hex() for t in tokens] == \
            [v.hex() for v in want["processed_logprobs"]]
        assert seq.rng.draws_u32 == want["draws_u32"], case["name"]
        if "top_logprobs" in want:
            assert [[[i, lp.hex()] for i, lp in t.top_logprobs] for t in tokens] == \
                [[[i, lp.hex()] for i, lp in top] for top in want["top_logprobs"]]


def test_clones_are_independent_and_equal():
    gen = np.random.default_rng(13)
    vocab = 1000
    seq = xs.Sequence(vocab, PARAMS[0], seed=8)
    seq.accept_prompt(zipf_ids(gen, 50, vocab))
    for _ in range(5):
        seq.sample(row(gen, vocab))
    clones = [seq.clone(), copy.copy(seq), copy.deepcopy(seq), pickle.loads(pickle.dumps(seq))]
    for c in clones:
        assert c.snapshot() == seq.snapshot()
    rows = [row(gen, vocab) for _ in range(10)]
    want = [bits(seq.sample(r)) for r in rows]
    for c in clones:
        assert [bits(c.sample(r)) for r in rows] == want
    # A clone that goes its own way leaves the original alone.
    before = seq.snapshot()
    clones[0].accept(1)
    clones[0].sample(rows[0])
    assert seq.snapshot() == before


def test_reset_goes_back_to_the_start():
    gen = np.random.default_rng(14)
    seq = xs.Sequence(700, PARAMS[2], rng=xs.stream(77))
    fresh = seq.snapshot()
    seq.accept_prompt([1, 2, 3])
    for _ in range(4):
        seq.sample(row(gen, 700))
    seq.reset()
    assert seq.snapshot() == fresh
    assert seq.prompt.tolist() == [] and seq.generated.tolist() == []
    assert state(seq.rng) == state(xs.stream(77))
    restored = xs.Sequence.restore(fresh)
    logits = row(gen, 700)
    assert bits(seq.sample(logits)) == bits(restored.sample(logits))


def test_handed_over_generator_and_properties():
    rng = xs.stream(3)
    rng.advance(10)
    seq = xs.Sequence(100, None, rng=rng)
    assert state(seq.rng) == state(rng) and seq.vocab == 100
    assert seq.params == xs.SamplingParams()
    seq.rng = xs.stream(4)
    assert state(seq.rng) == state(xs.stream(4))
    assert "vocab=100" in repr(seq)


CHILD = r"""
import json, sys
import numpy as np
import exactsample as xs
seq = xs.Sequence.restore(open(sys.argv[1], "rb").read())
gen = np.random.default_rng(int(sys.argv[2]))
out = []
for _ in range(8):
    x = gen.normal(0.0, 1.5, seq.vocab).astype(np.float32)
    t = seq.sample(x)
    out.append([t.id, t.logprob.hex(), t.processed_logprob.hex(),
                [[i, lp.hex()] for i, lp in t.top_logprobs]])
print(json.dumps({"tokens": out, "rng": [seq.rng.state, seq.rng.inc, seq.rng.draws_u32],
                  "generated": seq.generated.tolist()}))
"""


def test_snapshot_continues_in_another_process(tmp_path):
    gen = np.random.default_rng(15)
    vocab = 5000
    seq = xs.Sequence(vocab, PARAMS[1], seed=31, constraints=xs.Constraints(
        logit_bias={7: 3.0}, allowed_token_ids=list(range(0, vocab, 2))))
    seq.accept_prompt(zipf_ids(gen, 400, vocab))
    for _ in range(6):  # mid-request
        seq.sample(row(gen, vocab))
    path = tmp_path / "snapshot.bin"
    path.write_bytes(seq.snapshot())
    proc = subprocess.run([sys.executable, "-c", CHILD, str(path), "99"],
                          capture_output=True, text=True, env=os.environ)
    assert proc.returncode == 0, proc.stderr
    child = json.loads(proc.stdout)
    gen = np.random.default_rng(99)
    here = []
    for _ in range(8):
        t = seq.sample(gen.normal(0.0, 1.5, vocab).astype(np.float32))
        here.append([t.id, t.logprob.hex(), t.processed_logprob.hex(),
                     [[i, lp.hex()] for i, lp in t.top_logprobs]])
    assert child["tokens"] == here
    assert child["rng"] == list(state(seq.rng))
    assert child["generated"] == seq.generated.tolist()


def test_batch_equals_each_sequence_alone(engine):
    gen = np.random.default_rng(16)
    vocab = 3000
    seqs = []
    for i, p in enumerate(PARAMS):
        s = xs.Sequence(vocab, p, seed=50 + i)
        s.accept_prompt(zipf_ids(gen, 20 * i, vocab))
        seqs.append(s)
    alone = [s.clone() for s in seqs]
    override = [None, xs.SamplingParams(penalty_last_n=2, repetition_penalty=2.0)] * 3
    for step in range(6):
        block = np.stack([row(gen, vocab) for _ in seqs])
        params = override if step % 2 else None
        got = xs.sample_batch(seqs, block, params=params, threads=3, engine=engine)
        for i, s in enumerate(alone):
            want = s.sample(block[i], params=params[i] if params else None, engine=engine)
            assert bits(got[i]) == bits(want), (step, i)
    for a, b in zip(seqs, alone):
        assert a.snapshot() == b.snapshot()
    # accept=False: sample_only; the history stays.
    block = np.stack([row(gen, vocab) for _ in seqs])
    before = [s.generated.tolist() for s in seqs]
    got = xs.sample_batch(seqs, block, accept=False)
    assert [s.generated.tolist() for s in seqs] == before
    assert [bits(t) for t in got] == [bits(s.sample_only(block[i])) for i, s in enumerate(alone)]


def test_batch_bad_rows_and_usage():
    gen = np.random.default_rng(17)
    good, other = xs.Sequence(300, None, seed=1), xs.Sequence(301, None, seed=2)
    block = np.stack([row(gen, 300), row(gen, 300)])
    before = other.snapshot()
    got = xs.sample_batch([good, other], block)
    assert isinstance(got[0], xs.Token) and isinstance(got[1], xs.SampleError)
    assert "300" in str(got[1]) and "301" in str(got[1])
    assert other.snapshot() == before
    with pytest.raises(xs.SampleError, match=r"sequences\[1\]: the same Sequence"):
        xs.sample_batch([good, good], block)
    with pytest.raises(xs.SampleError, match="rows: 2 rows for 1 sequences"):
        xs.sample_batch([good], block)
    with pytest.raises(TypeError, match=r"sequences\[1\]: Pcg32 is not a Sequence"):
        xs.sample_batch([good, xs.stream(1)], block)
    with pytest.raises(xs.SampleError, match="params: give None"):
        xs.sample_batch([good, other], block, params=[None])


def unchanged(seq, action, field, *values):
    """`action` raises SampleError naming `field` and every value; the
    sequence, its generator included, stays as it was."""
    before = seq.snapshot()
    with pytest.raises(xs.SampleError) as e:
        action()
    assert e.value.field == field, (str(e.value), field)
    for v in values:
        assert str(v) in str(e.value), (str(e.value), v)
    assert seq.snapshot() == before
    return e.value


def test_bad_input_names_the_field_and_changes_nothing():
    gen = np.random.default_rng(18)
    vocab = 400
    seq = xs.Sequence(vocab, PARAMS[1], seed=6)
    seq.accept_prompt([1, 2, 3])
    seq.sample(row(gen, vocab))
    unchanged(seq, lambda: seq.accept(vocab), "id", f"id = {vocab}", f"V = {vocab}")
    unchanged(seq, lambda: seq.accept(-1), "id", -1)
    unchanged(seq, lambda: seq.accept(2 ** 40), "id", 2 ** 40)
    unchanged(seq, lambda: seq.accept(2 ** 70), "id", 2 ** 70)
    unchanged(seq, lambda: seq.accept(1.5), "id", "1.5")
    unchanged(seq, lambda: seq.accept_prompt([0, 5, vocab]), "prompt[2]", vocab)
    unchanged(seq, lambda: seq.accept_prompt(["x"]), "prompt", "'x'")
    unchanged(seq, lambda: seq.sample(row(gen, vocab + 1)), "logits", vocab + 1, vocab)
    unchanged(seq, lambda: seq.sample_only(row(gen, vocab - 1)), "logits", vocab - 1)
    nan = row(gen, vocab)
    nan[4] = np.nan
    unchanged(seq, lambda: seq.sample(nan), "logits", "nan")
    unchanged(seq, lambda: seq.sample(row(gen, vocab), params=xs.SamplingParams(
        penalty_last_n=-1)), "penalty_last_n", -1)
    unchanged(seq, lambda: seq.sample(row(gen, vocab),
                                      constraints=xs.Constraints(logit_bias={vocab: 1.0})),
              "constraints.logit_bias", vocab)
    unchanged(seq, lambda: seq.sample(
        row(gen, vocab), constraints=xs.Constraints(banned_token_ids=list(range(vocab)))), "mask")
    unchanged(seq, lambda: seq.sample(row(gen, vocab), engine="slow"), "engine", "slow")
    with pytest.raises(TypeError, match="params: str is not a SamplingParams"):
        seq.sample(row(gen, vocab), params="hot")


def test_bad_construction():
    for vocab, value in [(0, "0"), (-5, "-5"), (2 ** 31, str(2 ** 31)), (2 ** 80, str(2 ** 80))]:
        with pytest.raises(xs.SampleError) as e:
            xs.Sequence(vocab, None, seed=1)
        assert e.value.field == "vocab" and value in str(e.value)
    with pytest.raises(xs.SampleError, match=r"penalty_last_n = -3") as e:
        xs.Sequence(10, xs.SamplingParams(penalty_last_n=-3), seed=1)
    assert e.value.field == "penalty_last_n"
    with pytest.raises(xs.SampleError) as e:
        xs.Sequence(10, None, seed=1, constraints=xs.Constraints(allowed_token_ids=[10]))
    assert e.value.field == "constraints.allowed_token_ids" and "10" in str(e.value)
    with pytest.raises(TypeError, match="not both or neither"):
        xs.Sequence(10, None)
    with pytest.raises(TypeError, match="not both or neither"):
        xs.Sequence(10, None, seed=1, rng=xs.stream(1))


def test_bad_snapshots_are_refused():
    gen = np.random.default_rng(19)
    seq = xs.Sequence(600, PARAMS[0], seed=12, constraints=xs.Constraints(logit_bias={1: 2.0}))
    seq.accept_prompt(zipf_ids(gen, 40, 600))
    seq.sample(row(gen, 600))
    good = seq.snapshot()
    assert xs.Sequence.restore(bytearray(good)).snapshot() == good
    assert xs.Sequence.restore(memoryview(good)).snapshot() == good
    bad = [b"", good[:1], good[: len(good) // 2], good[:-1], good + b"\0"]
    for i in range(0, len(good), max(1, len(good) // 40)):  # one flipped bit anywhere
        flipped = bytearray(good)
        flipped[i] ^= 0x10
        bad.append(bytes(flipped))
    for b in bad:
        with pytest.raises(xs.SampleError) as e:
            xs.Sequence.restore(b)
        assert e.value.field == "snapshot", (len(b), str(e.value))
    with pytest.raises(xs.SampleError, match="snapshot: str is not bytes"):
        xs.Sequence.restore("snapshot")


def test_use_from_inside_a_call_is_refused():
    """An argument read while a call holds the sequence (a generator of
    ids) cannot use the sequence: RuntimeError, and the call goes on."""
    seq = xs.Sequence(50, None, seed=1)
    seen = []

    def ids():
        for i in (1, 2, 3):
            try:
                seq.accept(9)
            except RuntimeError as e:
                seen.append(str(e))
            yield i

    seq.accept_prompt(ids())
    assert seq.prompt.tolist() == [1, 2, 3] and seq.generated.tolist() == []
    assert len(seen) == 3 and "in use by another thread" in seen[0]
    assert "Sequence.accept" in seen[0]


def test_a_second_thread_is_refused_not_raced():
    """While one thread samples (the GIL released), another's calls on the
    same sequence raise RuntimeError and change nothing; the sequence ends
    with exactly the tokens both threads were told they added."""
    vocab = 1 << 20
    logits = np.random.default_rng(20).normal(0.0, 1.0, vocab).astype(np.float32)
    seq = xs.Sequence(vocab, xs.SamplingParams(top_p=0.9), seed=3)
    sampled, stop = [], threading.Event()

    def sampler():
        while not stop.is_set():
            sampled.append(seq.sample(logits).id)

    worker = threading.Thread(target=sampler)
    worker.start()
    refused = accepted = 0
    deadline = time.monotonic() + 30
    try:
        while refused < 20 and time.monotonic() < deadline:
            try:
                seq.accept(7)
                accepted += 1
            except RuntimeError:
                refused += 1
    finally:
        stop.set()
        worker.join()
    assert refused == 20
    generated = seq.generated.tolist()
    assert len(generated) == len(sampled) + accepted
    assert generated.count(7) - sampled.count(7) == accepted


def test_different_sequences_on_threads_equal_serial():
    gen = np.random.default_rng(21)
    vocab = 20000
    block = np.stack([row(gen, vocab) for _ in range(6)])
    serial = []
    for i in range(6):
        s = xs.Sequence(vocab, PARAMS[i], seed=i)
        serial.append([bits(s.sample(block[j])) for j in range(6)])
    results = [None] * 6

    def worker(i):
        s = xs.Sequence(vocab, PARAMS[i], seed=i)
        results[i] = [bits(s.sample(block[j])) for j in range(6)]

    threads = [threading.Thread(target=worker, args=(i,)) for i in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert results == serial
