"""A Python world with a planted scaling law, for the extrapolation benchmark on a user's world:
loss = E + A N^-alpha + B D^-beta times log-normal noise, D = C / (6 N) (the compute knob C)."""

import math

import scalinglab as sl


@sl.register_measure(
    "planted.loss", summary="a planted Chinchilla law with log-normal noise",
    params=[sl.param("N", "real", 1e3, "model size (the size knob)", min=1, max=1e12, same_world=True),
            sl.param("C", "real", 1e9, "compute budget (the data knob): D = C / (6 N)", min=6, max=1e30),
            sl.param("noise", "real", 0.01, "standard deviation of the log noise", min=0, max=1)],
    metrics={"loss": "E + A N^-0.34 + B D^-0.28 (E = 1.7, A = 400, B = 410), noisy"},
    check=lambda p: None)
def planted(p, rng):
    d = p.C / (6 * p.N)
    if d < 1:
        raise ValueError("fewer than one token: C < 6 N")
    return {"loss": (1.7 + 400 * p.N ** -0.34 + 410 * d ** -0.28) * math.exp(p.noise * rng.standard_normal())}
