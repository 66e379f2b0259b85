#!/usr/bin/env python3
"""Random replay cases aimed at the places where sampling engines disagree.

Every case is in the replay format that `exactsample replay` and
tools/spec_sampler.py read. The mix: vocabularies from 2 to vocab_max,
-inf masks (up to all ids but one), exact ties (also across the top-k
boundary), histories on the top ids, penalties pushing logits across 0,
temperatures from 1e-3 to 100, top_p 0 and exactly at (or one ulp around)
a partial sum, min_p up to 1 and at a q ratio, greedy, every filter
together, and a few inputs the spec rules out; with `windows`, penalty
windows (penalty_last_n) shorter and longer than the history.

    import replay_cases; cases = replay_cases.random_cases(300, seed=1)
    python3 tools/replay_cases.py --out FILE --count N --seed S --vocab-max V
                                  [--vocab-min W] [--features] [--windows]
                                  [--speculative]

With --speculative (random_verifications) the cases are verifications of
draft tokens (spec/speculative.md): γ up to 8, greedy and sampled targets
and drafts, p == q rows, drafts the target does not hold, penalties over a
history the drafts extend, and each error of the page.
"""

import argparse
import heapq
import json
import math
import os
import random
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import spec_chain  # noqa: E402  (same folder)
import spec_sampler  # noqa: E402

NEG_INF = "-inf"


def encode(values):
    """f32 values for JSON: the f64 repr round-trips, -inf as a string."""
    return [NEG_INF if v == -math.inf else v for v in values]


def random_logits(rng, vocab):
    """f32 logits in one of several shapes, with ties and masks."""
    shape = rng.choice(["normal", "levels", "peaked", "wide", "near_zero"])
    scale = math.exp(rng.uniform(math.log(0.01), math.log(20.0)))
    if shape == "normal":
        x = [rng.gauss(0.0, scale) for _ in range(vocab)]
    elif shape == "levels":  # few distinct values: ties everywhere
        levels = [rng.gauss(0.0, scale) for _ in range(rng.randint(1, 6))]
        x = [rng.choice(levels) for _ in range(vocab)]
    elif shape == "peaked":
        x = [rng.gauss(0.0, 1.0) for _ in range(vocab)]
        for _ in range(rng.randint(1, 3)):
            x[rng.randrange(vocab)] = rng.uniform(5.0, 30.0)
    elif shape == "wide":  # exp(l - M) underflows to 0 for many ids
        x = [rng.uniform(-800.0, 80.0) for _ in range(vocab)]
    else:  # small values, so that penalties move them across 0
        x = [rng.choice([0.0, -0.0, rng.uniform(-0.5, 0.5)]) for _ in range(vocab)]
    if rng.random() < 0.3:  # duplicate some values exactly
        for _ in range(rng.randint(1, max(1, vocab // 4))):
            x[rng.randrange(vocab)] = x[rng.randrange(vocab)]
    x = spec_sampler.to_f32s(x)
    if rng.random() < 0.3:
        mask_ids(rng, x)
    return x


def mask_ids(rng, x):
    """Sets a share of ids to -inf (up to all but one; one id stays finite)."""
    vocab = len(x)
    share = rng.choice([0.1, 0.5, 0.9, 0.99, 1.0])
    keep = rng.randrange(vocab)
    for i in range(vocab):
        if i != keep and rng.random() < share:
            x[i] = -math.inf


def ranked(x, first=None):
    """Finite ids in (x desc, id asc) order; with `first`, only the first
    ones (a heap's pick, without sorting a whole long row)."""
    finite = [i for i in range(len(x)) if x[i] != -math.inf]
    if first is None:
        return spec_sampler.descending(x, finite)
    return heapq.nsmallest(first, finite, key=lambda i: (-x[i], i))


def tie_at_boundary(x, k):
    """Makes the k-th and (k+1)-th ranked logits equal (ids differ)."""
    order = ranked(x)
    if 0 < k < len(order):
        x[order[k]] = x[order[k - 1]]


def random_history(rng, x):
    """Prompt ids, often the top ids so that penalties hit them."""
    top = ranked(x, 8)
    return [rng.choice(top) if rng.random() < 0.6 else rng.randrange(len(x))
            for _ in range(rng.choice([0, 0, 1, 3, 10, 30]))]


def first_step_q(x, prompt, params):
    """Tempered logits, kept ids after top-k, and q over them, for step one
    (no generated ids yet), to place top_p and min_p on exact values."""
    l = [float(v) for v in x]
    r = params.get("repetition_penalty", 1.0)
    for i in set(prompt):
        l[i] = l[i] / r if l[i] > 0 else l[i] * r
    t = params.get("temperature", 1.0) or 1.0  # greedy: q before temperature
    l = [v / t for v in l]
    kept = spec_sampler.descending(l, [i for i in range(len(l)) if l[i] != -math.inf])
    k = params.get("top_k", 0)
    if 0 < k < len(kept):
        kept = kept[:k]
    return l, kept, spec_sampler.softmax(l, sorted(kept))


def near(rng, v):
    """v itself or one ulp to either side."""
    return rng.choice([v, v, math.nextafter(v, -math.inf), math.nextafter(v, math.inf)])


def top_p_at_partial_sum(rng, x, prompt, params):
    """top_p equal to (or one ulp off) a running sum of the top-p walk."""
    l, kept, q = first_step_q(x, prompt, params)
    s, sums = 0.0, []
    for i in kept[:8]:  # kept is in (l desc, id asc) order: the walk's order
        s = s + q[i]
        sums.append(s)
    return near(rng, rng.choice(sums))


def min_p_at_ratio(rng, x, prompt, params):
    """min_p near q[i] / max(q) for one kept id."""
    _, kept, q = first_step_q(x, prompt, params)
    q_max = q[kept[0]]
    return min(1.0, near(rng, q[rng.choice(kept[:8])] / q_max))


def random_params(rng, x, prompt):
    vocab = len(x)
    mix = rng.choice(["plain", "some", "some", "some", "all", "all", "greedy"])
    p = {}
    pick = (lambda: True) if mix == "all" else (lambda: rng.random() < 0.5)
    if mix == "plain":
        return p
    if mix == "greedy":
        p["temperature"] = 0.0
    elif pick():
        p["temperature"] = rng.choice(
            [1.0, math.exp(rng.uniform(math.log(1e-3), math.log(100.0)))])
    if pick():
        p["repetition_penalty"] = rng.choice([rng.uniform(0.5, 2.0), 1.0, 10.0])
    if pick():
        p["presence_penalty"] = rng.uniform(-3.0, 3.0)
    if pick():
        p["frequency_penalty"] = rng.uniform(-2.0, 2.0)
    if pick():
        k = rng.choice([1, 2, rng.randint(1, vocab), rng.randint(1, 50), vocab - 1,
                        vocab, vocab + 3])
        p["top_k"] = k
        if rng.random() < 0.5:
            tie_at_boundary(x, k)
    if pick():
        p["top_p"] = rng.choice([0.0, rng.random(), 1.0, None, None])
        if p["top_p"] is None:
            p["top_p"] = top_p_at_partial_sum(rng, x, prompt, p)
    if pick():
        p["min_p"] = rng.choice([rng.random(), 1.0, 1e-300, None])
        if p["min_p"] is None:
            p["min_p"] = min_p_at_ratio(rng, x, prompt, p)
    return p


def random_features(rng, x, params):
    """The library's additions on a valid case: a logit bias (often one that
    makes an id tie another, or -100/+100), a mask leaving at least one
    finite id, top_logprobs (often over tied logits)."""
    vocab = len(x)
    finite = [i for i in range(vocab) if x[i] != -math.inf]
    if rng.random() < 0.6:
        bias = {}
        for _ in range(rng.choice([1, 2, 5, 20])):
            i = rng.randrange(vocab)
            bias[str(i)] = rng.choice([-100.0, 100.0, rng.uniform(-5.0, 5.0),
                                       rng.uniform(-1e-3, 1e-3), None])
            if bias[str(i)] is None:  # l[i] + b ties another finite id
                j = rng.choice(finite)
                bias[str(i)] = (x[j] - x[i]) if x[i] != -math.inf else 1.0
        params["logit_bias"] = bias
    if rng.random() < 0.5:
        keep = rng.choice(finite)
        share = rng.choice([0.01, 0.5, 0.9])
        if rng.random() < 0.5:
            params["allowed_token_ids"] = [keep] + [
                i for i in range(vocab) if i != keep and rng.random() > share][:3000]
        if rng.random() < 0.5:
            params["banned_token_ids"] = [
                i for i in range(vocab) if i != keep and rng.random() < share][:3000]
    if rng.random() < 0.7:
        params["top_logprobs"] = rng.choice([1, 2, 5, 20, rng.randint(0, 20)])
        if rng.random() < 0.5 and finite:  # tied logits around the N-th
            order = ranked(x)
            for r in range(min(len(order) - 1, params["top_logprobs"] + 2)):
                if rng.random() < 0.5:
                    x[order[r + 1]] = x[order[r]]


def random_window(rng, x, case):
    """The penalty window on a valid case: a penalty on, a longer prompt
    (often the top ids, so that ids enter and leave the window), more steps,
    and penalty_last_n from 1 to beyond the whole history."""
    params = case["params"]
    top = ranked(x, 6) or [0]
    case["prompt"] = case["prompt"] + [
        rng.choice(top) if rng.random() < 0.7 else rng.randrange(len(x))
        for _ in range(rng.choice([0, 2, 5, 20, 40]))]
    case["steps"] = rng.choice([12, 24, 40])
    if rng.random() < 0.7 or "repetition_penalty" not in params:
        params["repetition_penalty"] = rng.choice([rng.uniform(0.5, 2.0), 1.5, 0.7])
    if rng.random() < 0.7:
        params["presence_penalty"] = rng.uniform(-2.0, 2.0)
    if rng.random() < 0.7:
        params["frequency_penalty"] = rng.uniform(-1.5, 1.5)
    history = len(case["prompt"]) + case["steps"]
    params["penalty_last_n"] = rng.choice(
        [1, 2, 3, 5, 8, 16, rng.randint(1, history), len(case["prompt"]),
         len(case["prompt"]) + 1, history, (1 << 63) - 1, 0])


def random_chain(rng, x, case):
    """llama.cpp's samplers on a valid case (docs/llama-samplers.md): a
    history with repeats (for DRY), random samplers on, sometimes mirostat
    (the filters then off) or adaptive-p, and the spec's order, llama's or
    a random list holding every step that is on."""
    params = case["params"]
    top = ranked(x, 5) or [0]
    pattern = [rng.choice(top) for _ in range(rng.choice([1, 2, 3, 4]))]
    case["prompt"] = case["prompt"] + pattern * rng.choice([0, 1, 3, 6]) + [
        rng.choice(top) for _ in range(rng.choice([0, 2, 5]))]
    case["steps"] = rng.choice([5, 12, 20])
    vocab = len(x)
    if rng.random() < 0.4:
        params["min_keep"] = rng.choice([0, 1, 2, 5, rng.randint(0, vocab + 2)])
    if rng.random() < 0.3:
        params["top_n_sigma"] = rng.choice([0.5, 1.0, rng.uniform(0.01, 4.0)])
    if rng.random() < 0.3:
        params["typical_p"] = rng.choice([0.0, rng.random(), 0.95, 1.0])
    if rng.random() < 0.35:
        params["xtc_probability"] = rng.choice([1.0, 0.5, rng.random()])
        params["xtc_threshold"] = rng.choice([0.1, rng.uniform(0.0, 0.5), 0.6])
    if rng.random() < 0.5:
        params["dry_multiplier"] = rng.choice([0.8, rng.uniform(0.0, 3.0)])
        params["dry_base"] = rng.choice([1.0, 1.75, rng.uniform(1.0, 4.0), 1e6])
        params["dry_allowed_length"] = rng.choice([0, 1, 2, 3])
        params["dry_penalty_last_n"] = rng.choice([0, 1, 4, 64, (1 << 62)])
        params["dry_sequence_breakers"] = [
            [rng.choice(top) if rng.random() < 0.7 else rng.randrange(vocab)
             for _ in range(rng.choice([1, 1, 2, 3]))] for _ in range(rng.choice([0, 1, 2, 4]))]
    if rng.random() < 0.25:
        params["dynatemp_range"] = rng.choice([0.5, rng.uniform(0.0, 2.0)])
        params["dynatemp_exponent"] = rng.choice([0.0, 1.0, rng.uniform(0.0, 3.0)])
    terminal = rng.random()
    if terminal < 0.2:
        for name in ("top_k", "top_p", "min_p", "top_n_sigma", "typical_p",
                     "xtc_probability", "dynatemp_range"):
            params.pop(name, None)
        params["mirostat"] = rng.choice([1, 2])
        params["mirostat_tau"] = rng.choice([5.0, rng.uniform(0.0, 8.0)])
        params["mirostat_eta"] = rng.choice([0.1, rng.uniform(0.0, 1.0)])
        if rng.random() < 0.3:
            params["mirostat_m"] = rng.choice([2, 3, 10, 100, vocab + 1])
    elif terminal < 0.35:
        params["adaptive_target"] = rng.choice([0.0, 0.5, rng.uniform(-0.5, 1.0)])
        params["adaptive_decay"] = rng.choice([0.0, 0.9, rng.uniform(0.0, 0.99)])
    full = spec_chain.with_defaults({**spec_sampler.DEFAULTS, **params})
    on = [name for name in spec_chain.STEPS if spec_chain.is_on(name, full)]
    kind = rng.random()
    if kind < 0.3:
        params["chain"] = "llama"
    elif kind < 0.5:
        params["chain"] = "spec"
    else:
        steps = on + [name for name in spec_chain.STEPS
                      if name not in on and rng.random() < 0.3]
        rng.shuffle(steps)
        params["chain"] = steps


def chain_bad_cases():
    """The chain's bad inputs (docs/llama-samplers.md, Bad input), each alone."""
    x = [1.0, 2.0, 0.5, 3.0]

    def case(name, logits=x, prompt=(1, 3, 1, 3), **params):
        return {"name": f"bad_chain_{name}", "logits": logits, "params": params, "seed": 3,
                "prompt": list(prompt), "steps": 3}

    return [
        case("min_keep", min_keep=-1), case("top_n_sigma", top_n_sigma=-1.0),
        case("typical", typical_p="nan"), case("xtc_probability", xtc_probability=1.5),
        case("xtc_threshold", xtc_threshold=-0.1), case("dry_multiplier", dry_multiplier=-1.0),
        case("dry_base", dry_base=0.5), case("dry_allowed_length", dry_allowed_length=-1),
        case("dry_last_n", dry_penalty_last_n=-1),
        case("breaker_empty", dry_sequence_breakers=[[1], []]),
        case("breaker_long", dry_sequence_breakers=[[1] * 22]),
        case("breaker_id", dry_sequence_breakers=[[9]]),
        case("dynatemp_range", dynatemp_range=-0.5),
        case("dynatemp_exponent", dynatemp_exponent=-1.0), case("mirostat", mirostat=3),
        case("mirostat_tau", mirostat_tau=-1.0), case("mirostat_eta", mirostat_eta="inf"),
        case("mirostat_m", mirostat_m=1), case("adaptive_target", adaptive_target=2.0),
        case("adaptive_decay", adaptive_decay=1.0),
        case("unknown_step", chain=["top_k", "topk"]), case("preset", chain="fast"),
        case("preset_in_list", chain=["llama"]), case("twice", chain=["top_k", "top_k"]),
        case("missing", chain=["top_k"], top_p=0.9), case("not_a_list", chain=3),
        case("mirostat_filter", mirostat=2, top_k=40),
        case("mirostat_adaptive", mirostat=1, adaptive_target=0.5),
        # Only id 1 is left, and it continues the repeat 3 1 3 of length 3.
        case("dry_empties", logits=[NEG_INF, 2.0, NEG_INF, NEG_INF], prompt=(3, 1, 3, 1, 3),
             dry_multiplier=1e308, dry_allowed_length=0),
        case("dynatemp_overflow", temperature=0.0, dynatemp_range=1e-310),
    ]


def random_seed(rng):
    return rng.choice([0, (1 << 64) - 1, rng.getrandbits(64), rng.getrandbits(64)])


def random_case(rng, name, vocab_max=5000, vocab_min=2, features=None, windows=None,
                chains=None):
    """One valid case (the spec accepts every input it has); the vocabulary
    size is log-uniform in [vocab_min, vocab_max]. With `features` (a
    generator of its own, so the other draws stay as without it) the
    library's additions too; with `windows` (the same) a penalty window."""
    vocab = int(math.exp(rng.uniform(math.log(vocab_min), math.log(vocab_max + 1))))
    vocab = max(vocab_min, min(vocab, vocab_max))
    x = random_logits(rng, vocab)
    prompt = random_history(rng, x)
    params = random_params(rng, x, prompt)
    if features is not None:
        random_features(features, x, params)
    case = {"name": name, "logits": encode(x), "params": params, "prompt": prompt,
            "seed": random_seed(rng), "steps": rng.choice([1, 5, 12, 12, 16])}
    if windows is not None:
        random_window(windows, x, case)
    if chains is not None:
        random_chain(chains, x, case)
    return case


def bad_cases():
    """Inputs the spec rules out, each alone; the last two fail only after
    some tokens (a count reaching 2, a prompt id turning +inf)."""
    base = {"logits": [0.5, -1.0, 2.0], "seed": 3, "steps": 3}

    def case(name, **kw):
        c = dict(base, name="bad_" + name)
        c.update(kw)
        return c

    return [
        case("empty_logits", logits=[]),
        case("nan_logit", logits=[0.5, "nan", 1.0]),
        case("inf_logit", logits=[0.5, "inf", 1.0]),
        case("all_masked", logits=[NEG_INF, NEG_INF]),
        case("prompt_id_v", prompt=[0, 3]),
        case("prompt_id_negative", prompt=[-1]),
        case("temperature_negative", params={"temperature": -0.5}),
        case("temperature_nan", params={"temperature": "nan"}),
        case("temperature_inf", params={"temperature": "inf"}),
        case("top_p_negative", params={"top_p": -0.1}),
        case("top_p_nan", params={"top_p": "nan"}),
        case("min_p_above_1", params={"min_p": 1.5}),
        case("min_p_negative", params={"min_p": -0.1}),
        case("min_p_nan", params={"min_p": "nan"}),
        case("top_k_negative", params={"top_k": -1}),
        case("top_k_fraction", params={"top_k": 2.5}),
        case("repetition_zero", params={"repetition_penalty": 0.0}),
        case("repetition_negative", params={"repetition_penalty": -1.0}),
        case("repetition_inf", params={"repetition_penalty": "inf"}),
        case("presence_inf", params={"presence_penalty": "inf"}),
        case("frequency_nan", params={"frequency_penalty": "nan"}),
        case("penalty_makes_inf", logits=[3e38, -1.0], prompt=[0],
             params={"repetition_penalty": 1e-300}),
        case("penalty_makes_all_masked", logits=[-3e38, NEG_INF], prompt=[0],
             params={"repetition_penalty": 1e300}),
        case("temperature_overflows", logits=[3e38, 0.0],
             params={"temperature": 1e-300}),
        case("temperature_overflows_negative", logits=[-3e38],
             params={"temperature": 1e-300}),
        case("frequency_makes_inf_at_step_3", logits=[0.0, NEG_INF],
             params={"frequency_penalty": -1e308}),
    ]


def feature_bad_cases():
    """Bad uses of the library's additions, each alone."""
    base = {"logits": [0.5, -1.0, 2.0], "seed": 3, "steps": 3}
    return [dict(base, name="bad_" + name, params=params) for name, params in [
        ("bias_id_v", {"logit_bias": {"3": 1.0}}),
        ("bias_id_negative", {"logit_bias": {"-1": 1.0}}),
        ("bias_inf", {"logit_bias": {"0": "inf"}}),
        ("bias_nan", {"logit_bias": {"0": "nan"}}),
        ("bias_key_not_an_id", {"logit_bias": {"x1": 1.0}}),
        ("bias_overflows_temperature", {"logit_bias": {"2": 1.7e308}, "temperature": 0.5}),
        ("allowed_id_v", {"allowed_token_ids": [0, 3]}),
        ("banned_id_negative", {"banned_token_ids": [-2]}),
        ("every_id_banned", {"banned_token_ids": [0, 1, 2]}),
        ("allowed_and_banned", {"allowed_token_ids": [1], "banned_token_ids": [1]}),
        ("top_logprobs_21", {"top_logprobs": 21}),
        ("top_logprobs_negative", {"top_logprobs": -1}),
    ]]


def window_bad_cases():
    """Bad penalty windows, each alone."""
    base = {"logits": [0.5, -1.0, 2.0], "prompt": [2, 2], "seed": 3, "steps": 3}
    return [dict(base, name="bad_" + name, params=params) for name, params in [
        ("window_negative", {"penalty_last_n": -1, "repetition_penalty": 1.5}),
        ("window_most_negative", {"penalty_last_n": -(1 << 63)}),
        ("window_fraction", {"penalty_last_n": 2.5}),
    ]]


def edge_cases():
    """Valid inputs at the edges the spec defines."""
    return [
        {"name": "edge_spec_example", "logits": [1.0, 3.0, 2.0, 3.0, -1.0],
         "params": {"top_k": 3, "top_p": 0.8}, "seed": 0},
        {"name": "edge_single_id", "logits": [-2.5], "seed": 9},
        {"name": "edge_greedy_ties", "logits": [1.0, 4.0, 4.0, NEG_INF, 4.0],
         "params": {"temperature": 0.0}, "seed": 1},
        # max(l) = 0: l / T stays finite for it and is -inf for the others.
        {"name": "edge_subnormal_temperature", "logits": [-1.0, 0.0, -3.0, 0.0],
         "params": {"temperature": 5e-324, "top_k": 3}, "seed": 2},
        {"name": "edge_top_k_beyond_finite", "logits": [1.0, NEG_INF, 1.0, NEG_INF],
         "params": {"top_k": 3}, "seed": 4},
        {"name": "edge_min_p_tiny", "logits": [0.0, -800.0, -1.0],
         "params": {"min_p": 5e-324}, "seed": 5},
        # This seed's first u is 1 - 2^-53 (found by inverting PCG32's output
        # and mix64), and these q add up to 1 - 2^-53 in ascending ids, so
        # the walk ends with c == u: the fallback picks id 4 (id 5 has q 0).
        {"name": "edge_cdf_fallback",
         "logits": [1.655751347541809, -1.5056840181350708, -2.688880443572998,
                    -2.058892011642456, -0.7692398428916931, -800.0],
         "seed": 11224802225656023891, "steps": 1},
        {"name": "edge_zero_steps_bad_logits", "logits": ["nan"], "seed": 6, "steps": 0},
    ]


def random_cases(count, seed, vocab_max=5000, vocab_min=2, features=False, windows=False,
                 fixed=True, chains=False):
    """`count` cases from a fixed seed: the edge and bad-input cases first
    (as many as fit; none when `fixed` is false), then random valid ones;
    `features`: with the library's additions (bias, masks, top_logprobs) and
    their bad inputs; `windows`: with penalty windows and their bad inputs;
    `chains`: with llama.cpp's samplers in random chains and their bad inputs."""
    rng = random.Random(seed)
    edges = (edge_cases() + bad_cases() + (feature_bad_cases() if features else []) +
             (window_bad_cases() if windows else []) + (chain_bad_cases() if chains else []))
    cases = edges[:count] if fixed else []
    while len(cases) < count:
        extra = random.Random(f"{seed}/{len(cases)}") if features else None
        window = random.Random(f"{seed}/{len(cases)}/window") if windows else None
        chain = random.Random(f"{seed}/{len(cases)}/chain") if chains else None
        cases.append(random_case(rng, f"random_{len(cases)}", vocab_max, vocab_min, extra,
                                 window, chain))
    return cases


# ---------------------------------------------------------------- verifications
# Cases with "draft_ids" (spec/speculative.md), drafts proposed from the
# draft rows by the transcription itself.


def nearby(rng, x, spread):
    """x with gaussian noise of `spread` on every finite logit (f32)."""
    return spec_sampler.to_f32s([v if v == -math.inf else v + rng.gauss(0.0, spread)
                                 for v in x])


def propose(rng, y, prompt, h, dp, p_row):
    """A draft id for one position: drawn from Q (with the case's own
    random numbers), Q's top id, an earlier draft again, or one the target
    does not hold (P == 0 where Q > 0); always one with Q > 0."""
    q = spec_sampler.dist(y, prompt, h, dp)
    held = [i for i in range(len(q)) if q[i] > 0]
    mode = rng.choice(["draw", "draw", "draw", "top", "repeat", "outside"])
    if mode == "repeat":
        repeats = [i for i in h if q[i] > 0]
        if repeats:
            return rng.choice(repeats)
    if mode == "outside" and p_row is not None:
        outside = [i for i in held if p_row[i] == 0]
        if outside:
            return rng.choice(outside)
    if mode == "top":
        return max(held, key=lambda i: (q[i], -i))
    u, c = rng.random(), 0.0
    for i in held:
        c = c + q[i]
        if u < c:
            return i
    return held[-1]


def random_draft_params(rng, y, prompt):
    """Absent (the target's), or parameters of the draft side's own."""
    mix = rng.choice(["absent", "absent", "own", "greedy"])
    if mix == "absent":
        return None
    dp = random_params(rng, list(y), prompt)
    if mix == "greedy":
        dp["temperature"] = 0.0
    return dp


def random_verification(rng, name, vocab_max=5000, vocab_min=2, features=None,
                        windows=None, gamma_max=8, chains=None):
    """One valid verification: γ in [1, gamma_max], target rows near one another,
    draft rows equal to (p == q), near or unlike the target rows, greedy
    and sampled targets and drafts, penalties over a history the drafts
    extend; `features`, `windows` and `chains` as in random_case. A chain's
    samplers that draw (XTC, mirostat, adaptive-p) are taken out but in one
    case in ten, which verification refuses."""
    vocab = int(math.exp(rng.uniform(math.log(vocab_min), math.log(vocab_max + 1))))
    vocab = max(vocab_min, min(vocab, vocab_max))
    gamma = rng.randint(1, gamma_max)
    base = random_logits(rng, vocab)
    prompt = random_history(rng, base)
    generated = random_history(rng, base)[:rng.choice([0, 2, 8])]
    params = random_params(rng, base, prompt)
    if features is not None:
        random_features(features, base, params)
    if windows is not None:
        held = {"params": params, "prompt": prompt}
        random_window(windows, base, held)
        prompt = held["prompt"]
    if chains is not None:
        held = {"params": params, "prompt": prompt}
        random_chain(chains, base, held)
        prompt = held["prompt"]
        if chains.random() < 0.9:
            for drawn in ("xtc_probability", "xtc_threshold", "mirostat", "mirostat_tau",
                          "mirostat_eta", "mirostat_m", "adaptive_target", "adaptive_decay"):
                params.pop(drawn, None)
    spread = rng.choice([0.0, 1e-3, 0.1, 1.0])
    target = [base] + [nearby(rng, base, spread) for _ in range(gamma)]
    draft_mode = rng.choice(["same", "near", "near", "unlike"])
    if draft_mode == "same":
        draft = [list(x) for x in target[:gamma]]
    elif draft_mode == "near":
        draft = [nearby(rng, x, rng.choice([1e-3, 0.3])) for x in target[:gamma]]
    else:
        draft = [random_logits(rng, vocab) for _ in range(gamma)]
    dp_json = None if draft_mode == "same" else random_draft_params(rng, draft[0], prompt)
    tp = spec_sampler.read_params(params, vocab)
    dp = spec_sampler.draft_side(
        tp if dp_json is None else spec_sampler.read_params(dp_json, vocab, lists=False))
    drafts = []
    for j in range(gamma):
        h = generated + drafts
        try:
            p_row = spec_sampler.dist(target[j], prompt, h, tp)
            drafts.append(propose(rng, draft[j], prompt, h, dp, p_row))
        except spec_sampler.BadInput:  # e.g. penalties overflowing: any id
            drafts.append(rng.randrange(vocab))
    case = {"name": name, "target_logits": [encode(x) for x in target],
            "draft_logits": [encode(y) for y in draft], "draft_ids": drafts,
            "params": params, "prompt": prompt, "generated": generated,
            "seed": random_seed(rng)}
    if dp_json is not None:
        case["draft_params"] = dp_json
    if tp["temperature"] == 0 and rng.random() < 0.5:
        del case["draft_logits"]  # a greedy target reads no draft rows
    return case


def example_verification(seed):
    """The page's worked example."""
    return {"name": f"verify_example_seed_{seed}",
            "target_logits": [[1.0, 3.0, 2.0, 3.0, -1.0], [0.5, 1.0, 2.5, 0.0, 1.0],
                              [2.0, 0.0, 0.0, 0.0, 1.0]],
            "draft_logits": [[1.0, 2.0, 2.0, 3.5, -1.0], [0.0, 1.0, 3.0, 0.0, 0.0]],
            "draft_ids": [3, 2], "params": {"top_k": 3, "top_p": 0.9}, "seed": seed}


def fixed_verifications():
    """The worked example, its edges, and each error of the page alone."""
    def case(name, **kw):
        c = example_verification(3)
        c["name"] = "verify_" + name
        c.update(kw)
        return c

    rows = example_verification(0)["target_logits"]
    return [
        example_verification(0),
        example_verification(3),
        case("greedy_no_draft_rows", params={"temperature": 0.0}, draft_ids=[1, 2],
             draft_logits=[]),
        case("greedy_draft_params", params={"temperature": 0.0},
             draft_params={"temperature": 0.0}, draft_ids=[3, 4]),
        # Greedy: the mismatch at position 1 ends it before row 3's NaN.
        case("unreached_bad_row", params={"temperature": 0.0}, draft_ids=[0, 2],
             target_logits=rows[:2] + [[0.0, "nan", 0.0, 0.0, 0.0]]),
        case("penalties_over_drafts", draft_ids=[3, 3],
             params={"frequency_penalty": 0.5, "repetition_penalty": 1.5},
             draft_params={"presence_penalty": -1.0}, generated=[3], prompt=[1]),
        case("bias_on_target_only", params={"logit_bias": {"3": -100.0}, "top_logprobs": 3}),
        # T = 0 with a dynamic temperature is not a greedy target (B); its
        # first row, every q but id 3's underflowing, has T' = 0: one id with
        # q = 1, which accepts draft 3 and replaces draft 0, a draw each.
        case("dynamic_greedy_row_accepted", params={"temperature": 0.0, "dynatemp_range": 0.5},
             target_logits=[[-1000.0, -1000.0, -1000.0, 5.0, -2000.0]] + rows[1:],
             draft_ids=[3, 2]),
        case("dynamic_greedy_row_rejected", params={"temperature": 0.0, "dynatemp_range": 0.5},
             target_logits=[[-1000.0, -1000.0, -1000.0, 5.0, -2000.0]] + rows[1:],
             draft_ids=[0, 2]),
        case("bad_no_drafts", draft_ids=[]),
        case("bad_target_rows_missing", target_logits=rows[:2]),
        case("bad_draft_rows_missing", draft_logits=[rows[0]]),
        case("bad_row_length", target_logits=rows[:2] + [[0.0, 1.0]]),
        case("bad_draft_row_length", draft_logits=[rows[0], [0.0]]),
        case("bad_draft_id_v", draft_ids=[3, 5]),
        case("bad_draft_id_negative", draft_ids=[-1, 2]),
        case("bad_draft_probability_0", draft_ids=[3, 4]),
        case("bad_draft_row_nan", draft_logits=[rows[0], [0.0, "nan", 0.0, 0.0, 0.0]]),
        case("bad_target_params", params={"top_p": -1.0}),
        case("bad_draft_params", draft_params={"min_p": 2.0}),
        case("bad_draft_params_bias", draft_params={"logit_bias": {"0": 1.0}}),
        case("bad_generated_id", generated=[7]),
    ]


def random_verifications(count, seed, vocab_max=5000, vocab_min=2, features=False,
                         windows=False, fixed=True, gamma_max=8, chains=False):
    """`count` verification cases from a fixed seed: the fixed ones first
    (as many as fit; none when `fixed` is false), then random valid ones
    with γ up to `gamma_max`; `chains` as in random_cases."""
    rng = random.Random(seed)
    cases = fixed_verifications()[:count] if fixed else []
    while len(cases) < count:
        extra = random.Random(f"{seed}/{len(cases)}") if features else None
        window = random.Random(f"{seed}/{len(cases)}/window") if windows else None
        chain = random.Random(f"{seed}/{len(cases)}/chain") if chains else None
        cases.append(random_verification(rng, f"verify_{len(cases)}", vocab_max, vocab_min,
                                         extra, window, gamma_max, chain))
    return cases


def write_cases(path, cases):
    # json.dumps, unlike json.dump, takes the C encoder: the same text, in a
    # fraction of the time for rows of 262144 logits.
    with open(path, "w", encoding="utf-8") as f:
        f.write(json.dumps({"cases": cases}, allow_nan=False))


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", required=True, help="replay file to write")
    ap.add_argument("--count", type=int, default=300)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--vocab-max", type=int, default=5000)
    ap.add_argument("--vocab-min", type=int, default=2)
    ap.add_argument("--features", action="store_true",
                    help="add logit bias, masks and top_logprobs to the cases")
    ap.add_argument("--windows", action="store_true",
                    help="add penalty windows (penalty_last_n) to the cases")
    ap.add_argument("--speculative", action="store_true",
                    help="verifications of draft tokens instead (cases with draft_ids)")
    args = ap.parse_args()
    if not 1 <= args.vocab_min <= args.vocab_max:
        ap.error("need 1 <= --vocab-min <= --vocab-max")
    make = random_verifications if args.speculative else random_cases
    write_cases(args.out, make(args.count, args.seed, args.vocab_max,
                               args.vocab_min, args.features, args.windows))


if __name__ == "__main__":
    main()
