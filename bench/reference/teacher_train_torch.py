"""Reference for bench/teacher_train_bench.cpp: one training step of a two-layer ReLU network of
width n on a batch of B inputs of dimension d, written as a researcher would in PyTorch (CPU,
float32): nn.Linear(d, n, bias=False) -> ReLU -> nn.Linear(n, 1, bias=False),
F.binary_cross_entropy_with_logits, torch.optim.Adam, zero_grad / backward / step. Medians over
repetitions of `steps` steps, after a warm-up. Prints one JSON object.

Usage: teacher_train_torch.py [reps=5] [threads=1] [cases=a,b]
"""
import json
import statistics
import sys
import time

import torch
import torch.nn.functional as F

CASES = {"a": dict(n=64, d=10, batch=64, steps=2000), "b": dict(n=4096, d=10, batch=1024, steps=50)}


def main():
    reps = int(sys.argv[1]) if len(sys.argv) > 1 else 5
    threads = int(sys.argv[2]) if len(sys.argv) > 2 else 1
    which = (sys.argv[3] if len(sys.argv) > 3 else "a,b").split(",")
    torch.set_num_threads(threads)
    torch.manual_seed(7)
    out = {"impl": "torch", "torch": torch.__version__, "threads": torch.get_num_threads(), "reps": reps, "cases": {}}
    for name in which:
        c = CASES[name]
        model = torch.nn.Sequential(torch.nn.Linear(c["d"], c["n"], bias=False), torch.nn.ReLU(),
                                    torch.nn.Linear(c["n"], 1, bias=False))
        opt = torch.optim.Adam(model.parameters(), lr=1e-3)
        x = torch.randn(c["batch"], c["d"])
        y = (torch.rand(c["batch"]) < 0.5).float()

        def step():
            loss = F.binary_cross_entropy_with_logits(model(x).squeeze(1), y)
            opt.zero_grad()
            loss.backward()
            opt.step()
            return loss

        for _ in range(20):
            step()
        times = []
        for _ in range(reps):
            t0 = time.perf_counter()
            for _ in range(c["steps"]):
                step()
            times.append((time.perf_counter() - t0) / c["steps"])
        out["cases"][name] = {**{k: c[k] for k in ("n", "d", "batch")}, "seconds_per_step": statistics.median(times)}
    print(json.dumps(out))


if __name__ == "__main__":
    main()
