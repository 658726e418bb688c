"""Reference for the factor-model training benchmark: one training step of a residual gated MLP that
learns a conditional distribution p(y|x) over N inputs and M outputs, written as a researcher would
in PyTorch (CPU, float32).

Model: nn.Embedding(N, d) input embedding (default N(0, 1) init), then L residual blocks
    z <- z + W2(silu(W1 n(z)) * W3 n(z)),   W1, W3 = nn.Linear(d, h, bias=False), W2 = nn.Linear(h, d, bias=False)
with n(z) = z / sqrt(mean(z^2, last dim) + 1e-6) (RMS norm, no learnable gain), and logits
W_out(n(z)) with W_out = nn.Linear(d, M, bias=False). torch.optim.Adam(lr=3e-2), defaults otherwise.

Cases (each timed as zero_grad / forward / loss / backward / step):
  compression  full batch x = arange(N) against fixed soft targets P (rows of softmax(3 randn(N, M)));
               loss = -(P * log_softmax(logits)).sum(1).mean() (soft-target cross-entropy; same
               gradient as the KL).
  single_pass  a batch of 8192 pre-sampled (x, y) pairs, x uniform in [0, N), y uniform in [0, M);
               loss = F.cross_entropy(logits, y).
Both use N = M = 4096, d = 64, h = 128, L = 1. After a warm-up of 3 steps, reps repetitions of `steps`
steps; the median seconds per step is reported. flops_per_step is the idealised count
3 * (6 L d h + 2 d M) * batch (forward per sample 6 L d h + 2 d M, backward twice the forward).
Prints one JSON object.

Usage: factor_train_torch.py [reps=5] [threads=1] [cases=compression,single_pass] [steps]
"""
import json
import statistics
import sys
import time

import torch
import torch.nn.functional as F

CASES = {
    "compression": dict(N=4096, M=4096, d=64, h=128, L=1, batch=4096, steps=5),
    "single_pass": dict(N=4096, M=4096, d=64, h=128, L=1, batch=8192, steps=5),
}
WARMUP = 3


def rms_norm(z):
    return z * torch.rsqrt(z.pow(2).mean(-1, keepdim=True) + 1e-6)


class Block(torch.nn.Module):
    def __init__(self, d, h):
        super().__init__()
        self.w1 = torch.nn.Linear(d, h, bias=False)
        self.w3 = torch.nn.Linear(d, h, bias=False)
        self.w2 = torch.nn.Linear(h, d, bias=False)

    def forward(self, z):
        u = rms_norm(z)
        return z + self.w2(F.silu(self.w1(u)) * self.w3(u))


class FactorModel(torch.nn.Module):
    def __init__(self, N, M, d, h, L):
        super().__init__()
        self.emb = torch.nn.Embedding(N, d)
        self.blocks = torch.nn.ModuleList(Block(d, h) for _ in range(L))
        self.out = torch.nn.Linear(d, M, bias=False)

    def forward(self, x):
        z = self.emb(x)
        for block in self.blocks:
            z = block(z)
        return self.out(rms_norm(z))


def main():
    reps = int(sys.argv[1]) if len(sys.argv) > 1 else 5
    threads = int(sys.argv[2]) if len(sys.argv) > 2 else 1
    which = (sys.argv[3] if len(sys.argv) > 3 else "compression,single_pass").split(",")
    steps_override = int(sys.argv[4]) if len(sys.argv) > 4 else None
    torch.set_num_threads(threads)
    torch.manual_seed(7)
    out = {"impl": "torch", "torch": torch.__version__, "threads": torch.get_num_threads(), "reps": reps, "cases": {}}
    for name in which:
        c = CASES[name]
        steps = steps_override or c["steps"]
        N, M, d, h, L, batch = (c[k] for k in ("N", "M", "d", "h", "L", "batch"))
        model = FactorModel(N, M, d, h, L)
        opt = torch.optim.Adam(model.parameters(), lr=3e-2)
        if name == "compression":
            x = torch.arange(N)
            P = torch.softmax(3 * torch.randn(N, M), dim=1)

            def loss_fn(logits):
                return -(P * F.log_softmax(logits, dim=1)).sum(1).mean()
        else:
            x = torch.randint(0, N, (batch,))
            y = torch.randint(0, M, (batch,))

            def loss_fn(logits):
                return F.cross_entropy(logits, y)

        def step():
            opt.zero_grad()
            loss = loss_fn(model(x))
            loss.backward()
            opt.step()
            return loss

        for _ in range(WARMUP):
            step()
        times = []
        for _ in range(reps):
            t0 = time.perf_counter()
            for _ in range(steps):
                step()
            times.append((time.perf_counter() - t0) / steps)
        flops = 3 * (6 * L * d * h + 2 * d * M) * batch
        out["cases"][name] = {**{k: c[k] for k in ("N", "M", "d", "h", "L", "batch")}, "steps": steps,
                              "flops_per_step": flops, "seconds_per_step": statistics.median(times)}
    print(json.dumps(out))


if __name__ == "__main__":
    main()
