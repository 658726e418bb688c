"""Golden values for tests/factor/test_gated_mlp.cpp, computed with PyTorch (float32, CPU).

The gated MLP of Arnal et al. (2024), Sec. 4.1, written the obvious PyTorch way: nn.Embedding,
L blocks z + W2(g(W1 n(z)) * W3 n(z)) with n the RMS normalisation (eps 1e-6, no gain), logits
W_out(n(z)), no biases. Weights are set from formulas (the C++ test uses the same ones), so the
file records: the logits, the soft-target loss (KL) and its gradients, the hard-label
cross-entropy and its gradients, and every parameter after one torch.optim.Adam step (lr 0.01,
default betas and eps) on the soft-target gradient. For the gates silu and logistic.

Regenerate (needs Debian's python3-torch):
    /usr/bin/python3 tests/factor/golden/gated_mlp_golden.py > tests/factor/golden/gated_mlp_golden.txt
"""
import math

import torch
import torch.nn.functional as F

N, M, d, h, L = 5, 7, 6, 4, 2
B = 8


def formula(shape, f):
    n = math.prod(shape)
    return torch.tensor([f(k) for k in range(n)], dtype=torch.float64).reshape(shape).float()


def make_params():
    p = {"E": formula((N, d), lambda k: math.sin(0.37 * k + 0.5))}
    for l in range(L):
        p[f"W1_{l}"] = formula((h, d), lambda k: 0.5 * math.sin(0.41 * k + 1.0 + l))
        p[f"W3_{l}"] = formula((h, d), lambda k: 0.5 * math.cos(0.29 * k + 2.0 + l))
        p[f"W2_{l}"] = formula((d, h), lambda k: 0.5 * math.sin(0.53 * k + 3.0 + l))
    p["W_out"] = formula((M, d), lambda k: 0.5 * math.cos(0.31 * k + 4.0))
    return {k: torch.nn.Parameter(v) for k, v in p.items()}


def rms(z):
    return z / torch.sqrt(z.pow(2).mean(-1, keepdim=True) + 1e-6)


def forward(p, x, gate):
    g = F.silu if gate == "silu" else torch.sigmoid
    z = p["E"][x]
    for l in range(L):
        u = rms(z)
        z = z + (g(u @ p[f"W1_{l}"].T) * (u @ p[f"W3_{l}"].T)) @ p[f"W2_{l}"].T
    return rms(z) @ p["W_out"].T


def targets():
    t = torch.tensor([[math.exp(math.sin(1.7 * x + 0.9 * y)) for y in range(M)] for x in range(N)], dtype=torch.float64)
    return (t / t.sum(1, keepdim=True)).float()


def emit(name, t):
    v = t.detach().reshape(-1).tolist()
    print(name, len(v), " ".join(f"{a:.9g}" for a in v))


def main():
    torch.set_num_threads(1)
    P = targets()
    xs = torch.arange(N)
    bx = torch.tensor([(2 * b + 1) % N for b in range(B)])
    by = torch.tensor([(3 * b + 1) % M for b in range(B)])
    for gate in ("silu", "logistic"):
        p = make_params()
        logits = forward(p, xs, gate)
        emit(f"{gate}.logits", logits)
        # KL in double from the float32 logits (the C++ loss is accumulated in double too).
        lp = torch.log_softmax(logits.double(), 1)
        Pd = P.double()
        emit(f"{gate}.kl", ((Pd * (Pd.log() - lp)).sum(1).mean()).reshape(1))
        loss = -(P * torch.log_softmax(logits, 1)).sum(1).mean()
        loss.backward()
        for k, v in p.items():
            emit(f"{gate}.soft_grad.{k}", v.grad)
        opt = torch.optim.Adam(p.values(), lr=0.01)
        opt.step()
        for k, v in p.items():
            emit(f"{gate}.after_adam.{k}", v)
        p = make_params()
        logits = forward(p, bx, gate)
        emit(f"{gate}.ce", F.cross_entropy(logits.double(), by).reshape(1))
        F.cross_entropy(logits, by).backward()
        for k, v in p.items():
            emit(f"{gate}.hard_grad.{k}", v.grad)


if __name__ == "__main__":
    main()
