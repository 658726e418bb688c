"""Reference implementation of memory.error in idiomatic PyTorch (CPU), as a researcher would
write it in a notebook: draw embeddings, build W_q = sum_x q(x) u_{f(x)} e_x^T as a d x d matrix,
score every input and count the p-mass of mistakes. Prints one JSON object (median seconds).

Usage: memory_error_torch.py [reps] [threads]
"""
import json
import statistics
import sys
import time

import torch

N, M, D, ALPHA = 10_000, 100, 1024, 2.0


def memory_error(p, labels, q, generator):
    E = torch.randn(N, D, generator=generator) / D**0.5
    U = torch.nn.functional.normalize(torch.randn(M, D, generator=generator), dim=1)
    W = (U[labels] * q[:, None]).T @ E  # d x d: sum_x q(x) u_{f(x)} e_x^T
    scores = E @ W.T @ U.T  # N x M
    correct = scores.argmax(dim=1) == labels
    return float(p[~correct].sum())


def small_run(generator, N=100, M=5, d=64, T=1000, alpha=2.0):
    """One run of the whole measure at small sizes: sample T Zipf inputs, store the seen ones (q0)."""
    x = torch.arange(N)
    p = (x + 1.0) ** -alpha
    p /= p.sum()
    labels = x % M
    sample = torch.multinomial(p, T, replacement=True, generator=generator)
    q = (torch.bincount(sample, minlength=N) > 0).float()
    E = torch.randn(N, d, generator=generator) / d**0.5
    U = torch.nn.functional.normalize(torch.randn(M, d, generator=generator), dim=1)
    W = (U[labels] * q[:, None]).T @ E
    scores = E @ W.T @ U.T
    correct = scores.argmax(dim=1) == labels
    return float(p[~correct].sum())


def main():
    reps = int(sys.argv[1]) if len(sys.argv) > 1 else 7
    threads = int(sys.argv[2]) if len(sys.argv) > 2 else 1
    torch.set_num_threads(threads)
    x = torch.arange(N)
    p = (x + 1.0) ** -ALPHA
    p /= p.sum()
    labels = x % M
    q = torch.ones(N)
    g = torch.Generator().manual_seed(0)
    times, err = [], 0.0
    for _ in range(reps):
        t0 = time.perf_counter()
        err = memory_error(p, labels, q, g)
        times.append(time.perf_counter() - t0)
    small_runs, small_times, small_err = 2000, [], 0.0
    for _ in range(reps):
        t0 = time.perf_counter()
        for _ in range(small_runs):
            small_err += small_run(g)
        small_times.append((time.perf_counter() - t0) / small_runs)
    print(json.dumps({"impl": "torch", "threads": threads, "reps": reps, "error": err,
                      "seconds_total": statistics.median(times), "torch": torch.__version__,
                      "small_seconds_per_run": statistics.median(small_times),
                      "small_error": small_err / (small_runs * reps)}))


if __name__ == "__main__":
    main()
