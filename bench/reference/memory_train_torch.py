"""Reference implementation of memory.train in idiomatic PyTorch (CPU), as a researcher would write
it in a notebook: W an nn.Parameter (E and U fixed tensors, or parameters too for the learnable
model), all entries N(0, 1/d) at init; per step a batch of Zipf inputs from torch.multinomial, logits
(E[x] @ W.T) @ U.T (layer norm: h / sqrt(|h|^2 + 1e-6) before U), F.cross_entropy (mean over the
batch), zero_grad / backward / step with torch.optim.SGD or torch.optim.Adam (betas (0, 0): signSGD,
lr/d on W, lr/sqrt(d) on E and U). A single pass over T samples in consecutive batches.

Only the training loop is timed (tensors, optimizer and the final error are outside); median over
the repetitions, seed 1000 + rep. Cases as in bench/memory_train_bench.cpp:
  a  matrix, SGD lr 1, batch 1, T = 10^4      b  matrix, SGD lr 1, batch 1024, T = 204800
  c  matrix, Adam (0, 0) lr 1, batch 1, T = 10^4
  d  learnable + layer norm, SGD lr 1, batch 16, T = 32000
  e  matrix + layer norm, SGD lr 1, batch 16, T = 8000, d = 1000
  f  learnable, Adam (0, 0) lr 1, batch 16, T = 8000, d = 1000
Prints one JSON object.

Usage: memory_train_torch.py [reps=5] [threads=1] [cases=a,b,c,d] [dtype=float32]
"""
import json
import math
import statistics
import sys
import time

import torch
import torch.nn.functional as F

N, M, ALPHA = 100, 5, 2.0

CASES = {
    "a": dict(model="matrix", layernorm=False, optimizer="sgd", lr=1.0, batch=1, T=10_000),
    "b": dict(model="matrix", layernorm=False, optimizer="sgd", lr=1.0, batch=1024, T=1024 * 200),
    "c": dict(model="matrix", layernorm=False, optimizer="adam", lr=1.0, batch=1, T=10_000),
    "d": dict(model="learnable", layernorm=True, optimizer="sgd", lr=1.0, batch=16, T=16 * 2000),
    "e": dict(model="matrix", layernorm=True, optimizer="sgd", lr=1.0, batch=16, T=16 * 500, D=1000),
    "f": dict(model="learnable", layernorm=False, optimizer="adam", lr=1.0, batch=16, T=16 * 500, D=1000),
}


def train(model, layernorm, optimizer, lr, batch, T, seed, dtype=torch.float32, D=100):
    """Returns (seconds of the training loop, steps, error (5) at the end)."""
    torch.manual_seed(seed)
    x_all = torch.arange(N)
    p = (x_all + 1.0) ** -ALPHA
    p /= p.sum()
    labels = x_all % M
    W = torch.nn.Parameter(torch.randn(D, D, dtype=dtype) / D**0.5)
    E = torch.randn(N, D, dtype=dtype) / D**0.5
    U = torch.randn(M, D, dtype=dtype) / D**0.5
    if model == "learnable":
        E, U = torch.nn.Parameter(E), torch.nn.Parameter(U)
        groups = [{"params": [W], "scale": 1 / D}, {"params": [E, U], "scale": 1 / D**0.5}]
    else:
        groups = [{"params": [W], "scale": 1 / D}]
    if optimizer == "sgd":
        opt = torch.optim.SGD([q for g in groups for q in g["params"]], lr=lr)
    else:  # Adam with betas (0, 0) = signSGD, maximal-update step sizes
        opt = torch.optim.Adam([{"params": g["params"], "lr": lr * g["scale"]} for g in groups],
                               lr=lr, betas=(0.0, 0.0), eps=1e-8)

    steps = math.ceil(T / batch)
    t0 = time.perf_counter()
    for t in range(steps):
        b = min(batch, T - t * batch)
        x = torch.multinomial(p, b, replacement=True)
        y = labels[x]
        h = E[x] @ W.T
        if layernorm:
            h = h / torch.sqrt((h * h).sum(-1, keepdim=True) + 1e-6)
        logits = h @ U.T
        loss = F.cross_entropy(logits, y)
        opt.zero_grad()
        loss.backward()
        opt.step()
    seconds = time.perf_counter() - t0

    with torch.no_grad():
        h = E @ W.T
        if layernorm:
            h = h / torch.sqrt((h * h).sum(-1, keepdim=True) + 1e-6)
        wrong = (h @ U.T).argmax(dim=1) != labels
        error = float(p[wrong].sum())
    return seconds, steps, error


def main():
    reps = int(sys.argv[1]) if len(sys.argv) > 1 else 5
    threads = int(sys.argv[2]) if len(sys.argv) > 2 else 1
    which = (sys.argv[3] if len(sys.argv) > 3 else "a,b,c,d").split(",")
    dtype = getattr(torch, sys.argv[4] if len(sys.argv) > 4 else "float32")
    torch.set_num_threads(threads)
    out = {"impl": "torch", "torch": torch.__version__, "threads": torch.get_num_threads(), "reps": reps,
           "dtype": str(dtype).replace("torch.", ""), "cases": {}}
    for name in which:
        case = CASES[name]
        # Warm-up (allocator, autograd, kernels), untimed.
        train(**{**case, "T": min(case["T"], 100 * case["batch"])}, seed=1, dtype=dtype)
        times, errors, steps = [], [], 0
        for r in range(reps):
            seconds, steps, error = train(**case, seed=1000 + r, dtype=dtype)
            times.append(seconds)
            errors.append(error)
        out["cases"][name] = {"steps": steps, "seconds_per_step": statistics.median(times) / steps,
                              "seconds_reps": times, "errors": errors}
    print(json.dumps(out))


if __name__ == "__main__":
    main()
