#!/usr/bin/env python3
"""tools/spec_chain.py and tools/spec_steps.py against docs/llama-samplers.md.

- Worked examples: each llama.cpp sampler on a small row whose result is
  derived by hand in the comments (figures to 5 digits, kept sets exactly),
  among them the vectors of llama.cpp's own sampler test (test-sampling.cpp).
- The spec's chain: random replay cases give the same ids, logprob bits,
  errors and draws with the chain left out, as "spec" and as the spec's
  five steps listed, and the same as `exactsample replay` (--cli).
- Every order: all 120 orders of five steps and random orders of all nine
  run, keep a non-empty K, and take the page's number of draws.
- Every refusal of the page's table, with its message.

    python3 tests/parity/chain_python_test.py --cli build/exactsample [--cases N]
"""

import argparse
import itertools
import json
import math
import os
import random
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "tools"))
import replay_cases  # noqa: E402
import spec_chain as ch  # noqa: E402
import spec_sampler as s  # noqa: E402
import spec_steps as st  # noqa: E402

failures = []
L2 = math.log(2.0)


def check(what, got, want):
    """got equals want; floats (also in lists) compared to 5 significant digits."""
    def five(v):
        return float(f"{v:.5g}") if isinstance(v, float) else v
    rounded = [five(v) for v in got] if isinstance(got, list) else five(got)
    if rounded != want:
        failures.append(f"{what}: got {rounded} ({got}), want {want}")


def params(**kw):
    return dict(s.DEFAULTS, **kw)


def first_u(seed):
    return s.stream(seed, s.SAMPLE).uniform_f64()  # seed 0: 0.80209 (sampling.md)


def worked_examples():
    # top-n-sigma. l = 1, 3, 1, 3: mean 2, every deviation 1, sigma 1.
    # n = 1: keep l >= 3 - 1 = 2: {1, 3}; n = 2: keep l >= 1: all (the
    # boundary stays). l = 0, 1, 2, 3: mean 1.5, sigma = sqrt(1.25) = 1.1180,
    # n = 1: keep l >= 1.8820: {2, 3}.
    check("top_n_sigma n=1", st.top_n_sigma([1.0, 3.0, 1.0, 3.0], [0, 1, 2, 3], 1.0), [1, 3])
    check("top_n_sigma n=2", st.top_n_sigma([1.0, 3.0, 1.0, 3.0], [0, 1, 2, 3], 2.0),
          [0, 1, 2, 3])
    check("top_n_sigma 0..3", st.top_n_sigma([0.0, 1.0, 2.0, 3.0], [0, 1, 2, 3], 1.0), [2, 3])

    # typical, llama.cpp's vectors. q = .4 .2 .2 .2: H = 1.3322; |-ln q - H|
    # is 0.41589 for .4 and 0.27706 for .2, so the .2s come first (by id):
    # s = .2, .4, .6 > .5 keeps {1, 2, 3}. q = .97 .01 .01 .01: H = 0.16770,
    # the .97 is the most typical (0.13724 against 4.4375): s = .97 > .5.
    l = [math.log(v) for v in (0.4, 0.2, 0.2, 0.2)]
    check("typical .4 .2 .2 .2", st.typical(l, [0, 1, 2, 3], 0.5, 0), [1, 2, 3])
    q, lp = st.log_probs(l, [0, 1, 2, 3])
    check("typical H", st.entropy(q, lp, [0, 1, 2, 3]), 1.3322)
    l = [math.log(v) for v in (0.97, 0.01, 0.01, 0.01)]
    check("typical .97", st.typical(l, [0, 1, 2, 3], 0.5, 0), [0])
    check("typical min_keep 2", st.typical(l, [0, 1, 2, 3], 0.5, 2), [0, 1])
    # Four equal logits: q = .25 exactly, equal scores (ids in order), and
    # the sum reaches .5 exactly at the second id: typical wants s > p and
    # keeps three; top_p's s >= p keeps two.
    check("typical s = p", st.typical([0.0] * 4, [0, 1, 2, 3], 0.5, 0), [0, 1, 2])
    check("top_p s = p", st.top_p([0.0] * 4, [0, 1, 2, 3], 0.5, 0), [0, 1])

    # XTC, llama.cpp's vectors: q = .4 .3 .2 .1; threshold .09 removes all
    # but the .1, .19 all but .2 and .1, .29 keeps .3 .2 .1, .39 has one id
    # above and keeps all. It fires when u < P.
    l = [math.log(v) for v in (0.4, 0.3, 0.2, 0.1)]
    K = [0, 1, 2, 3]
    for t, want in ((0.09, [3]), (0.19, [2, 3]), (0.29, [1, 2, 3]), (0.39, K)):
        check(f"xtc t={t}", st.xtc(l, K, 0.5, 0.99, t, 0), want)
    check("xtc min_keep 2", st.xtc(l, K, 0.5, 0.99, 0.09, 2), K)
    check("xtc u = P does not fire", st.xtc(l, K, 0.5, 0.5, 0.09, 0), K)

    # DRY. History 0 1 2 0 1 (llama.cpp's vector): the suffix 0 1 also ends
    # at position 1, so id 2 (after it) has length 2; a = 2 gives the
    # penalty 1 * 1.1^0 = 1. With breaker [3] and history 0 1 3 4 0 1, id 3
    # has length 2 but is a one-id breaker: no penalty. a = 4 over
    # 0 1 2 3 4 0 1: no length reaches 4.
    check("dry lengths", st.dry_lengths([0, 1, 2, 0, 1], [], 2), {2: 2})
    l = [0.0] * 5
    st.dry(l, [0, 1, 2, 3, 4], [0, 1, 2, 0, 1], 1.0, 1.1, 2, 5, [])
    check("dry penalty", l, [0.0, 0.0, -1.0, 0.0, 0.0])
    l = [0.0] * 5
    st.dry(l, [0, 1, 2, 3, 4], [0, 1, 3, 4, 0, 1], 1.0, 1.1, 2, 6, [[3]])
    check("dry one-id breaker", l, [0.0] * 5)
    check("dry a = 4", st.dry_lengths([0, 1, 2, 3, 4, 0, 1], [], 4), {})
    # Restart limit: 0 1 2 9 0 1 with breaker [9] leaves R = 2 tokens after
    # it, so L = min(2, 2) = 2; with [9, 0] the occurrence ends at position
    # 4, R = 1 < 2: nothing.
    check("dry R = 2", st.dry_lengths([0, 1, 2, 9, 0, 1], [[9]], 2), {2: 2})
    check("dry R = 1", st.dry_lengths([0, 1, 2, 9, 0, 1], [[9, 0]], 2), {})
    check("dry restart limit", st.dry_restart_limit([0, 1, 2, 9, 0, 1], [[9, 0]]), 1)
    # 5 6 7 5 6 7 5 6: the suffix ends again at 4 for 5 tokens (6 5 7 6 5
    # backwards), so id 7 has length 5; a = 2, b = 2: 2^3 = 8. The window of
    # the last 4, 6 7 5 6, has the suffix 6 again at 0 only: id 7, length 1,
    # which a = 1 penalises by 2^0 = 1.
    w = [5, 6, 7, 5, 6, 7, 5, 6]
    check("dry long repeat", st.dry_lengths(w, [], 2), {7: 5})
    l = [0.0] * 8
    st.dry(l, list(range(8)), w, 1.0, 2.0, 1, 4, [])
    check("dry window of 4", l, [0.0] * 7 + [-1.0])
    l = [0.0] * 8
    st.dry(l, list(range(8)), w, 1.0, 2.0, 2, 8, [])
    check("dry 2^3", l[7], -8.0)
    # The cap: b = 1e10, E = trunc(88.72284 / 23.026) = 3, so x = 5 - 0 = 5
    # becomes 3: 1e30.
    l = [0.0] * 8
    st.dry(l, list(range(8)), w, 1.0, 1e10, 0, 8, [])
    check("dry cap", l[7], -1e30)

    # Dynamic temperature. Two equal logits: H = H_max = ln 2, eta = 1, so
    # T' = T + delta. l = 0, -1000: q = 1, 0, H = 0, T' = max(0, T - delta).
    check("dynatemp eta 1", st.dynamic_temperature([0.0, 0.0], [0, 1], 0.5, 0.25, 1.0), 0.75)
    check("dynatemp eta 0", st.dynamic_temperature([0.0, -1000.0], [0, 1], 0.5, 0.25, 1.0), 0.25)
    check("dynatemp |K| = 1", st.dynamic_temperature([0.0, -1000.0], [0], 0.5, 0.25, 1.0), None)
    # ... and T' = 0 is greedy: the largest l, no draw.
    rng = s.stream(0, s.SAMPLE)
    tok = s.sample([0.0, -1000.0], [], [], params(temperature=0.5, dynatemp_range=1.0), rng)
    check("dynatemp greedy id, processed", [tok[0], tok[2]], [0, 0.0])
    if rng.uniform_f64() != first_u(0):
        failures.append("dynatemp greedy: took a draw")

    # Mirostat v1, V = 4, m = 2 (one term, t = ln 2). b = ln 2: s = 1, eps = 0,
    # y = 2^mu / ln 4 = 4 / 1.3863 = 2.8854 for mu = 2: k = 2. b = 2 ln 2:
    # s = 2, eps = 1, mu = 3: y = 8 / (1 - 1/4) = 10.667, k = 10.667^(1/2) =
    # 3.266: 3.
    check("mirostat k eps 0", st.mirostat_k([0.0, -L2, -5.0, -6.0], [0, 1, 2, 3], 2.0, 2, 4), 2)
    check("mirostat k eps 1",
          st.mirostat_k([0.0, -(2 * L2), -5.0, -6.0], [0, 1, 2, 3], 3.0, 2, 4), 3)
    check("mirostat k |K| = 1", st.mirostat_k([0.0], [0], 3.0, 2, 4), 1)
    # The first case sampled (tau = 1, mu = 2): K = {0, 1}, q = 2/3, 1/3;
    # seed 0's u = 0.80209 > 2/3 picks id 1, surprise log2(3) = 1.5850:
    # mu = 2 - 0.1 (1.5850 - 1) = 1.9415.
    state = ch.State()
    p1 = params(mirostat=1, mirostat_tau=1.0, mirostat_m=2)
    tok = s.sample([0.0, -L2, -5.0, -6.0], [], [], p1, s.stream(0, s.SAMPLE), state)
    check("mirostat v1 token", tok[0], 1)
    check("mirostat v1 mu", state.mu, 1.9415)

    # Mirostat v2: l = ln 2, 0, 0: q = .5 .25 .25, surprises 1, 2, 2.
    l = [L2, 0.0, 0.0]
    check("mirostat v2 mu 1.5", st.mirostat_v2(l, [0, 1, 2], 1.5), [0])
    check("mirostat v2 mu 2.5", st.mirostat_v2(l, [0, 1, 2], 2.5), [0, 1, 2])
    check("mirostat v2 none below", st.mirostat_v2(l, [0, 1, 2], 0.5), [0])
    # tau 1.25: mu = 2.5 keeps all; u = 0.80209 passes .5 and .75: id 2,
    # surprise 2: mu = 2.5 - 0.1 (2 - 1.25) = 2.425.
    state = ch.State()
    tok = s.sample(l, [], [], params(mirostat=2, mirostat_tau=1.25), s.stream(0, s.SAMPLE), state)
    check("mirostat v2 token, mu", [tok[0], state.mu], [2, 2.425])

    # Adaptive-p: q = .75 .25 (l = ln 3, 0), target .25, decay .5: W = .5,
    # T_w = 2, alpha = .5 - .25 = .25. d = .5 / .3 = 1.6667 for id 0:
    # l = 5 - 10 (2.7778) / 2.6667 = -5.4167; d = 0 for id 1: l = 5. u =
    # 0.80209 picks id 1 (q = 0.99997); W = .25 + .5 (.5) = .5, T_w = 2.
    t, q = st.adaptive_logits([math.log(3.0), 0.0], [0, 1], 0.25)
    check("adaptive logits", t, [-5.4167, 5.0])
    state = ch.State()
    pa = params(adaptive_target=0.25, adaptive_decay=0.5)
    tok = s.sample([math.log(3.0), 0.0], [], [], pa, s.stream(0, s.SAMPLE), state)
    check("adaptive token, average", [tok[0], list(state.average)], [1, [0.5, 2.0]])

    # min_keep in top_p and min_p: q = .4 .3 .2 .1, top_p .3 keeps {0};
    # min_keep 3 keeps {0, 1, 2}; min_p .9 keeps {0}, with min_keep 2 {0, 1}.
    l = [math.log(v) for v in (0.4, 0.3, 0.2, 0.1)]
    check("top_p", st.top_p(l, K, 0.3, 0), [0])
    check("top_p min_keep", st.top_p(l, K, 0.3, 3), [0, 1, 2])
    check("min_p min_keep", [st.min_p(l, K, 0.9, 0), st.min_p(l, K, 0.9, 2)], [[0], [0, 1]])


def token_bits(line):
    return (line.get("error") is not None, line.get("ids"),
            [float(v).hex() for v in line.get("logprobs", [])],
            [float(v).hex() for v in line.get("processed_logprobs", [])])


def spec_chain_is_today(cli, count):
    """The chain left out, "spec" and the five steps listed agree, and agree
    with the program (which has no chain field: the cases as they are)."""
    cases = replay_cases.random_cases(count, seed=39, vocab_max=300, features=True)
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "cases.json")
        replay_cases.write_cases(path, cases)
        proc = subprocess.run([cli, "replay", path], capture_output=True, text=True)
    if proc.returncode not in (0, 1):
        failures.append(f"{cli} replay exited {proc.returncode}: {proc.stderr[-400:]}")
        return
    lines = [json.loads(a) for a in proc.stdout.splitlines()]
    if len(lines) != len(cases):
        failures.append(f"{cli} replay: {len(lines)} lines for {len(cases)} cases")
    listed = ["penalties", "temperature", "top_k", "top_p", "min_p"]
    for case, cpp in zip(cases, lines):
        want = token_bits(cpp)
        for chain in (None, "spec", listed):
            c = json.loads(json.dumps(case))
            if chain is not None and isinstance(c.get("params"), dict):
                c["params"]["chain"] = chain
            got = token_bits(s.replay_case(c))
            if got != want:
                failures.append(f"{case.get('name')} chain {chain}: {got} against the "
                                f"program's {want}")
                return


def random_on_params(rng, V):
    """Every step on (T > 0), each value in its range."""
    return params(repetition_penalty=rng.choice([1.0, 1.3]), frequency_penalty=0.2,
                  top_k=rng.randint(1, V), top_p=rng.uniform(0.3, 0.99),
                  min_p=rng.uniform(0.0, 0.3), temperature=rng.uniform(0.3, 2.0),
                  min_keep=rng.randint(0, 3), top_n_sigma=rng.uniform(0.5, 3.0),
                  typical_p=rng.uniform(0.2, 0.99), xtc_probability=rng.uniform(0.1, 1.0),
                  xtc_threshold=rng.uniform(0.0, 0.5), dry_multiplier=rng.uniform(0.1, 2.0),
                  dry_base=rng.uniform(1.0, 3.0), dry_allowed_length=rng.randint(0, 3),
                  dry_penalty_last_n=rng.randint(1, 12),
                  dry_sequence_breakers=[[rng.randrange(V)]],
                  dynatemp_range=rng.choice([0.0, 0.5]))


def run_order(name, x, history, p, seed):
    """One token; checks the draws the page counts."""
    rng = s.stream(seed, s.SAMPLE)
    tok = s.sample(x, [], history, p, rng)
    chain = ch.steps_of(ch.with_defaults(p))
    greedy = p["temperature"] == 0 and p.get("dynatemp_range", 0) == 0
    xtc_on = ch.is_on("xtc", ch.with_defaults(p))
    reached = not greedy or chain.index("xtc") < chain.index("temperature")
    want = (1 if xtc_on and reached else 0) + (0 if greedy else 1)
    ref = s.stream(seed, s.SAMPLE)
    for _ in range(want):
        ref.uniform_f64()
    if (rng.state, rng.inc) != (ref.state, ref.inc):
        failures.append(f"{name}: chain {chain} took other than {want} draws")
    if not 0 <= tok[0] < len(x):
        failures.append(f"{name}: token {tok[0]} outside the row")


def every_order(count):
    rng = random.Random(390)
    five = ["dry", "top_k", "typical", "xtc", "temperature"]
    for n, order in enumerate(itertools.permutations(five)):
        V = rng.randint(2, 12)
        x = [float(rng.randint(-8, 8)) / 2 for _ in range(V)]
        history = [rng.randrange(V) for _ in range(rng.randint(0, 10))]
        p = params(chain=list(order), top_k=rng.randint(1, V), typical_p=0.7,
                   xtc_probability=0.6, xtc_threshold=0.1, dry_multiplier=1.0,
                   temperature=rng.choice([0.0, 0.7]))
        run_order(f"five #{n}", x, history, p, n)
    for n in range(count):
        V = rng.randint(2, 40)
        x = [s.to_f32(rng.gauss(0.0, 3.0)) for _ in range(V)]
        history = [rng.randrange(V) for _ in range(rng.randint(0, 20))]
        p = random_on_params(rng, V)
        order = list(ch.STEPS)
        rng.shuffle(order)
        p["chain"] = order
        if rng.random() < 0.2:
            p["temperature"], p["dynatemp_range"] = 0.0, 0.0
        run_order(f"nine #{n}", x, history, p, n)
        for mode in ({"mirostat": 1, "mirostat_m": rng.randint(2, 50)}, {"mirostat": 2}):
            q = params(chain=order, temperature=p["temperature"] or 1.0,
                       repetition_penalty=p["repetition_penalty"], **mode)
            run_order(f"nine #{n} mirostat", x, history, q, n)
        run_order(f"nine #{n} adaptive", x, history,
                  dict(p, adaptive_target=rng.uniform(0.0, 1.0)), n)


# (params, the message) for each row of the page's table.
REFUSED = [
    ({"min_keep": -1}, "min_keep = -1: must be >= 0"),
    ({"top_n_sigma": -1.0}, "top_n_sigma = -1.0: must be finite and >= 0 (0: off)"),
    ({"typical_p": math.nan}, "typical_p = nan: must be >= 0 (1 or more: off)"),
    ({"xtc_probability": 1.5}, "xtc_probability = 1.5: must be in [0, 1]"),
    ({"xtc_threshold": -0.1}, "xtc_threshold = -0.1: must be in [0, 1] (above 0.5: off)"),
    ({"dry_multiplier": -1.0}, "dry_multiplier = -1.0: must be finite and >= 0 (0: off)"),
    ({"dry_base": 0.5}, "dry_base = 0.5: must be finite and >= 1"),
    ({"dry_allowed_length": -1}, "dry_allowed_length = -1: must be >= 0"),
    ({"dry_penalty_last_n": -1}, "dry_penalty_last_n = -1: must be >= 0 (0: off)"),
    ({"dry_sequence_breakers": [[]]}, "dry_sequence_breakers[0]: empty"),
    ({"dry_sequence_breakers": [[1], [0] * 22]}, "dry_sequence_breakers[1]: 22 ids, at most 21"),
    ({"dry_sequence_breakers": [[1], [2], [9]]},
     "dry_sequence_breakers[2][0] = 9: outside [0, 4)"),
    ({"dynatemp_range": -0.5}, "dynatemp_range = -0.5: must be finite and >= 0 (0: off)"),
    ({"dynatemp_exponent": -1.0}, "dynatemp_exponent = -1.0: must be finite and >= 0"),
    ({"mirostat": 3}, "mirostat = 3: must be 0, 1 or 2"),
    ({"mirostat_tau": -1.0}, "mirostat_tau = -1.0: must be finite and >= 0"),
    ({"mirostat_eta": math.inf}, "mirostat_eta = inf: must be finite and >= 0"),
    ({"mirostat_m": 1}, "mirostat_m = 1: must be >= 2"),
    ({"adaptive_target": 2.0}, "adaptive_target = 2.0: must be <= 1 (below 0: off)"),
    ({"adaptive_decay": 1.0}, "adaptive_decay = 1.0: must be in [0, 0.99]"),
    ({"chain": "fast"}, "chain = 'fast': not a preset (spec, llama) or a list of step names"),
    ({"chain": ["top_k", "penalties", "topk"]},
     "chain[2] = 'topk': not a step (penalties, dry, top_n_sigma, top_k, typical, top_p, "
     "min_p, xtc, temperature)"),
    ({"chain": ["llama"]}, "chain[0] = 'llama': not a step (penalties, dry, top_n_sigma, "
     "top_k, typical, top_p, min_p, xtc, temperature)"),
    ({"chain": ["top_k", "temperature", "top_k"]}, "chain[2] = 'top_k': listed twice"),
    ({"chain": ["top_k", "temperature"], "top_p": 0.9},
     "chain: top_p = 0.9 is on but the chain has no top_p step"),
    ({"chain": ["top_k"], "temperature": 0.5},
     "chain: temperature = 0.5 is on but the chain has no temperature step"),
    ({"mirostat": 2, "top_k": 40},
     "top_k = 40: mirostat = 2 replaces the filters; set top_k = 0"),
    ({"mirostat": 1, "dynatemp_range": 0.5},
     "dynatemp_range = 0.5: mirostat = 1 replaces the filters; set dynatemp_range = 0"),
    ({"mirostat": 1, "adaptive_target": 0.5},
     "adaptive_target = 0.5: mirostat = 1 replaces the terminal; set adaptive_target = -1"),
    # Id 1 alone is left; it follows 1 2 3 1 2 3 (length 6): 1e308 * 10^4 = inf.
    ({"dry_multiplier": 1e308, "dry_base": 10.0, "banned_token_ids": [0, 2, 3]},
     "dry_multiplier = 1e+308: DRY makes every logit -inf"),
]


def refusals():
    x = [0.0, 0.0, 0.0, 0.0]
    for given, message in REFUSED:
        rng = s.stream(5, s.SAMPLE)
        try:
            s.sample(x, [1, 2, 3], [1, 2, 3, 1, 2, 3], params(**given), rng)
            failures.append(f"{given}: sampled, want {message!r}")
        except s.BadInput as e:
            if str(e) != message:
                failures.append(f"{given}: {str(e)!r}, want {message!r}")
        if (rng.state, rng.inc) != (s.stream(5, s.SAMPLE).state, s.stream(5, s.SAMPLE).inc):
            failures.append(f"{given}: the generator moved")
    for given, message in (
            ({"xtc_probability": 0.5}, "xtc_probability = 0.5: verification needs a fixed "
             "distribution; XTC draws"),
            ({"mirostat": 2}, "mirostat = 2: verification needs a fixed distribution; "
             "mirostat draws"),
            ({"adaptive_target": 0.5}, "adaptive_target = 0.5: verification needs a fixed "
             "distribution; adaptive-p draws")):
        for what, call in (("dist", lambda p: s.dist(x, [], [], p)),
                           ("verify", lambda p: s.verify([x, x], [x], [0], p, None, [], [],
                                                         s.stream(5, s.SAMPLE)))):
            try:
                call(params(**given))
                failures.append(f"{what} {given}: no error")
            except s.BadInput as e:
                if str(e) != message:
                    failures.append(f"{what} {given}: {str(e)!r}, want {message!r}")


def refused_cases(params_list, prompt):
    return [{"name": str(i), "logits": [0.0, 0.0, 0.0, 0.0], "prompt": prompt, "seed": 5,
             "steps": 1, "params": given} for i, given in enumerate(params_list)]


def replay_refused(cli, cases):
    """The program's replay lines of `cases`, each expected refused, for each
    engine: [(engine, lines)], a failure recorded for an engine whose run
    does not refuse them all."""
    out = []
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "refused.json")
        replay_cases.write_cases(path, cases)
        for engine in ("reference", "fast"):
            proc = subprocess.run([cli, "replay", path, "--engine", engine],
                                  capture_output=True, text=True)
            lines = [json.loads(a) for a in proc.stdout.splitlines()]
            if proc.returncode != 1 or len(lines) != len(cases):
                failures.append(f"{engine}: replay exited {proc.returncode} with {len(lines)} "
                                f"lines for {len(cases)} refused cases")
                continue
            out.append((engine, lines))
    return out


def program_refusals(cli):
    """The program refuses each row of the page's table with the same
    message, on both engines (rows whose values JSON cannot hold, NaN and
    inf, are the transcription's alone)."""
    rows = [(given, message) for given, message in REFUSED
            if all(not (isinstance(v, float) and not math.isfinite(v)) for v in given.values())]
    cases = refused_cases([given for given, _ in rows], [1, 2, 3] * 3)
    for engine, lines in replay_refused(cli, cases):
        for (given, message), line in zip(rows, lines):
            if line.get("error") != message:
                failures.append(f"{engine} {given}: {line.get('error')!r}, want {message!r}")


# Several faults in one request: the first in the page's order is reported
# (docs/llama-samplers.md, Bad input: the spec's fields, then the table's
# rows in order, the chain after the other fields and before the
# mirostat rows), the chain's unknown names included.
SEVERAL_FAULTS = [
    ({"min_keep": -1, "chain": ["topk"]}, "min_keep = -1: must be >= 0"),
    ({"temperature": -1.0, "chain": ["top_k", "topk"]}, None),  # the spec's field first
    ({"mirostat": 9, "chain": ["penalties", "nope"]}, "mirostat = 9: must be 0, 1 or 2"),
    ({"adaptive_decay": 1.0, "chain": "fast"}, "adaptive_decay = 1.0: must be in [0, 0.99]"),
    ({"chain": ["top_k", "topk"], "mirostat": 2, "top_k": 5}, "chain[1] = 'topk': not a step "
     "(penalties, dry, top_n_sigma, top_k, typical, top_p, min_p, xtc, temperature)"),
    ({"chain": ["top_k", "top_k", "topk"]}, "chain[1] = 'top_k': listed twice"),
    ({"chain": "fast", "dry_sequence_breakers": [[]]}, "dry_sequence_breakers[0]: empty"),
    ({"chain": "fast", "mirostat": 2, "top_k": 5}, "chain = 'fast': not a preset (spec, llama) "
     "or a list of step names"),
]


def program_fault_order(cli):
    """The program and the transcription report the same fault of several,
    the page's first; the cases whose first fault is not the chain's would
    show a reader that refuses an unknown name at once."""
    cases = refused_cases([given for given, _ in SEVERAL_FAULTS], [1, 2, 3])
    wants = []
    for case, (given, message) in zip(cases, SEVERAL_FAULTS):
        want = s.replay_case(case).get("error")
        if message is not None and want != message:
            failures.append(f"transcription {given}: {want!r}, want {message!r}")
        wants.append(want)
    if not any(w is not None and not w.startswith("chain") for w in wants):
        failures.append("no case whose first fault comes before the chain's")
    for engine, lines in replay_refused(cli, cases):
        for (given, message), want, line in zip(SEVERAL_FAULTS, wants, lines):
            got = line.get("error")
            # A spec field's value is written as the library writes it
            # ("-1"), Python's repr aside ("-1.0"): the field must agree.
            same = (got == want if message is not None
                    else (got or "").split(" = ")[0] == (want or "").split(" = ")[0])
            if not same:
                failures.append(f"{engine} {given}: {got!r}, want {want!r}")


def replay_carries_state():
    """A case's second token sees the first one's mu (and the reader takes
    the new fields)."""
    case = {"name": "m", "logits": [1.0, 0.5, 0.0, -1.0], "seed": 3, "steps": 3,
            "params": {"mirostat": 2, "mirostat_tau": 1.0, "chain": "llama",
                       "dry_sequence_breakers": [[1, 2]], "min_keep": 1}}
    line = s.replay_case(case)
    x, prompt, p, seed, steps = s.read_case(case)
    rng, state, ids = s.stream(seed, s.SAMPLE), ch.State(), []
    for _ in range(steps):
        ids.append(s.sample(x, prompt, ids, p, rng, state)[0])
    fresh = [s.sample(x, prompt, [], p, s.stream(seed, s.SAMPLE))[0]]
    check("replay with state", line.get("ids"), ids)
    check("first token as a stateless call", ids[:1], fresh)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--cli", required=True, help="the exactsample program")
    ap.add_argument("--cases", type=int, default=300)
    args = ap.parse_args()
    worked_examples()
    spec_chain_is_today(args.cli, args.cases)
    every_order(args.cases)
    refusals()
    program_refusals(args.cli)
    program_fault_order(args.cli)
    replay_carries_state()
    for f in failures:
        print(f)
    print(f"{'FAIL' if failures else 'pass'}: {len(failures)} failures")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
