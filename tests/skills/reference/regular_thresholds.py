"""Golden values for tests/skills/test_density_evolution.cpp: BP thresholds of regular (l, r)
ensembles on the erasure channel, eps* = min over x in (0, 1] of x / (1 - (1 - x)^(r-1))^(l-1),
found by a fine grid and golden-section search (numpy only), independently of the C++ code.

Run: /usr/bin/python3 tests/skills/reference/regular_thresholds.py
"""
import numpy as np


def threshold(l, r):
    g = lambda x: x / (1 - (1 - x) ** (r - 1)) ** (l - 1)
    xs = np.linspace(1e-4, 1, 100_000)
    i = int(np.argmin(g(xs)))
    a, b = xs[max(i - 1, 0)], xs[min(i + 1, len(xs) - 1)]
    phi = (np.sqrt(5) - 1) / 2
    for _ in range(200):
        c, d = b - phi * (b - a), a + phi * (b - a)
        if g(c) < g(d):
            b = d
        else:
            a = c
    return g((a + b) / 2)


if __name__ == "__main__":
    for l, r in [(3, 6), (4, 8), (3, 4), (3, 5), (5, 10), (4, 6)]:
        print(f"({l}, {r}): {threshold(l, r):.10f}")
