"""docs/llama-samplers.md's chain, transcribed: the steps in any order, the
parameters of llama.cpp's samplers and their checks, the terminal that
picks the token (the spec's draw, mirostat v1 or v2, adaptive-p) and the
state a sequence carries for them. tools/spec_sampler.py runs it; the steps
themselves are in tools/spec_steps.py.
"""

import math

import spec_steps as st
from spec_steps import BadInput

# Each parameter's default turns its step off (docs/llama-samplers.md).
CHAIN_DEFAULTS = {
    "chain": "spec",
    "min_keep": 0,
    "top_n_sigma": 0.0,
    "typical_p": 1.0,
    "xtc_probability": 0.0,
    "xtc_threshold": 0.1,
    "dry_multiplier": 0.0,
    "dry_base": 1.75,
    "dry_allowed_length": 2,
    "dry_penalty_last_n": 64,
    "dry_sequence_breakers": [],
    "dynatemp_range": 0.0,
    "dynatemp_exponent": 1.0,
    "mirostat": 0,
    "mirostat_tau": 5.0,
    "mirostat_eta": 0.1,
    "mirostat_m": 100,
    "adaptive_target": -1.0,
    "adaptive_decay": 0.9,
}
INTEGERS = ("min_keep", "dry_allowed_length", "dry_penalty_last_n", "mirostat", "mirostat_m")

STEPS = ("penalties", "dry", "top_n_sigma", "top_k", "typical", "top_p", "min_p", "xtc",
         "temperature")
CHANGERS = ("penalties", "dry")  # the steps that change l before the logprob is taken
PRESETS = {
    "spec": ("penalties", "dry", "temperature", "top_n_sigma", "top_k", "typical", "top_p",
             "min_p", "xtc"),
    "llama": STEPS,
}
MAX_BREAKER = 21  # llama.cpp: a head token and at most 20 more (MAX_SEQ_LEN)
# What mirostat refuses: (field, its step, the value that turns it off).
FILTER_OFF = (("top_n_sigma", "top_n_sigma", 0), ("top_k", "top_k", 0),
              ("typical_p", "typical", 1), ("top_p", "top_p", 1), ("min_p", "min_p", 0),
              ("xtc_probability", "xtc", 0), ("dynatemp_range", None, 0))


def with_defaults(p):
    return {**CHAIN_DEFAULTS, **p}


def is_on(name, p):
    return {
        "penalties": p["repetition_penalty"] != 1 or p["presence_penalty"] != 0
        or p["frequency_penalty"] != 0,
        "dry": p["dry_multiplier"] > 0 and p["dry_penalty_last_n"] > 0,
        "top_n_sigma": p["top_n_sigma"] > 0,
        "top_k": p["top_k"] > 0,
        "typical": p["typical_p"] < 1,
        "top_p": p["top_p"] < 1,
        "min_p": p["min_p"] > 0,
        "xtc": p["xtc_probability"] > 0 and p["xtc_threshold"] <= 0.5,
        "temperature": p["temperature"] != 1 or p["dynatemp_range"] > 0,
    }[name]


def field_of(name, p):
    """The field a step is named by in a message: the one that turns it on."""
    fields = {"penalties": ("repetition_penalty", "presence_penalty", "frequency_penalty"),
              "dry": ("dry_multiplier",), "typical": ("typical_p",),
              "xtc": ("xtc_probability",), "temperature": ("temperature", "dynatemp_range")}
    off = {"repetition_penalty": 1, "temperature": 1}
    for f in fields.get(name, (name,)):
        if p[f] != off.get(f, 0):
            return f
    return fields.get(name, (name,))[0]


def steps_of(p):
    """The chain's step names, in order."""
    chain = p["chain"]
    return list(PRESETS[chain]) if isinstance(chain, str) else list(chain)


def need(ok, message):
    if not ok:
        raise BadInput(message)


def finite_at_least_0(p, name, note=""):
    need(math.isfinite(p[name]) and p[name] >= 0,
         f"{name} = {p[name]!r}: must be finite and >= 0{note}")


def check_params(p, V):
    """The page's table, in its order; p with the defaults filled in."""
    need(p["min_keep"] >= 0, f"min_keep = {p['min_keep']!r}: must be >= 0")
    finite_at_least_0(p, "top_n_sigma", " (0: off)")
    need(p["typical_p"] >= 0,  # False for NaN too
         f"typical_p = {p['typical_p']!r}: must be >= 0 (1 or more: off)")
    need(0 <= p["xtc_probability"] <= 1,
         f"xtc_probability = {p['xtc_probability']!r}: must be in [0, 1]")
    need(0 <= p["xtc_threshold"] <= 1,
         f"xtc_threshold = {p['xtc_threshold']!r}: must be in [0, 1] (above 0.5: off)")
    finite_at_least_0(p, "dry_multiplier", " (0: off)")
    need(math.isfinite(p["dry_base"]) and p["dry_base"] >= 1,
         f"dry_base = {p['dry_base']!r}: must be finite and >= 1")
    need(p["dry_allowed_length"] >= 0,
         f"dry_allowed_length = {p['dry_allowed_length']!r}: must be >= 0")
    need(p["dry_penalty_last_n"] >= 0,
         f"dry_penalty_last_n = {p['dry_penalty_last_n']!r}: must be >= 0 (0: off)")
    check_breakers(p["dry_sequence_breakers"], V)
    finite_at_least_0(p, "dynatemp_range", " (0: off)")
    finite_at_least_0(p, "dynatemp_exponent")
    need(p["mirostat"] in (0, 1, 2), f"mirostat = {p['mirostat']!r}: must be 0, 1 or 2")
    finite_at_least_0(p, "mirostat_tau")
    finite_at_least_0(p, "mirostat_eta")
    need(p["mirostat_m"] >= 2, f"mirostat_m = {p['mirostat_m']!r}: must be >= 2")
    a = p["adaptive_target"]
    need(a <= 1, f"adaptive_target = {a!r}: must be <= 1 (below 0: off)")  # False for NaN
    d = p["adaptive_decay"]
    need(0 <= d <= 0.99, f"adaptive_decay = {d!r}: must be in [0, 0.99]")
    check_chain(p)
    if p["mirostat"] != 0:
        for name, step, off in FILTER_OFF:
            on = is_on(step, p) if step else p[name] > 0
            need(not on, f"{name} = {p[name]!r}: mirostat = {p['mirostat']} replaces the "
                 f"filters; set {name} = {off}")
        need(a < 0, f"adaptive_target = {a!r}: mirostat = {p['mirostat']} replaces the "
             "terminal; set adaptive_target = -1")


def check_breakers(breakers, V):
    for j in range(len(breakers)):
        b = breakers[j]
        need(len(b) > 0, f"dry_sequence_breakers[{j}]: empty")
        need(len(b) <= MAX_BREAKER,
             f"dry_sequence_breakers[{j}]: {len(b)} ids, at most {MAX_BREAKER}")
        for k in range(len(b)):
            need(0 <= b[k] < V, f"dry_sequence_breakers[{j}][{k}] = {b[k]}: outside [0, {V})")


def check_chain(p):
    chain = p["chain"]
    if isinstance(chain, str):
        need(chain in PRESETS, f"chain = {chain!r}: not a preset (spec, llama) or a list of "
             "step names")
    else:
        seen = set()
        for j in range(len(chain)):
            need(chain[j] in STEPS, f"chain[{j}] = {chain[j]!r}: not a step ({', '.join(STEPS)})")
            need(chain[j] not in seen, f"chain[{j}] = {chain[j]!r}: listed twice")
            seen.add(chain[j])
    names = steps_of(p)
    for name in STEPS:
        if is_on(name, p) and name not in names:
            f = field_of(name, p)
            raise BadInput(f"chain: {f} = {p[f]!r} is on but the chain has no {name} step")


def check_fixed(p):
    """distribution and verify need the row's distribution to be fixed."""
    p = with_defaults(p)
    for name, on, what in (("xtc_probability", is_on("xtc", p), "XTC"),
                           ("mirostat", p["mirostat"] != 0, "mirostat"),
                           ("adaptive_target", p["adaptive_target"] >= 0, "adaptive-p")):
        need(not on, f"{name} = {p[name]!r}: verification needs a fixed distribution; "
             f"{what} draws")


class State:
    """What a sequence carries between tokens: mirostat's mu and adaptive-p's
    (W, T_w); None until the first token that uses them."""

    def __init__(self):
        self.mu = None
        self.average = None


class Chosen:
    """What the chain leaves for the terminal: the greedy id (None when
    drawn), the final l, K and q, the draws the steps took, and `after`,
    the state's update once the token and its processed logprob are known."""

    def __init__(self, greedy, l, K, q, draws, after=None):
        self.greedy, self.l, self.K, self.q, self.draws, self.after = (
            greedy, l, K, q, draws, after)


def finite(l, K):
    return [i for i in K if l[i] != -math.inf]


def changed(l, K, name, p):
    """The checks after a step that changes l: no NaN or +inf (over every
    id, the spec's rule for the penalties: a masked id in the history can
    meet -inf - -inf), K not empty."""
    for i in range(len(l)):
        if math.isnan(l[i]) or l[i] == math.inf:
            raise BadInput(f"penalties make the logit of id {i} {l[i]!r} "
                           f"(repetition_penalty = {p['repetition_penalty']!r}, "
                           f"presence_penalty = {p['presence_penalty']!r}, "
                           f"frequency_penalty = {p['frequency_penalty']!r})")
    K = finite(l, K)
    if not K:
        raise BadInput(f"penalties make every logit -inf "
                       f"(repetition_penalty = {p['repetition_penalty']!r})" if name == "penalties" else
                       f"dry_multiplier = {p['dry_multiplier']!r}: DRY makes every logit -inf")
    return K


def temperature(l, K, p):
    """The temperature step: the T it divides by, 0 for greedy, None for none."""
    T = p["temperature"]
    if p["dynatemp_range"] == 0:
        return T
    return st.dynamic_temperature(l, K, T, p["dynatemp_range"], p["dynatemp_exponent"])


def run(l, p, history, windows, rng, state, at_logprob):
    """The chain over l (changed in place until the logprob is taken):
    returns a Chosen. at_logprob(l) is called once, where the page takes
    the logprob."""
    K = finite(l, range(len(l)))
    V = len(l)
    draws = 0
    taken = False
    for name in steps_of(p):
        if not is_on(name, p):
            continue
        if name not in CHANGERS and not taken:
            at_logprob(l)
            l, taken = list(l), True
        if name == "penalties":
            st.penalties(l, windows[0], windows[1], p["repetition_penalty"],
                         p["presence_penalty"], p["frequency_penalty"])
            K = changed(l, K, name, p)
        elif name == "dry":
            st.dry(l, K, history, p["dry_multiplier"], p["dry_base"], p["dry_allowed_length"],
                   p["dry_penalty_last_n"], p["dry_sequence_breakers"])
            K = changed(l, K, name, p)
        elif name == "top_n_sigma":
            K = st.top_n_sigma(l, K, p["top_n_sigma"])
        elif name == "top_k":
            K = st.top_k(l, K, p["top_k"])
        elif name == "typical":
            K = st.typical(l, K, p["typical_p"], p["min_keep"])
        elif name == "top_p":
            K = st.top_p(l, K, p["top_p"], p["min_keep"])
        elif name == "min_p":
            K = st.min_p(l, K, p["min_p"], p["min_keep"])
        elif name == "xtc":
            u = rng.uniform_f64()
            draws = draws + 1
            K = st.xtc(l, K, u, p["xtc_probability"], p["xtc_threshold"], p["min_keep"])
        else:
            T = temperature(l, K, p)
            if T is None:
                continue
            if T == 0:
                best = K[0]
                for i in K:
                    if l[i] > l[best]:
                        best = i
                return Chosen(best, l, [best], {best: 1.0}, draws)
            divide(l, K, T, p)
            K = finite(l, K)
    if not taken:
        at_logprob(l)
        l = list(l)
    return terminal(l, K, p, V, state, draws)


def divide(l, K, T, p):
    M = -math.inf
    for i in K:
        if l[i] > M:
            M = l[i]
    if M / T == math.inf or M / T == -math.inf:
        if p["dynatemp_range"] == 0:
            raise BadInput(f"temperature = {T!r}: too small: the largest logit {M!r} divided by "
                           f"it is {M / T!r}")
        raise BadInput(f"temperature = {p['temperature']!r}: the dynamic temperature {T!r} "
                       f"is too small, max(l) / T' = {M / T!r}")
    for i in K:
        l[i] = l[i] / T


def terminal(l, K, p, V, state, draws):
    """The spec's draw, mirostat or adaptive-p: the final K and q, and the
    state's update after the token."""
    if p["mirostat"] != 0:
        tau, eta = p["mirostat_tau"], p["mirostat_eta"]
        mu = 2 * tau if state.mu is None else state.mu
        K = (st.mirostat_v1(l, K, mu, p["mirostat_m"], V) if p["mirostat"] == 1
             else st.mirostat_v2(l, K, mu))

        def after(c, processed):
            state.mu = mu - eta * (-processed / st.LN2 - tau)
        return Chosen(None, l, K, st.softmax(l, K), draws, after)
    if p["adaptive_target"] >= 0:
        a, d = p["adaptive_target"], p["adaptive_decay"]
        W, T_w = (a / (1 - d), 1 / (1 - d)) if state.average is None else state.average
        alpha = min(max(2 * a - W / T_w, 0.0), 1.0)
        l, q = st.adaptive_logits(l, K, alpha)

        def after(c, processed):
            state.average = (q[c] + d * W, 1 + d * T_w)
        return Chosen(None, l, K, st.softmax(l, K), draws, after)
    return Chosen(None, l, K, st.softmax(l, K), draws)
