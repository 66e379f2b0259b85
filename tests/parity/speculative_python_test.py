#!/usr/bin/env python3
"""tools/spec_sampler.py reproduces spec/speculative.md's worked example.

Every figure the page prints (to its 5 digits) and every id, from the
transcription's own steps, without the C++. The --cli argument (given to
every script test) is accepted and not used.
"""

import argparse
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "tools"))
import spec_sampler as s  # noqa: E402

X = [[1.0, 3.0, 2.0, 3.0, -1.0], [0.5, 1.0, 2.5, 0.0, 1.0], [2.0, 0.0, 0.0, 0.0, 1.0]]
Y = [[1.0, 2.0, 2.0, 3.5, -1.0], [0.0, 1.0, 3.0, 0.0, 0.0]]
D = [3, 2]
TP = dict(s.DEFAULTS, top_k=3, top_p=0.9)

failures = []


def check(what, got, want):
    """got rounded to the page's 5 significant digits (lists elementwise)
    equals want."""
    def five(v):
        return float(f"{v:.5g}")
    rounded = [five(v) for v in got] if isinstance(got, list) else five(got)
    if rounded != want:
        failures.append(f"{what}: got {rounded} ({got}), the page says {want}")


def first_draws(seed, n):
    rng = s.stream(seed, s.SAMPLE)
    return [rng.uniform_f64() for _ in range(n)]


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--cli", help="not used")
    ap.parse_args()

    P1, Q1 = s.dist(X[0], [], [], TP), s.dist(Y[0], [], [], TP)
    check("P_1", P1, [0, 0.42232, 0.15536, 0.42232, 0])
    check("Q_1", Q1, [0, 0.15428, 0.15428, 0.69144, 0])
    check("a / b at position 1", P1[3] / Q1[3], 0.61078)
    R = [max(P1[i] - Q1[i], 0.0) for i in range(5)]
    check("R", R, [0, 0.26804, 0.0010816, 0, 0])
    Z_R = R[1] + R[2]
    check("Z_R", Z_R, 0.26912)
    check("c after id 1", R[1] / Z_R, 0.99598)
    u, u2 = first_draws(0, 2)
    check("seed 0: u", u, 0.80209)
    check("seed 0: u2", u2, 0.57531)
    tokens, accepted, draws = s.verify(X, Y, D, TP, None, [], [], s.stream(0, s.SAMPLE))
    if ([t[0] for t in tokens], accepted, draws) != ([1], 0, 2):
        failures.append(f"seed 0: ids, accepted, draws {[t[0] for t in tokens]}, "
                        f"{accepted}, {draws}; the page says [1], 0, 2")
    check("seed 0: logprobs", [t[1] for t in tokens], [-0.92487])

    P2, Q2 = s.dist(X[1], [], [3], TP), s.dist(Y[1], [], [3], TP)
    check("P_2", P2, [0, 0.15428, 0.69144, 0, 0.15428])
    check("Q_2", Q2, [0, 0.11920, 0.88080, 0, 0])
    check("a / b at position 2", P2[2] / Q2[2], 0.78501)
    check("bonus q", [v for v in s.dist(X[2], [], [3, 2], TP) if v > 0], [0.73106, 0.26894])
    check("seed 3: u, u, u", first_draws(3, 3), [0.47897, 0.34371, 0.36197])
    tokens, accepted, draws = s.verify(X, Y, D, TP, None, [], [], s.stream(3, s.SAMPLE))
    if ([t[0] for t in tokens], accepted, draws) != ([3, 2, 0], 2, 3):
        failures.append(f"seed 3: ids, accepted, draws {[t[0] for t in tokens]}, "
                        f"{accepted}, {draws}; the page says [3, 2, 0], 2, 3")
    check("seed 3: logprobs", [t[1] for t in tokens], [-0.92487, -0.50903, -0.57317])

    # The draw accounting: the request continues from the reported position.
    rng = s.stream(3, s.SAMPLE)
    s.verify(X, Y, D, TP, None, [], [], rng)
    if rng.uniform_f64() != first_draws(3, 4)[3]:
        failures.append("seed 3: the generator is not 3 draws on after the verification")

    for f in failures:
        print(f)
    print(f"{'pass' if not failures else 'fail'}: {len(failures)} differences from the page")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
