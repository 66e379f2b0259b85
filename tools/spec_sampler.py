#!/usr/bin/env python3
"""spec/sampling.md and spec/pcg32.md, transcribed in plain Python.

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
carry its expected ids, logprobs, processed_logprobs and top_logprobs (not
read); another field is an error. A key given twice in one object makes
the file unreadable. Prints one JSON line per case, {"name", "ids",
"logprobs", "processed_logprobs"} (and "top_logprobs" when
params.top_logprobs > 0) or {"name", "error"}; a rejected case is a
result: exits 0, or 2 on an unreadable file.

Beyond the spec, the library's rules (README): params.logit_bias ({"id":
bias}, each key an id in canonical decimal), added to the widened logits
after step 1; allowed_token_ids (an empty one is an error) and
banned_token_ids, masking ids to -inf after the bias, before step 2;
top_logprobs (N in [0, 20]); the processed logprob of each token; and the
penalty window penalty_last_n (docs/sequence.md, "Penalty window"): 0 is
the spec's whole history; n > 0 applies the repetition penalty over the
distinct ids of the last n tokens of prompt followed by generated, and
presence and frequency over the counts in the last n generated tokens.
"""

import json
import math
import re
import struct
import sys

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


class BadInput(Exception):
    """An input the spec rules out; the case reports it instead of a token."""


def check_params(p):
    T = p["temperature"]
    if not math.isfinite(T) or T < 0:
        raise BadInput(f"temperature = {T!r}: must be finite and >= 0")
    if math.isnan(p["top_p"]) or p["top_p"] < 0:
        raise BadInput(f"top_p = {p['top_p']!r}: must be >= 0")
    if not 0 <= p["min_p"] <= 1:  # False for NaN too
        raise BadInput(f"min_p = {p['min_p']!r}: must be in [0, 1]")
    if p["top_k"] < 0:
        raise BadInput(f"top_k = {p['top_k']!r}: must be >= 0")
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
        raise BadInput("logits: empty")
    any_finite = False
    for i in range(len(x)):
        if math.isnan(x[i]) or x[i] == math.inf:
            raise BadInput(f"logits[{i}] = {x[i]!r}: must not be NaN or +inf")
        if x[i] != -math.inf:
            any_finite = True
    if not any_finite:
        raise BadInput("logits: every logit is -inf")


def check_ids(field, ids, V):
    for j in range(len(ids)):
        if not 0 <= ids[j] < V:
            raise BadInput(f"{field}[{j}] = {ids[j]}: outside [0, {V})")


# ---------------------------------------------------------------- the steps


def softmax_sums(l, K):
    """Step 9's M, e and Z over the kept set K (ascending ids)."""
    M = -math.inf
    for i in K:
        if l[i] > M:
            M = l[i]
    e = {}
    for i in K:
        e[i] = math.exp(l[i] - M)
    Z = 0.0
    for i in K:
        Z = Z + e[i]
    return M, e, Z


def softmax(l, K):
    """Step 9 over the kept set K (ascending ids): q[i] for each i in K."""
    M, e, Z = softmax_sums(l, K)
    q = {}
    for i in K:
        q[i] = e[i] / Z
    return q


def descending(l, K):
    """K in (l desc, id asc) order."""
    return sorted(K, key=lambda i: (-l[i], i))


def sample(x, prompt, out, p, rng):
    """One token: steps 1 to 11. Returns (id, logprob, processed logprob,
    top-N [id, logprob] pairs); raises BadInput."""
    check_params(p)
    V = len(x)
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
    T = p["temperature"]
    r = p["repetition_penalty"]
    a_p = p["presence_penalty"]
    a_f = p["frequency_penalty"]
    k = p["top_k"]
    top_p = p["top_p"]
    m = p["min_p"]

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
        raise BadInput("mask: every id with a finite logit is masked out")

    #    The penalty window (the library's rule): n > 0 keeps the last n
    #    tokens of prompt followed by out for step 2, the last n of out for
    #    step 3; 0 keeps everything (the spec).
    n = p["penalty_last_n"]
    history = prompt + out
    recent = history[len(history) - n:] if 0 < n < len(history) else history
    recent_out = out[len(out) - n:] if 0 < n < len(out) else out

    # 2. Repetition penalty over the distinct ids of prompt and out.
    if r != 1:
        for i in sorted(set(recent)):
            if l[i] > 0:
                l[i] = l[i] / r
            else:
                l[i] = l[i] * r

    # 3. Presence and frequency over the generated ids (count c > 0).
    if a_p != 0 or a_f != 0:
        count = {}
        for i in recent_out:
            count[i] = count.get(i, 0) + 1
        for i in sorted(count):
            l[i] = l[i] - a_f * count[i] - a_p
    for i in range(V):
        if math.isnan(l[i]) or l[i] == math.inf:
            raise BadInput(f"penalties make the logit of id {i} {l[i]!r}")

    #    The reported logprob: log_softmax over all V ids, as in step 9.
    M = -math.inf
    for i in range(V):
        if l[i] > M:
            M = l[i]
    if M == -math.inf:
        raise BadInput("penalties make every logit -inf")
    Z = 0.0
    for i in range(V):
        Z = Z + math.exp(l[i] - M)
    l3 = l  # step 5 builds a new list, so these stay the step-3 logits

    def logprob(c):
        return (l3[c] - M) - math.log(Z)

    #    Top-N: the N ids with the largest logprob, (logprob desc, id asc);
    #    -inf ones left out (a -inf logit, or a finite one so far below M
    #    that l - M overflows).
    top = [[i, logprob(i)] for i in range(V)]
    top = sorted((a for a in top if a[1] != -math.inf), key=lambda a: (-a[1], a[0]))
    top = top[:p["top_logprobs"]]

    # 4. Greedy: the largest l, ties to the lowest id; no draw. Its processed
    #    logprob is 0.0.
    if T == 0:
        best = 0
        for i in range(V):
            if l[i] > l[best]:
                best = i
        return best, logprob(best), 0.0, top

    # 5. Temperature.
    if M / T == math.inf or M / T == -math.inf:
        raise BadInput(f"temperature = {T!r}: too small, max(l) / T = {M / T!r}")
    l = [l[i] / T for i in range(V)]

    # K: ascending ids; an id whose logit is -inf never enters it. Read here,
    # after step 5: an id that only l / T made -inf would have q = 0 anyway,
    # so reading it after step 3 instead picks the same token.
    K = [i for i in range(V) if l[i] != -math.inf]

    # 6. Top-k: the first k ids in (l desc, id asc) order.
    if k != 0 and k < V:
        first_k = set(descending(l, K)[:k])
        K = [i for i in K if i in first_k]

    # 7. Top-p: walk (l desc, id asc) adding q; keep up to and including the
    #    first id where the running sum s reaches p.
    if top_p < 1:
        q = softmax(l, K)
        keep = set()
        s = 0.0
        for i in descending(l, K):
            keep.add(i)
            s = s + q[i]
            if s >= top_p:
                break
        K = [i for i in K if i in keep]

    # 8. Min-p: keep q[i] >= m * max(q), q over the current K.
    if m != 0:
        q = softmax(l, K)
        q_max = 0.0
        for i in K:
            if q[i] > q_max:
                q_max = q[i]
        K = [i for i in K if q[i] >= m * q_max]

    # 9. Softmax over the final K. The processed logprob of id c is
    #    (l[c] - M_K) - log(Z_K), a zero M_K taken as +0.0.
    q = softmax(l, K)
    M_K, _, Z_K = softmax_sums(l, K)

    def token(c):
        return c, logprob(c), (l[c] - (M_K + 0.0)) - math.log(Z_K), top

    # 10. Exactly one draw.
    u = rng.uniform_f64()

    # 11. Inverse CDF in ascending id order; if rounding leaves c below u,
    #     the largest id in K with q > 0.
    c = 0.0
    for i in K:
        c = c + q[i]
        if u < c:
            return token(i)
    for i in reversed(K):
        if q[i] > 0:
            return token(i)
    raise AssertionError("unreachable: the largest logit in K has q = 1/Z > 0")


# ---------------------------------------------------------------- replay


MAX_STEPS = 65536
NUMERIC = re.compile(r"-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?")


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


def to_int(v, what, lo, hi):
    if isinstance(v, bool) or not isinstance(v, int) or not lo <= v <= hi:
        raise BadInput(f"{what}: not an integer in [{lo}, {hi}]: {v!r}")
    return v


def read_id(v, what, V):
    """An id in [0, V), as the C++ reader takes it (any int32 when V = 0)."""
    return to_int(v, what, 0, V - 1) if V > 0 else to_int(v, what, -(1 << 31), (1 << 31) - 1)


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


# A case's fields: the request's, and the expected results it may carry
# (the golden fixture's), not read.
CASE_FIELDS = {"name", "logits", "params", "prompt", "seed", "steps",
               "ids", "logprobs", "processed_logprobs", "top_logprobs"}


def read_case(case):
    """(logits, prompt, params, seed, steps) of one replay case."""
    if not isinstance(case, dict):
        raise BadInput("a case must be an object")
    for name in case:
        if name not in CASE_FIELDS:
            raise BadInput(f"{name}: unknown case field")
    logits = case.get("logits")
    if not isinstance(logits, list):
        raise BadInput("logits: must be a list")
    x = [to_f32(to_f64(logits[i], f"logits[{i}]"), f"logits[{i}]")
         for i in range(len(logits))]
    params = dict(DEFAULTS)
    given = case.get("params", {})
    if not isinstance(given, dict):
        raise BadInput("params: must be an object")
    for name, value in given.items():
        if name not in DEFAULTS:
            raise BadInput(f"params: unknown field {name!r}")
        if name in ("top_k", "top_logprobs", "penalty_last_n"):
            params[name] = to_int(value, name, -(1 << 63), (1 << 63) - 1)
        elif name == "logit_bias":
            params[name] = read_bias(value, len(x))
        elif name in ("allowed_token_ids", "banned_token_ids"):
            params[name] = read_ids(value, name, len(x))
        else:
            params[name] = to_f64(value, name)
    # Prompt ids as int32, as the C++ reader takes them; [0, V) is sample()'s
    # check (check_ids), so both sides print the sampler's message.
    prompt = read_ids(case.get("prompt", []), "prompt", 0)
    seed = to_int(case.get("seed"), "seed", 0, U64)
    steps = to_int(case.get("steps", 12), "steps", 0, MAX_STEPS)
    return x, prompt, params, seed, steps


def replay_case(case):
    """The output object for one case."""
    name = case.get("name") if isinstance(case, dict) else None
    try:
        x, prompt, params, seed, steps = read_case(case)
        rng = stream(seed, SAMPLE)
        ids, logprobs, processed, tops = [], [], [], []
        for _ in range(steps):
            token, logprob, processed_logprob, top = sample(x, prompt, ids, params, rng)
            ids.append(token)
            logprobs.append(logprob)
            processed.append(processed_logprob)
            tops.append(top)
    except BadInput as e:
        return {"name": name, "error": str(e)}
    result = {"name": name, "ids": ids, "logprobs": logprobs,
              "processed_logprobs": processed}
    if params["top_logprobs"] > 0:
        result["top_logprobs"] = tops
    return result


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
        stack.extend((c, level + 1) for c in children)
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
