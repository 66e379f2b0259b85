"""Concurrency: Python threads with their own generators, and sample_batch
over helper threads, give the results of a serial run."""

import bisect
import sys
import threading
import time

import numpy as np

import exactsample as xs

V = 50000
STEPS = 20
PARAMS = [
    xs.SamplingParams(),
    xs.SamplingParams(temperature=0.7, top_p=0.9),
    xs.SamplingParams(top_k=40, temperature=0.8),
    xs.SamplingParams(min_p=0.05, repetition_penalty=1.1, frequency_penalty=0.2),
    xs.SamplingParams(temperature=0),
]


def rows(n):
    gen = np.random.default_rng(20)
    return gen.normal(0.0, 1.5, (n, V)).astype(np.float32)


def run(logits, params, seed):
    """STEPS tokens of one request, each appended to the history."""
    rng = xs.stream(seed)
    generated = []
    tokens = []
    for _ in range(STEPS):
        t = xs.sample(logits, params, rng, prompt=[5, 6], generated=generated)
        generated.append(t.id)
        tokens.append((t.id, t.logprob.hex()))
    return tokens, rng


def test_python_threads_equal_serial():
    n = 8
    block = rows(n)
    jobs = [(block[i], PARAMS[i % len(PARAMS)], 100 + i) for i in range(n)]
    serial = [run(*job) for job in jobs]
    results = [None] * n
    start = threading.Barrier(n)

    def worker(i):
        start.wait()
        results[i] = run(*jobs[i])

    threads = [threading.Thread(target=worker, args=(i,)) for i in range(n)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert [r[0] for r in results] == [s[0] for s in serial]
    assert [r[1] for r in results] == [s[1] for s in serial]


def test_batch_equals_serial_for_any_thread_count():
    n = 6
    block = rows(n)
    params = [PARAMS[i % len(PARAMS)] for i in range(n)]
    prompts = [[i, i + 1] for i in range(n)]
    serial_rngs = [xs.stream(i) for i in range(n)]
    want = [xs.sample(block[i], params[i], serial_rngs[i], prompt=prompts[i])
            for i in range(n)]
    for threads in (1, 2, 4):
        rngs = [xs.stream(i) for i in range(n)]
        got = xs.sample_batch(block, params, rngs, prompts=prompts, threads=threads)
        assert got == want, threads
        assert rngs == serial_rngs


def test_batch_from_python_threads():
    n = 4
    block = rows(n)
    want = xs.sample_batch(block, PARAMS[1], [xs.stream(i) for i in range(n)], threads=2)
    results = [None] * 4

    def worker(k):
        results[k] = xs.sample_batch(block, PARAMS[1], [xs.stream(i) for i in range(n)],
                                     threads=2)

    threads = [threading.Thread(target=worker, args=(k,)) for k in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert results == [want] * 4


def test_gil_is_released_while_sampling():
    # With a switch interval far longer than the test, a thread keeps the GIL
    # until it releases it itself: the main thread (which hands the GIL back
    # at every time.sleep(0)) can run inside the worker's calls only if
    # sample() releases it.
    logits = rows(1)[0]
    params = xs.SamplingParams(temperature=0.8, top_p=0.9)
    calls, moments = [], []
    done = threading.Event()

    def worker():
        rng = xs.stream(1)
        for _ in range(20):
            start = time.perf_counter()
            xs.sample(logits, params, rng, engine="reference")
            calls.append((start, time.perf_counter()))
        done.set()

    interval = sys.getswitchinterval()
    sys.setswitchinterval(1000.0)
    try:
        t = threading.Thread(target=worker)
        t.start()
        while not done.is_set():
            moments.append(time.perf_counter())
            time.sleep(0)
        t.join()
    finally:
        sys.setswitchinterval(interval)
    inside = [bisect.bisect_right(moments, start) < bisect.bisect_left(moments, end)
              for start, end in calls]
    assert any(inside)
