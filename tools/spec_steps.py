"""The chain's steps over the kept set, transcribed from spec/sampling.md and
docs/llama-samplers.md: plain Python floats (IEEE f64), math.exp and
math.log, left-to-right sums over ids in ascending order, ties to the lower
id. Each step takes the logits l (a list of V floats) and the kept set K
(ascending ids) and returns the new K or changes l over K; nothing else.

Python raises where IEEE arithmetic gives an infinity or a NaN (exp
overflowing, log(0), x / 0); the steps that can meet those use ieee_exp,
ieee_log and ieee_div, which return what C's exp, log and / do.
"""

import math


class BadInput(Exception):
    """An input the spec rules out; the case reports it instead of a token."""


LN2 = math.log(2.0)


def ieee_exp(x):
    if math.isnan(x):
        return x
    try:
        return math.exp(x)
    except OverflowError:
        return math.inf


def ieee_log(x):
    if math.isnan(x) or x < 0:
        return math.nan
    return -math.inf if x == 0 else math.log(x)


def ieee_div(a, b):
    if b != 0:
        return a / b
    if a == 0 or math.isnan(a):
        return math.nan
    return math.copysign(math.inf, a) * math.copysign(1.0, b)


def power(x, y):
    """pow(x, y) = exp(y * log(x)), the page's one power."""
    return ieee_exp(y * ieee_log(x))


# ---------------------------------------------------------------- softmax


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


def log_probs(l, K):
    """q and lp[i] = (l[i] - M) - log(Z) over K (log q without underflow)."""
    M, e, Z = softmax_sums(l, K)
    q, lp = {}, {}
    log_Z = math.log(Z)
    for i in K:
        q[i] = e[i] / Z
        lp[i] = (l[i] - M) - log_Z
    return q, lp


def entropy(q, lp, K):
    """H = -(sum over K of q[i] * lp[i]), ascending ids."""
    s = 0.0
    for i in K:
        s = s + q[i] * lp[i]
    return -s


def descending(l, K):
    """K in (l desc, id asc) order."""
    return sorted(K, key=lambda i: (-l[i], i))


def keep(K, ids):
    """The ids of K that are in ids, ascending."""
    kept = set(ids)
    return [i for i in K if i in kept]


# ---------------------------------------------------------------- the spec's steps


def penalties(l, recent, recent_out, r, a_p, a_f):
    """Steps 2 and 3 over the window's ids (changes l)."""
    if r != 1:
        for i in sorted(set(recent)):
            if l[i] > 0:
                l[i] = l[i] / r
            else:
                l[i] = l[i] * r
    if a_p != 0 or a_f != 0:
        count = {}
        for i in recent_out:
            count[i] = count.get(i, 0) + 1
        for i in sorted(count):
            l[i] = l[i] - a_f * count[i] - a_p


def top_k(l, K, k):
    """Step 6: the first k ids of (l desc, id asc)."""
    if k == 0 or k >= len(K):
        return K
    return keep(K, descending(l, K)[:k])


def top_p(l, K, p, min_keep):
    """Step 7: up to and including the first id where s >= p, and at least
    min_keep ids."""
    q = softmax(l, K)
    kept = []
    s = 0.0
    for i in descending(l, K):
        kept.append(i)
        s = s + q[i]
        if s >= p and len(kept) >= min_keep:
            break
    return keep(K, kept)


def min_p(l, K, m, min_keep):
    """Step 8: q[i] >= m * max(q); at least the first min_keep of order K."""
    q = softmax(l, K)
    q_max = 0.0
    for i in K:
        if q[i] > q_max:
            q_max = q[i]
    n = 0
    for i in K:
        if q[i] >= m * q_max:
            n = n + 1
    return keep(K, descending(l, K)[:max(n, min_keep)])


# ---------------------------------------------------------------- llama.cpp's samplers


def top_n_sigma(l, K, n):
    """Keep l >= max - n * sigma (population sigma over K)."""
    M = -math.inf
    S = 0.0
    for i in K:
        if l[i] > M:
            M = l[i]
        S = S + l[i]
    mean = S / len(K)
    A = 0.0
    for i in K:
        A = A + (l[i] - mean) * (l[i] - mean)
    sigma = math.sqrt(A / len(K)) if not math.isnan(A) else math.nan
    t = M - n * sigma
    if math.isnan(t):
        return K
    return [i for i in K if l[i] >= t]


def typical(l, K, p, min_keep):
    """Locally typical: order by |-lp - H|, keep up to the first s > p."""
    q, lp = log_probs(l, K)
    H = entropy(q, lp, K)
    order = sorted(K, key=lambda i: (abs(-lp[i] - H), i))
    kept = []
    s = 0.0
    for i in order:
        kept.append(i)
        s = s + q[i]
        if s > p and len(kept) >= min_keep:
            break
    return keep(K, kept)


def xtc(l, K, u, probability, threshold, min_keep):
    """Given the step's draw u: when u < probability, remove every id with
    q >= threshold but the last of them in order K, if at least two."""
    if not u < probability:
        return K
    q = softmax(l, K)
    above = [i for i in descending(l, K) if q[i] >= threshold]
    if len(above) >= 2 and len(K) - (len(above) - 1) >= min_keep:
        removed = set(above[:-1])
        return [i for i in K if i not in removed]
    return K


def dry_restart_limit(w, breakers):
    """R: the window tokens after the breaker occurrence that starts last
    (the longest of those), or len(w) when none occurs."""
    n = len(w)
    for s in range(n - 1, -1, -1):
        longest = -1
        for b in breakers:
            k = len(b) - 1
            if k > longest and s + k <= n - 1 and list(w[s:s + k + 1]) == list(b):
                longest = k
        if longest >= 0:
            return n - 1 - (s + longest)
    return n


def dry_lengths(w, breakers, allowed_length):
    """{id: len}: for each end e, the longest suffix of w also ending at e
    (capped by R); the id after e gets the largest such length >= a.
    Written as the definition (quadratic), not as llama.cpp's Z-algorithm."""
    n = len(w)
    R = dry_restart_limit(w, breakers)
    lengths = {}
    for e in range(n - 1):
        L = 0
        while L < e + 1 and w[e - L] == w[n - 1 - L]:
            L = L + 1
        L = min(L, R)
        if L >= allowed_length:
            c = w[e + 1]
            lengths[c] = max(lengths.get(c, L), L)
    return lengths


DRY_BASE_CAP = 1.00000095367431640625  # the float 1.000001f
FLOAT_MAX_LOG = 88.72283935546875  # the float 88.7228391f


def dry(l, K, history, multiplier, base, allowed_length, last_n, breakers):
    """The DRY penalty over the window of the last last_n tokens (changes l)."""
    w = history[len(history) - last_n:] if last_n < len(history) else history
    lengths = dry_lengths(w, breakers, allowed_length)
    single = {b[0] for b in breakers if len(b) == 1}
    cap = math.trunc(FLOAT_MAX_LOG / math.log(base)) if base > DRY_BASE_CAP else 0
    for c in K:
        if c in lengths and c not in single:
            x = lengths[c] - allowed_length
            if cap > 0 and x > cap:
                x = cap
            l[c] = l[c] - multiplier * power(base, float(x))


def dynamic_temperature(l, K, T, delta, exponent):
    """T' for temp_ext, or None when |K| = 1 (the step changes nothing)."""
    if len(K) == 1:
        return None
    q, lp = log_probs(l, K)
    eta = entropy(q, lp, K) / math.log(float(len(K)))
    if exponent == 0:
        w = 1.0
    elif eta == 0:
        w = 0.0
    else:
        w = ieee_exp(exponent * math.log(eta))
    T_min = max(0.0, T - delta)
    T_max = T + delta
    return T_min + (T_max - T_min) * w


def mirostat_k(l, K, mu, m, V):
    """Mirostat v1's k from the Zipf estimate over the top m ids."""
    order = descending(l, K)
    J = min(m - 1, len(K) - 1)
    if J == 0:
        return 1
    S_tb = 0.0
    S_tt = 0.0
    for j in range(J):
        t = math.log(float(j + 2) / float(j + 1))
        b = l[order[j]] - l[order[j + 1]]
        S_tb = S_tb + t * b
        S_tt = S_tt + t * t
    s = S_tb / S_tt
    eps = s - 1
    two_mu = ieee_exp(mu * LN2)
    if eps != 0:
        y = ieee_div(eps * two_mu, 1 - ieee_exp(-eps * math.log(float(V))))
    else:
        y = two_mu / math.log(float(V))
    k = ieee_exp(ieee_div(1.0, s) * ieee_log(y))
    if math.isnan(k) or k < 1:
        return 1
    return len(K) if k >= len(K) else math.floor(k)


def mirostat_v1(l, K, mu, m, V):
    """The first k ids of order K."""
    return keep(K, descending(l, K)[:mirostat_k(l, K, mu, m, V)])


def mirostat_v2(l, K, mu):
    """The ids whose surprise -lp / LN2 is <= mu; the first of order K if none."""
    _, lp = log_probs(l, K)
    kept = [i for i in K if -lp[i] / LN2 <= mu]
    return kept if kept else [descending(l, K)[0]]


def adaptive_logits(l, K, alpha):
    """Adaptive-p's transform: (new logits, the original q over K)."""
    q = softmax(l, K)
    t = list(l)
    for i in K:
        d = abs(q[i] - alpha) / 0.3
        t[i] = 5 - ((10 * d) * d) / (1 + d)
    return t, q
