"""sample_batch, of rows and of sequences, with output="numpy" (and "torch")
equal the Token path bit for bit (ids, logprobs, processed logprobs, ranks,
top-N ids and logprobs, generator positions) on the reference engine and
the fast engine on every supported target, with biases, masks, top-N and
bad rows among the rows (their status and error per row, the others
sampled). Token.rank equals the definition computed here at ties, exact
and made by rounding."""

import math
import sys

import numpy as np
import pytest

import exactsample as xs

STATUS = {"invalid_parameter": 2, "invalid_logits": 3, "invalid_ids": 4, "degenerate": 5,
          "out_of_memory": 6}


def batch_case(seed, rows=7, vocab=3000):
    """Rows of varied parameters, features and ties, with bad rows 1 (a NaN
    logit), 3 (a parameter out of range) and 5 (every id banned)."""
    r = np.random.default_rng(seed)
    block = np.round(r.normal(0, 2, (rows, vocab)) * 4).astype(np.float32) / 4  # ties
    params = [xs.SamplingParams(temperature=[1.0, 0.7, 0.0, 1.3][i % 4], top_k=[0, 40][i % 2],
                                top_p=[1.0, 0.9, 1.0][i % 3], top_logprobs=[0, 5, 20, 3][i % 4])
              for i in range(rows)]
    bias = [{int(i): float(b) for i, b in zip(r.integers(0, vocab, 6), r.choice([-100.0, 3.5], 6))}
            if i % 3 != 2 else None for i in range(rows)]
    allowed = [sorted({int(i) for i in r.integers(0, vocab, vocab // 2)}) if i % 4 == 1 else None
               for i in range(rows)]
    banned = [[int(i) for i in r.integers(0, vocab, 10)] if i % 3 == 0 else None
              for i in range(rows)]
    bitmask = [None] * rows
    words = r.integers(0, 2**32, (vocab + 31) // 32, dtype=np.uint64).astype(np.uint32)
    bitmask[rows - 2] = words.view(np.int32)  # xgrammar's int32 words
    block[1, 17] = np.nan
    params[3] = xs.SamplingParams(top_k=-1)
    if rows > 5:
        banned[5] = list(range(vocab))
    prompts = [[int(i) for i in r.integers(0, vocab, 5)] for _ in range(rows)]
    constraints = [xs.Constraints(logit_bias=b, allowed_token_ids=a, banned_token_ids=n,
                                  allowed_bitmask=m)
                   for b, a, n, m in zip(bias, allowed, banned, bitmask)]
    return dict(rows=block, params=params, prompts=prompts, constraints=constraints)


def check_arrays(arrays, tokens, top_n, rank=True):
    """Every array entry against the Token (or SampleError) of its row, as bits."""
    rows = len(tokens)
    assert arrays.ids.dtype == np.int32 and arrays.ids.shape == (rows,)
    assert arrays.logprobs.dtype == np.float64 and arrays.processed_logprobs.dtype == np.float64
    assert arrays.top_ids.dtype == np.int32 and arrays.top_ids.shape == (rows, top_n)
    assert arrays.top_logprobs.dtype == np.float64 and arrays.top_logprobs.shape == (rows, top_n)
    assert arrays.status.dtype == np.int8
    if rank:
        assert arrays.ranks.dtype == np.int64 and arrays.ranks.shape == (rows,)
    else:
        assert arrays.ranks is None
    bad = {i for i, t in enumerate(tokens) if isinstance(t, xs.SampleError)}
    assert set(arrays.errors) == bad
    for i, t in enumerate(tokens):
        if i in bad:
            e = arrays.errors[i]
            assert (str(e), e.field, e.code) == (str(t), t.field, t.code)
            assert arrays.status[i] == STATUS[t.code]
            assert arrays.ids[i] == -1 and math.isnan(arrays.logprobs[i])
            assert math.isnan(arrays.processed_logprobs[i])
            assert not rank or arrays.ranks[i] == 0
            want_top = []
        else:
            assert arrays.status[i] == 0
            assert arrays.ids[i] == t.id
            assert float(arrays.logprobs[i]).hex() == t.logprob.hex()
            assert float(arrays.processed_logprobs[i]).hex() == t.processed_logprob.hex()
            if rank:
                assert arrays.ranks[i] == t.rank and t.rank >= 1
            want_top = [(tid, lp.hex()) for tid, lp in t.top_logprobs]
        pad = [(-1, float("-inf").hex())] * (top_n - len(want_top))
        got = [(int(a), float(b).hex()) for a, b in zip(arrays.top_ids[i], arrays.top_logprobs[i])]
        assert got == want_top + pad, f"row {i}"


def states(rngs):
    return [(g.state, g.inc, g.draws_u32) for g in rngs]


@pytest.mark.parametrize("logprob", [True, False])
def test_batch_arrays_equal_tokens(engine, logprob):
    for seed in (1, 2):
        case = batch_case(seed)
        rows = len(case["params"])
        token_rngs = [xs.stream(seed * 100 + i) for i in range(rows)]
        array_rngs = [g.copy() for g in token_rngs]
        kw = dict(engine=engine, logprob=logprob, rank=True, threads=2)
        block, params = case.pop("rows"), case.pop("params")
        tokens = xs.sample_batch(block, params, token_rngs, **case, **kw)
        arrays = xs.sample_batch(block, params, array_rngs, **case, **kw, output="numpy")
        assert sorted(arrays.errors) == [1, 3, 5]
        assert arrays.errors[3].field == "top_k" and arrays.errors[5].code == "degenerate"
        check_arrays(arrays, tokens, top_n=20)
        assert states(array_rngs) == states(token_rngs)
        assert all(math.isnan(v) for v in arrays.logprobs) == (not logprob)


def test_batch_arrays_without_rank_or_top_n():
    block = np.random.default_rng(3).normal(0, 1, (4, 500)).astype(np.float32)
    rngs = [xs.stream(i) for i in range(4)]
    again = [g.copy() for g in rngs]
    tokens = xs.sample_batch(block, None, rngs)
    assert all(t.rank is None for t in tokens)
    arrays = xs.sample_batch(block, None, again, output="numpy")
    check_arrays(arrays, tokens, top_n=0, rank=False)
    assert arrays.errors == {} and repr(arrays) == "BatchArrays(rows=4, errors=0)"


def test_sequence_batch_arrays_equal_tokens(engine):
    case = batch_case(4, rows=5, vocab=2000)
    block = case["rows"]
    block[1, 17] = 0.0  # a good row here; the bad one is the parameter
    per_row = [xs.SamplingParams(temperature=0.8, top_logprobs=4), None,
               xs.SamplingParams(top_k=-1), None, xs.SamplingParams(temperature=0.0)]

    def sequences():
        out = []
        for i in range(5):
            s = xs.Sequence(2000, xs.SamplingParams(top_logprobs=7 if i == 1 else 0), seed=i,
                            constraints=xs.Constraints(
                                banned_token_ids=list(range(2000)) if i == 3 else None))
            s.accept_prompt(case["prompts"][i])
            out.append(s)
        return out

    by_tokens, by_arrays = sequences(), sequences()
    for step in range(3):
        kw = dict(params=per_row, engine=engine, rank=True, threads=2)
        tokens = xs.sample_batch(by_tokens, block, **kw)
        arrays = xs.sample_batch(by_arrays, block, **kw, output="numpy")
        assert sorted(arrays.errors) == [2, 3], step
        check_arrays(arrays, tokens, top_n=7)
        for a, b in zip(by_tokens, by_arrays):
            assert list(a.generated) == list(b.generated)
            assert a.rng == b.rng


def definition_rank(x, token_id):
    """1 + the ids before token_id in (logprob desc, id asc) order, the
    logprob (l - M) - log(Z) with Z summed in ascending id order."""
    l = x.astype(np.float64)
    m = float(l.max())
    z = 0.0
    for v in l.tolist():
        z += math.exp(v - m)
    lp = (l - m) - math.log(z)
    mine = lp[token_id]
    return 1 + int(np.sum(lp > mine)) + int(np.sum(lp[:token_id] == mine))


def rounding_ties():
    """M = 1e-9 and its float neighbour below beside 4998 zeros: log(Z) ~ 8.5
    rounds both to one logprob, so the larger logit (id 7) ranks second."""
    x = np.zeros(5000, dtype=np.float32)
    x[7] = np.float32(1e-9)
    x[3] = np.nextafter(x[7], np.float32(0))
    return x


@pytest.mark.parametrize("row", ["exact", "rounding"])
def test_rank_at_ties(engine, row):
    x = (np.array([1, 3, 2, 3, -np.inf, 2, 3, 0.5], dtype=np.float32) if row == "exact"
         else rounding_ties())
    greedy = xs.sample(x, xs.SamplingParams(temperature=0.0), xs.stream(0), engine=engine,
                       rank=True)
    assert greedy.rank == (1 if row == "exact" else 2)
    ranks = set()
    for params in (xs.SamplingParams(temperature=2.0, top_logprobs=20),
                   xs.SamplingParams(top_k=2, top_logprobs=20)):
        rng = xs.stream(5)
        rngs = [xs.stream(50 + i) for i in range(6)]
        for _ in range(12):
            t = xs.sample(x, params, rng, engine=engine, rank=True)
            assert t.rank == definition_rank(x, t.id)
            if t.rank <= len(t.top_logprobs):
                assert t.top_logprobs[t.rank - 1][0] == t.id
            ranks.add(t.rank)
            block = np.stack([x] * 6)
            arrays = xs.sample_batch(block, params, rngs, engine=engine, rank=True,
                                     output="numpy")
            for i in range(6):
                assert arrays.ranks[i] == definition_rank(x, int(arrays.ids[i]))
    assert {1, 2} <= ranks and len(ranks) > 3


def test_sequence_rank_equals_sample(engine):
    x = rounding_ties()
    seq = xs.Sequence(len(x), xs.SamplingParams(), seed=9)
    rng = xs.stream(9)
    for _ in range(5):
        want = xs.sample(x, None, rng, generated=list(seq.generated), engine=engine, rank=True)
        assert seq.sample(x, engine=engine, rank=True).rank == want.rank
    assert seq.sample(x, engine=engine).rank is None


def test_torch_output_shares_the_arrays():
    torch = pytest.importorskip("torch")
    case = batch_case(6, rows=5)
    block, params = case.pop("rows"), case.pop("params")
    rngs = [xs.stream(i) for i in range(5)]
    again = [g.copy() for g in rngs]
    arrays = xs.sample_batch(torch.from_numpy(block), params, rngs, **case, rank=True,
                             output="numpy")
    tensors = xs.sample_batch(torch.from_numpy(block), params, again, **case, rank=True,
                              output="torch")
    for name in ("ids", "logprobs", "processed_logprobs", "ranks", "top_ids", "top_logprobs",
                 "status"):
        t = getattr(tensors, name)
        assert isinstance(t, torch.Tensor), name
        assert getattr(arrays, name).tobytes() == t.numpy().tobytes(), name
    assert sorted(tensors.errors) == sorted(arrays.errors) == [1, 3]


def test_bad_output_takes_no_draw(monkeypatch):
    block = np.zeros((2, 10), dtype=np.float32)
    rngs = [xs.stream(1), xs.stream(2)]
    with pytest.raises(xs.SampleError) as e:
        xs.sample_batch(block, None, rngs, output="list")
    assert e.value.field == "output" and "output = list" in str(e.value)
    seqs = [xs.Sequence(10, seed=1), xs.Sequence(10, seed=2)]
    with pytest.raises(xs.SampleError):
        xs.sample_batch(seqs, block, output="pandas")
    monkeypatch.setitem(sys.modules, "torch", None)  # import torch now fails
    with pytest.raises(ImportError, match="output='numpy'"):
        xs.sample_batch(block, None, rngs, output="torch")
    with pytest.raises(ImportError, match="output='numpy'"):
        xs.sample_batch(seqs, block, output="torch")
    assert [g.draws_u32 for g in rngs] == [0, 0]
    assert [s.rng.draws_u32 for s in seqs] == [0, 0]
    assert all(len(s.generated) == 0 for s in seqs)
