"""Hutter (2021), "Learning Curve Theory" (arXiv:2102.04074): the memorising learner on Zipf features.

Features i = 1, 2, ... arrive with probabilities theta_i = i^-alpha / zeta(alpha) (alpha > 1). The
learner memorises every feature it has seen (with its label, noise-free), so after n samples it
errs exactly on the features it has not seen: its test error is the unseen mass
1 - sum_{i seen} theta_i, and its expectation is E_n = sum_i theta_i (1 - theta_i)^n. For large n,
E_n ~ Gamma(1 - 1/alpha) zeta(alpha)^(-1/alpha) / alpha * n^-beta with beta = 1 - 1/alpha.

    python3 -m scalinglab run examples/worlds/hutter.toml --world examples/worlds/hutter.py
"""

import math

import numpy as np

import scalinglab as sl

GEOMETRIC_RATIO = 0.9  # the wrong model's light tail: theta_i = (1 - q) q^(i-1)


def zeta(a):
    """Riemann zeta(a), a > 1, by Euler-Maclaurin from N = 100 (error below 1e-14)."""
    n = 100
    k = np.arange(1, n, dtype=float)
    return (math.fsum(k ** -a) + n ** (1 - a) / (a - 1) + 0.5 * n ** -a + a * n ** (-a - 1) / 12
            - a * (a + 1) * (a + 2) * n ** (-a - 3) / 720)


def probabilities(p, i):
    """theta_i for the features i (an array of integers >= 1)."""
    i = np.asarray(i, dtype=float)
    if p.law == "geometric":
        return (1 - GEOMETRIC_RATIO) * GEOMETRIC_RATIO ** (i - 1)
    return i ** -p.alpha / zeta(p.alpha)


PARAMS = [
    sl.param("n", "int", 1000, "samples seen (every n of a run sees the same sample sequence: one learning curve)",
             min=1, max=1e7, same_world=True),
    sl.param("alpha", "real", 2.0, "Zipf exponent of the features' law, theta_i ~ i^-alpha", min=1.25, max=8),
    sl.param("law", "choice", "zipf", "the features' law: zipf, or geometric (ratio 0.9: a light tail, the wrong "
             "model of the exponent claim; alpha is then unused)", choices=["zipf", "geometric"]),
]


def expected_error(p):
    """E_n = sum_i theta_i (1 - theta_i)^n: the first K terms summed, the rest (n theta_i <= 0.01 there)
    by the midpoint integral of theta (1 - n theta) (Zipf) or in closed form (geometric)."""
    n = p.n
    if p.law == "geometric":
        q = GEOMETRIC_RATIO
        k = int(math.log(1e-300) / math.log(q))  # theta_k underflows beyond
        th = probabilities(p, np.arange(1, k + 1))
        return {"error": math.fsum(th * np.exp(n * np.log1p(-th)))}
    a, c = p.alpha, 1 / zeta(p.alpha)
    k = int(max(1e5, math.ceil((100 * n * c) ** (1 / a))))
    th = c * np.arange(1, k + 1, dtype=float) ** -a
    head = math.fsum(th * np.exp(n * np.log1p(-th)))
    m = k + 0.5
    tail = c * m ** (1 - a) / (a - 1) - n * c * c * m ** (1 - 2 * a) / (2 * a - 1)
    return {"error": head + tail}


@sl.register_measure(
    "hutter.error",
    summary="test error of the memorising learner after n Zipf samples (Hutter 2021)",
    details="Features i >= 1 drawn with theta_i ~ i^-alpha; the learner memorises what it has seen and "
            "errs on the unseen mass 1 - sum_{seen} theta_i, computed exactly per run. The expected error is "
            "E_n = sum_i theta_i (1 - theta_i)^n ~ n^-(1 - 1/alpha) (hutter.error_theory).",
    params=PARAMS,
    metrics={"error": "unseen probability mass after n samples (the test error)",
             "distinct": "distinct features seen"},
    work="30*n",
    memory="40*n",
    theory=expected_error,
    theory_metrics=["error"],
)
def hutter_error(p, rng):
    if p.law == "geometric":
        x = rng.geometric(1 - GEOMETRIC_RATIO, size=p.n)
    else:
        x = rng.zipf(p.alpha, size=p.n)
    seen = np.unique(x)
    return {"error": 1.0 - math.fsum(probabilities(p, seen)), "distinct": float(seen.size)}


if __name__ == "__main__":
    print(sl.eval("hutter.error", n=1000, alpha=2.0, runs=20)["metrics"]["error"])
    print(sl.eval("hutter.error_theory", n=1000, alpha=2.0)["metrics"]["error"])
