#!/usr/bin/env python3
"""spec/sampling.md, spec/pcg32.md and spec/speculative.md, transcribed in
plain Python.

An independent oracle for the C++ engines: standard library only, Python
floats (IEEE f64), math.exp and math.log (the platform's libm), explicit
left-to-right loops (no sum(), no fsum), one visible block per spec step.

    python3 tools/spec_sampler.py replay FILE    (- for standard input)

FILE is {"cases": [...]}; each case has name, logits (numbers or numeric
strings such as "-inf", read as f64 then rounded to f32; a finite value
beyond the f32 range is an error), params (optional; missing fields take
the spec defaults), prompt (default []), seed (u64) and steps (default 12,
at most 65536). A numeric string is JSON number syntax or "inf", "-inf",
"nan", as in the C++ reader; a -inf logprob is written "-inf". A case may
carry its expected ids, logprobs, processed_logprobs and top_logprobs, or
its expected error (not read); another field is an error. A key given twice in one object makes
the file unreadable. Prints one JSON line per case, {"name", "ids",
"logprobs", "processed_logprobs"} (and "top_logprobs" when
params.top_logprobs > 0) or {"name", "error"}; a rejected case is a
result: exits 0, or 2 on an unreadable file.

A case with "draft_ids" is a verification of draft tokens (speculative.md):
target_logits (γ + 1 rows), draft_logits (γ rows; a greedy target needs
none), draft_ids, params, draft_params (absent: params; no bias or mask
fields), prompt, generated (the history before the drafts) and seed. Its
line is the tokens' fields as above plus "accepted" and
"rng_draws_consumed" (uniform_f64 draws). As in the library, the bias and
mask of params apply to the target rows only, every row's length and every
draft id are checked before anything else, every Q_j[d_j] > 0 before the
first draw, and a target row is only sampled when the verification reaches
it.

Beyond the spec, the library's rules (README): params.logit_bias ({"id":
bias}, each key an id in canonical decimal), added to the widened logits
after step 1; allowed_token_ids (an empty one is an error) and
banned_token_ids, masking ids to -inf after the bias, before step 2;
top_logprobs (N in [0, 20]); the processed logprob of each token; and the
penalty window penalty_last_n (docs/sequence.md, "Penalty window"): 0 is
the spec's whole history; n > 0 applies the repetition penalty over the
distinct ids of the last n tokens of prompt followed by generated, and
presence and frequency over the counts in the last n generated tokens.

The chain (docs/llama-samplers.md, tools/spec_chain.py): params.chain ("spec",
"llama" or a list of step names) and llama.cpp's samplers' fields (typical_p,
top_n_sigma, xtc_*, dry_* with dry_sequence_breakers as lists of ids,
dynatemp_*, mirostat*, adaptive_*, min_keep); mirostat's mu and adaptive-p's
average carry from one step of a case to the next.
"""

import json
import heapq
import math
import re
import struct
import sys

import spec_chain
from spec_steps import BadInput, descending, softmax, softmax_sums  # noqa: F401 (callers use them)

# ---------------------------------------------------------------- PCG32

U64 = (1 << 64) - 1
U32 = (1 << 32) - 1
MULTIPLIER = 6364136223846793005
SAMPLE = 4  # purpose id of the request generator


class Pcg32:
    """PCG-XSH-RR, 64-bit state, 32-bit output (spec/pcg32.md)."""

    def __init__(self, initstate, seq):
        self.inc = ((seq << 1) | 1) & U64
        self.state = 0
        self.next_u32()
        self.state = (self.state + initstate) & U64
        self.next_u32()

    def next_u32(self):
        old = self.state
        self.state = (old * MULTIPLIER + self.inc) & U64
        xs = (((old >> 18) ^ old) >> 27) & U32
        rot = old >> 59
        return ((xs >> rot) | (xs << ((32 - rot) & 31))) & U32

    def uniform_f64(self):
        a = self.next_u32()
        b = self.next_u32()
        # An integer below 2^53 converts exactly; the scaling is exact.
        return float((a >> 5) * (1 << 26) + (b >> 6)) * 2.0 ** -53


def mix64(z):
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & U64
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & U64
    return z ^ (z >> 31)


def child_seed(seed, p):
    return mix64((seed + p * 0x9E3779B97F4A7C15) & U64)


def stream(seed, p):
    return Pcg32(child_seed(seed, p), p)


# ---------------------------------------------------------------- inputs

DEFAULTS = {
    "temperature": 1.0,
    "repetition_penalty": 1.0,
    "presence_penalty": 0.0,
    "frequency_penalty": 0.0,
    "top_k": 0,
    "top_p": 1.0,
    "min_p": 0.0,
    # The library's additions (not spec fields).
    "top_logprobs": 0,
    "penalty_last_n": 0,  # 0: the whole history
    "logit_bias": {},  # id -> bias
    "allowed_token_ids": None,  # None or []: every id allowed
    "banned_token_ids": [],
}
MAX_TOP_LOGPROBS = 20


def check_params(p):
    T = p["temperature"]
    if not math.isfinite(T) or T < 0:
        raise BadInput(f"temperature = {T!r}: must be finite and >= 0")
    if math.isnan(p["top_p"]) or p["top_p"] < 0:
        raise BadInput(f"top_p = {p['top_p']!r}: must be >= 0 (>= 1 turns it off)")
    if not 0 <= p["min_p"] <= 1:  # False for NaN too
        raise BadInput(f"min_p = {p['min_p']!r}: must be in [0, 1]")
    if p["top_k"] < 0:
        raise BadInput(f"top_k = {p['top_k']!r}: must be >= 0 (0 turns it off)")
    r = p["repetition_penalty"]
    if not math.isfinite(r) or r <= 0:
        raise BadInput(f"repetition_penalty = {r!r}: must be finite and > 0")
    for name in ("presence_penalty", "frequency_penalty"):
        if not math.isfinite(p[name]):
            raise BadInput(f"{name} = {p[name]!r}: must be finite")
    if not 0 <= p["top_logprobs"] <= MAX_TOP_LOGPROBS:
        raise BadInput(f"top_logprobs = {p['top_logprobs']!r}: must be in [0, 20]")
    if p["penalty_last_n"] < 0:
        raise BadInput(f"penalty_last_n = {p['penalty_last_n']!r}: "
                       "must be >= 0 (0: the whole history)")


def check_logits(x):
    if len(x) == 0:
        raise BadInput("logits: empty (V = 0); at least one logit is needed")
    any_finite = False
    for i in range(len(x)):
        if math.isnan(x[i]) or x[i] == math.inf:
            raise BadInput(f"logits[{i}] = {x[i]!r}: logits must not be NaN or +inf")
        if x[i] != -math.inf:
            any_finite = True
    if not any_finite:
        raise BadInput("logits: every logit is -inf, no token can be chosen")


def check_ids(field, ids, V):
    for j in range(len(ids)):
        if not 0 <= ids[j] < V:
            raise BadInput(f"{field}[{j}] = {ids[j]}: outside [0, V) with V = {V}")


# ---------------------------------------------------------------- the steps


class Row:
    """What steps 1 to 9 leave for a row: the greedy id (None when sampled),
    the final K (ascending ids) with its q, and the token's outputs."""

    def __init__(self, greedy, K, q, logprob, processed, top, draws=0, after=None):
        self.greedy = greedy
        self.K = K
        self.q = q
        self.logprob = logprob  # id -> sampling.md's logprob (step 3's logits)
        self.processed = processed  # id -> the processed logprob
        self.top = top  # the top-N [id, logprob] pairs
        self.draws = draws  # the draws the chain's steps took (XTC)
        self.after = after  # the state's update once the token is drawn

    def token(self, c):
        """(id, logprob, processed logprob, top-N) for id c."""
        return c, self.logprob(c), self.processed(c), self.top


def steps_1_to_9(x, prompt, out, p, rng=None, state=None):
    """Steps 1 to 9 of one row, run as the request's chain
    (docs/llama-samplers.md): every draw but the token's own (XTC's, from
    rng) and no state change; raises BadInput."""
    check_params(p)
    V = len(x)
    p = spec_chain.with_defaults(p)
    spec_chain.check_params(p, V)
    check_ids("prompt", prompt, V)
    check_ids("generated", out, V)
    check_ids("logit_bias", list(p["logit_bias"]), V)
    for i, b in p["logit_bias"].items():
        if not math.isfinite(b):
            raise BadInput(f"logit_bias = {b!r} for id {i}: a bias must be finite")
    if p["allowed_token_ids"] is not None and len(p["allowed_token_ids"]) == 0:
        raise BadInput("allowed_token_ids: empty, so no id may be drawn; leave it out to "
                       "allow every id")
    check_ids("allowed_token_ids", p["allowed_token_ids"] or [], V)
    check_ids("banned_token_ids", p["banned_token_ids"], V)
    check_logits(x)

    # 1. Widen (Python floats are f64; x already holds f32 values).
    l = [float(x[i]) for i in range(V)]

    #    The library's rules, between steps 1 and 2: the logit bias, then
    #    the mask (a masked-out id's logit becomes -inf).
    for i in sorted(p["logit_bias"]):
        l[i] = l[i] + p["logit_bias"][i]
    allowed = set(range(V)) if not p["allowed_token_ids"] else set(p["allowed_token_ids"])
    allowed -= set(p["banned_token_ids"])
    for i in range(V):
        if i not in allowed:
            l[i] = -math.inf
    for i in range(V):
        if l[i] == math.inf:
            raise BadInput(f"logit_bias: makes the logit of id {i} +inf")
    if all(l[i] == -math.inf for i in range(V)):
        raise BadInput("mask: every id with a finite logit is masked out (allowed_token_ids, "
                       "banned_token_ids, allowed_bitmask) or biased to -inf; no token can be "
                       "chosen")

    #    The penalty window (the library's rule): n > 0 keeps the last n
    #    tokens of prompt followed by out for step 2, the last n of out for
    #    step 3; 0 keeps everything (the spec).
    n = p["penalty_last_n"]
    history = prompt + out
    recent = history[len(history) - n:] if 0 < n < len(history) else history
    recent_out = out[len(out) - n:] if 0 < n < len(out) else out

    #    Steps 2 to 8 as the chain's steps. The reported logprob is
    #    log_softmax over all V ids where the page takes it (after steps 2
    #    and 3 in the spec's order), computed as in step 9.
    taken = {}

    def at_logprob(l3):
        M = -math.inf
        for i in range(V):
            if l3[i] > M:
                M = l3[i]
        Z = 0.0
        for i in range(V):
            Z = Z + math.exp(l3[i] - M)
        taken["M"], taken["Z"], taken["l"] = M, Z, l3

    chosen = spec_chain.run(l, p, history, (recent, recent_out), rng,
                            spec_chain.State() if state is None else state, at_logprob)
    l3, M, Z = taken["l"], taken["M"], taken["Z"]

    def logprob(c):
        return (l3[c] - M) - math.log(Z)

    #    Top-N: the N ids with the largest logprob, (logprob desc, id asc);
    #    -inf ones left out (a -inf logit, or a finite one so far below M
    #    that l - M overflows).
    #    The first N of that order are the N smallest by (-logprob, id).
    top = [[i, logprob(i)] for i in range(V)] if p["top_logprobs"] > 0 else []
    top = heapq.nsmallest(p["top_logprobs"], (a for a in top if a[1] != -math.inf),
                          key=lambda a: (-a[1], a[0]))

    # 4. Greedy (the temperature step with T = 0): no draw for the token;
    #    its processed logprob is 0.0.
    if chosen.greedy is not None:
        return Row(chosen.greedy, [chosen.greedy], {chosen.greedy: 1.0}, logprob,
                   lambda c: 0.0, top, chosen.draws)

    # 9. Softmax over the final K. The processed logprob of id c is
    #    (l[c] - M_K) - log(Z_K), a zero M_K taken as +0.0.
    lK, K = chosen.l, chosen.K
    M_K, _, Z_K = softmax_sums(lK, K)

    def processed(c):
        return (lK[c] - (M_K + 0.0)) - math.log(Z_K)

    return Row(None, K, chosen.q, logprob, processed, top, chosen.draws, chosen.after)


def sample(x, prompt, out, p, rng, state=None):
    """One token: steps 1 to 11, through the request's chain, updating the
    sequence's state (None: a fresh one). Returns (id, logprob, processed
    logprob, top-N [id, logprob] pairs); raises BadInput."""
    row = steps_1_to_9(x, prompt, out, p, rng, state)
    if row.greedy is not None:  # step 4: no draw
        return row.token(row.greedy)
    K, q = row.K, row.q

    # 10. Exactly one draw.
    u = rng.uniform_f64()

    # 11. Inverse CDF in ascending id order.
    token = row.token(inverse_cdf(K, q, u))
    if row.after is not None:
        row.after(token[0], token[2])
    return token


def inverse_cdf(K, q, u):
    """Step 11: ascending ids; if rounding leaves c below u, the largest id
    in K with q > 0."""
    c = 0.0
    for i in K:
        c = c + q[i]
        if u < c:
            return i
    for i in reversed(K):
        if q[i] > 0:
            return i
    raise AssertionError("unreachable: the largest logit in K has q = 1/Z > 0")


# ---------------------------------------------------------------- speculative.md


def dist(x, prompt, h, p):
    """dist(row, params, h): step 9's q[i] for every id i in K, 0.0 for every
    other id (a list of V); greedy: 1.0 at step 4's id."""
    spec_chain.check_fixed(p)
    return as_list(steps_1_to_9(x, prompt, h, p), len(x))


def as_list(row, V):
    """A row's q as V values, 0.0 outside K."""
    d = [0.0] * V
    for i in row.K:
        d[i] = row.q[i]
    return d


def draft_side(params):
    """The request's bias and mask apply to the target rows only (the
    library's rule): a draft row is sampled with none."""
    dp = dict(params)
    dp["logit_bias"] = {}
    dp["allowed_token_ids"] = None
    dp["banned_token_ids"] = []
    return dp


def check_count(field, rows, n, needed):
    if len(rows) != n:
        raise BadInput(f"{field}: {len(rows)} rows for {n if field == 'draft_logits' else n - 1} "
                       f"drafts; {needed}")


def check_lengths(field, rows, V):
    for j in range(len(rows)):
        if len(rows[j]) != V:
            raise BadInput(f"{field}[{j}]: {len(rows[j])} logits, but V = {V} "
                           "(every row has one length)")


def verify(target_rows, draft_rows, d, TP, DP, prompt, out, rng):
    """The page's steps A and B: (tokens, accepted, draws), each token
    (id, logprob, processed logprob, top-N) of its target row; DP None means
    TP. Raises BadInput before any draw (and emits nothing) on bad input."""
    gamma = len(d)
    if gamma < 1:
        raise BadInput("draft_ids: empty; verification needs at least one draft token")
    V = len(target_rows[0]) if target_rows else 0
    # A greedy target (A): T = 0 with no dynamic temperature. A row whose
    # chain ends greedy otherwise (T' = 0) is, in B, its one id with q = 1.
    greedy = TP["temperature"] == 0 and spec_chain.with_defaults(TP)["dynatemp_range"] == 0
    # The counts, then the lengths, as the library checks them.
    check_count("target_logits", target_rows, gamma + 1,
                f"{gamma + 1} (one more than the drafts) are needed")
    if not greedy:
        check_count("draft_logits", draft_rows, gamma, "a sampled target needs one per draft")
    check_lengths("target_logits", target_rows, V)
    if not greedy:
        check_lengths("draft_logits", draft_rows, V)
    check_ids("draft_ids", d, V)
    DP = draft_side(TP if DP is None else DP)
    spec_chain.check_fixed(TP)
    spec_chain.check_fixed(DP)

    def h(j):  # h_j: out followed by d_1 .. d_{j-1} (j counted from 1)
        return list(out) + list(d[:j - 1])

    tokens = []
    draws = 0

    # A. Greedy target: no draw; the first mismatch is replaced and ends it.
    if greedy:
        for j in range(1, gamma + 1):
            row = steps_1_to_9(target_rows[j - 1], prompt, h(j), TP)
            tokens.append(row.token(row.greedy))
            if d[j - 1] != row.greedy:
                return tokens, j - 1, 0
        row = steps_1_to_9(target_rows[gamma], prompt, h(gamma + 1), TP)
        tokens.append(row.token(row.greedy))
        return tokens, gamma, 0

    # B. Sampled target: every Q_j and its check before any draw.
    Q = []
    for j in range(1, gamma + 1):
        Q.append(dist(draft_rows[j - 1], prompt, h(j), DP))
        if not Q[j - 1][d[j - 1]] > 0:
            raise BadInput(f"draft_ids[{j - 1}] = {d[j - 1]}: its draft probability is 0 "
                           "(the draft distribution does not hold it)")
    for j in range(1, gamma + 1):
        # 1.
        row = steps_1_to_9(target_rows[j - 1], prompt, h(j), TP)
        P = as_list(row, V)
        Qj = Q[j - 1]
        a = P[d[j - 1]]
        b = Qj[d[j - 1]]
        # 2. One draw for every tested draft.
        u = rng.uniform_f64()
        draws = draws + 1
        # 3.
        if u < a / b:
            tokens.append(row.token(d[j - 1]))
            continue
        # 4. Rejected: the normalised residual (P when it is all zero).
        R = [0.0] * V
        for i in range(V):
            if P[i] - Qj[i] > 0:
                R[i] = P[i] - Qj[i]
        if all(R[i] == 0 for i in range(V)):
            R = list(P)
        Z_R = 0.0
        for i in range(V):
            Z_R = Z_R + R[i]
        r = [R[i] / Z_R for i in range(V)]
        # 5. One more draw, walked over the ids with R > 0.
        u2 = rng.uniform_f64()
        draws = draws + 1
        c = 0.0
        chosen = None
        for i in range(V):
            if R[i] > 0:
                c = c + r[i]
                if u2 < c:
                    chosen = i
                    break
        if chosen is None:
            chosen = max(i for i in range(V) if R[i] > 0)
        tokens.append(row.token(chosen))
        return tokens, j - 1, draws
    # Every draft accepted: the bonus token, one draw.
    tokens.append(sample(target_rows[gamma], prompt, h(gamma + 1), TP, rng))
    return tokens, gamma, draws + 1


# ---------------------------------------------------------------- replay


MAX_STEPS = 65536
NUMERIC = re.compile(r"-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?")
F64_MAX = sys.float_info.max


def to_f64(v, what):
    """A JSON number or a numeric string ("-inf", "2.88"), as an f64."""
    if isinstance(v, bool) or not isinstance(v, (int, float, str)):
        raise BadInput(f"{what}: not a number: {type(v).__name__}")
    if isinstance(v, str) and v not in ("inf", "-inf", "nan") and not NUMERIC.fullmatch(v):
        raise BadInput(f"{what}: not a numeric string: {v[:40]!r}")
    f = float(v)
    if math.isinf(f) and not (isinstance(v, str) and "inf" in v):
        raise BadInput(f"{what}: {v[:40]!r} is beyond the f64 range")
    return f


def to_f32(v, what="value"):
    """Rounds an f64 to the nearest f32 (ties to even), as a C cast does; a
    finite value beyond the f32 range is an error."""
    try:
        return struct.unpack("<f", struct.pack("<f", v))[0]
    except OverflowError:  # rounds beyond the largest f32
        raise BadInput(f"{what}: {v!r} is beyond the f32 range") from None


def to_f32s(values, what="values"):
    """to_f32 of each value, in one struct call for the whole list (the same
    rounding); the first value beyond the f32 range is named as to_f32 names
    it."""
    n = len(values)
    try:
        return list(struct.unpack(f"<{n}f", struct.pack(f"<{n}f", *values)))
    except OverflowError:
        return [to_f32(values[i], f"{what}[{i}]") for i in range(n)]


def checked_float(text):
    """json's number parsing, refusing numbers beyond the f64 range (the C++
    reader refuses such files too)."""
    f = float(text)
    if math.isinf(f):
        raise ValueError(f"number overflow parsing {text[:40]!r}")
    return f


def checked_int(text):
    """Integers beyond 64 bits are read as floats, as the C++ reader does."""
    v = int(text)
    return v if -(1 << 63) <= v <= U64 else checked_float(text)


def refuse_constant(name):
    raise ValueError(f"{name} is not JSON")


def unique_keys(pairs):
    """An object's pairs as a dict; a key given twice makes the file
    unreadable, as in the C++ reader."""
    out = {}
    for key, value in pairs:
        if key in out:
            raise ValueError(f"the key {json.dumps(key)} appears twice in one object")
        out[key] = value
    return out


def replay_value(v):
    """A float as replay lines write it: non-finite ones as the numeric
    strings "-inf", "inf", "nan" (JSON has no such numbers)."""
    if isinstance(v, float) and not math.isfinite(v):
        return "nan" if math.isnan(v) else "inf" if v > 0 else "-inf"
    if isinstance(v, list):
        return [replay_value(a) for a in v]
    return v


def brief(v):
    """A JSON value as the C++ reader's messages show it."""
    if isinstance(v, list):
        return f"an array of {len(v)} items"
    if isinstance(v, dict):
        return f"an object of {len(v)} keys"
    return json.dumps(v)


def to_int(v, what, lo, hi):
    if isinstance(v, bool) or not isinstance(v, int) or not lo <= v <= hi:
        raise BadInput(f"{what}: expected an integer in [{lo}, {hi}], got {brief(v)}")
    return v


def read_id(v, what, V):
    """An id in [0, V), as the C++ reader takes it (any int32 when V = 0),
    an integer outside it in the library's words."""
    if V > 0 and isinstance(v, int) and not isinstance(v, bool) and not 0 <= v < V:
        raise BadInput(f"{what} = {v}: outside [0, V) with V = {V}")
    return to_int(v, what, -(1 << 31), (1 << 31) - 1)


def read_ids(v, what, V):
    if not isinstance(v, list):
        raise BadInput(f"{what}: must be a list")
    return [read_id(v[j], f"{what}[{j}]", V) for j in range(len(v))]


CANONICAL_ID = re.compile(r"0|[1-9][0-9]*")


def read_bias(v, V):
    """logit_bias: an object whose keys are ids in canonical decimal (OpenAI's
    form: no sign, spaces or leading zeros), each below V."""
    if not isinstance(v, dict):
        raise BadInput("logit_bias: must be an object")
    bias = {}
    for key, b in v.items():
        if not CANONICAL_ID.fullmatch(key):
            raise BadInput(f"logit_bias key {json.dumps(key)}: not an id in canonical decimal "
                           '(digits, no sign, spaces or leading zeros: "0", "17")')
        if int(key) >= V:
            raise BadInput(f'logit_bias key "{key}": outside [0, V) with V = {V}')
        bias[int(key)] = to_f64(b, f"logit_bias[{key!r}]")
    return bias


def read_logits(v, what):
    """A row of logits: each read as f64, then rounded to f32. A finite float
    is its own f64 and "-inf" (a masked id) is -inf, as to_f64 reads them; a
    row where to_f64 raises is read again value by value, so that the first
    bad value (of either kind) is the one raised for."""
    if not isinstance(v, list):
        raise BadInput(f"{what}: must be a list")
    try:
        f64 = [a if type(a) is float and abs(a) <= F64_MAX
               else -math.inf if a == "-inf" else to_f64(a, what) for a in v]
    except Exception:  # noqa: BLE001 (the loop below raises it again, or an earlier one)
        return [to_f32(to_f64(v[i], f"{what}[{i}]"), f"{what}[{i}]") for i in range(len(v))]
    return to_f32s(f64, what)


def read_params(given, V, what="params", lists=True):
    """A params object over DEFAULTS, with the chain's fields
    (spec_chain.CHAIN_DEFAULTS) only where given; without `lists`, the bias
    and mask fields are refused (a draft side has none)."""
    params = dict(DEFAULTS)
    if not isinstance(given, dict):
        raise BadInput(f"{what}: must be an object")
    for name, value in given.items():
        if (name not in DEFAULTS and name not in spec_chain.CHAIN_DEFAULTS
                or (not lists and name in LISTS)):
            raise BadInput(("" if what == "params" else f"{what}: ")
                           + f"params.{name}: unknown sampling parameter")
        if name in ("top_k", "top_logprobs", "penalty_last_n") + spec_chain.INTEGERS:
            params[name] = to_int(value, name, -(1 << 63), (1 << 63) - 1)
        elif name == "chain":
            params[name] = read_chain(value)
        elif name == "dry_sequence_breakers":
            if not isinstance(value, list):
                raise BadInput(f"{name}: must be a list of lists of ids")
            params[name] = [read_ids(value[j], f"{name}[{j}]", 0) for j in range(len(value))]
        elif name == "logit_bias":
            params[name] = read_bias(value, V)
        elif name in ("allowed_token_ids", "banned_token_ids"):
            params[name] = read_ids(value, name, V)
        else:
            params[name] = to_f64(value, name)
    return params


LISTS = ("logit_bias", "allowed_token_ids", "banned_token_ids")


def read_chain(v):
    """A preset name or a list of step names (checked by the sampler)."""
    if isinstance(v, str):
        return v
    if not isinstance(v, list) or not all(isinstance(a, str) for a in v):
        raise BadInput("chain: not a preset name or a list of step names")
    return list(v)


# A case's fields: the request's, and the expected results it may carry
# (the golden fixture's), not read.
CASE_FIELDS = {"name", "logits", "params", "prompt", "seed", "steps",
               "ids", "logprobs", "processed_logprobs", "top_logprobs", "error"}


VERIFICATION_FIELDS = {"name", "target_logits", "draft_logits", "draft_ids", "params",
                       "draft_params", "prompt", "generated", "seed", "ids", "logprobs",
                       "processed_logprobs", "top_logprobs", "accepted", "rng_draws_consumed"}


def read_case(case):
    """(logits, prompt, params, seed, steps) of one replay case."""
    if not isinstance(case, dict):
        raise BadInput("a case must be an object")
    for name in case:
        if name not in CASE_FIELDS:
            raise BadInput(f"{name}: unknown case field")
    x = read_logits(case.get("logits"), "logits")
    params = read_params(case.get("params", {}), len(x))
    # Prompt ids as int32, as the C++ reader takes them; [0, V) is sample()'s
    # check (check_ids), so both sides print the sampler's message.
    prompt = read_ids(case.get("prompt", []), "prompt", 0)
    seed = to_int(case.get("seed"), "seed", 0, U64)
    steps = to_int(case.get("steps", 12), "steps", 0, MAX_STEPS)
    return x, prompt, params, seed, steps


def read_rows(case, field):
    rows = case.get(field, [])
    if not isinstance(rows, list):
        raise BadInput(f"{field}: must be a list of rows")
    return [read_logits(rows[j], f"{field}[{j}]") for j in range(len(rows))]


def read_verification(case):
    """(target rows, draft rows, draft ids, TP, DP or None, prompt,
    generated, seed) of a case with "draft_ids"."""
    for name in case:
        if name not in VERIFICATION_FIELDS:
            raise BadInput(f"{name}: unknown case field")
    target = read_rows(case, "target_logits")
    draft = read_rows(case, "draft_logits")
    V = len(target[0]) if target else 0
    TP = read_params(case.get("params", {}), V)
    DP = (read_params(case["draft_params"], V, "draft_params", lists=False)
          if "draft_params" in case else None)
    d = read_ids(case["draft_ids"], "draft_ids", 0)
    prompt = read_ids(case.get("prompt", []), "prompt", 0)
    generated = read_ids(case.get("generated", []), "generated", 0)
    seed = to_int(case.get("seed"), "seed", 0, U64)
    return target, draft, d, TP, DP, prompt, generated, seed


def result_line(name, tokens, params):
    """{"name", "ids", "logprobs", "processed_logprobs"} (and "top_logprobs"
    when asked for) of the tokens."""
    result = {"name": name, "ids": [t[0] for t in tokens],
              "logprobs": [t[1] for t in tokens],
              "processed_logprobs": [t[2] for t in tokens]}
    if params["top_logprobs"] > 0:
        result["top_logprobs"] = [t[3] for t in tokens]
    return result


def replay_case(case):
    """The output object for one case."""
    name = case.get("name") if isinstance(case, dict) else None
    try:
        if isinstance(case, dict) and "draft_ids" in case:
            target, draft, d, TP, DP, prompt, generated, seed = read_verification(case)
            tokens, accepted, draws = verify(target, draft, d, TP, DP, prompt, generated,
                                             stream(seed, SAMPLE))
            result = result_line(name, tokens, TP)
            result["accepted"] = accepted
            result["rng_draws_consumed"] = draws
            return result
        x, prompt, params, seed, steps = read_case(case)
        rng = stream(seed, SAMPLE)
        state = spec_chain.State()  # mirostat's mu and adaptive-p's average, step to step
        ids, tokens = [], []
        for _ in range(steps):
            tokens.append(sample(x, prompt, ids, params, rng, state))
            ids.append(tokens[-1][0])
    except BadInput as e:
        return {"name": name, "error": str(e)}
    return result_line(name, tokens, params)


MAX_JSON_DEPTH = 32  # containers nested deeper make the file unreadable, as in C++


def nesting(doc):
    """The deepest nesting of arrays and objects in doc (a top-level one is 1)."""
    deepest, stack = 0, [(doc, 1)]
    while stack:
        v, level = stack.pop()
        children = v.values() if isinstance(v, dict) else v if isinstance(v, list) else None
        if children is None:
            continue
        deepest = max(deepest, level)
        # Only containers go on the stack: a row's numbers nest nothing.
        stack.extend((c, level + 1) for c in children if isinstance(c, (list, dict)))
    return deepest


def main(argv):
    if len(argv) != 3 or argv[1] != "replay":
        print("usage: spec_sampler.py replay FILE", file=sys.stderr)
        return 2
    try:
        with (open(argv[2], encoding="utf-8") if argv[2] != "-" else sys.stdin) as f:
            doc = json.load(f, parse_float=checked_float, parse_int=checked_int,
                            parse_constant=refuse_constant, object_pairs_hook=unique_keys)
        if nesting(doc) > MAX_JSON_DEPTH:
            raise ValueError(f"nested deeper than {MAX_JSON_DEPTH} levels")
        cases = doc["cases"]
        if not isinstance(cases, list):
            raise TypeError("cases must be a list")
    except (OSError, ValueError, KeyError, TypeError, RecursionError) as e:
        print(f"spec_sampler.py: cannot read {argv[2]}: {e}", file=sys.stderr)
        return 2
    for case in cases:
        line = {k: replay_value(v) for k, v in replay_case(case).items()}
        print(json.dumps(line, allow_nan=False), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
