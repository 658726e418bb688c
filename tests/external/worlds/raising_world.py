"""A Python world for the tests: a draw from the lab's generator; raises at x = 13; a check."""

import scalinglab as sl


def _check(p):
    if p.x > 50 and p.k > 5:
        raise ValueError("x > 50 with k > 5 is refused")


@sl.register_measure("pytoy.draw", summary="x times a uniform draw; raises at x = 13",
                     params=[sl.param("x", "real", 1.0, "scale", min=0, max=100),
                             sl.param("k", "int", 3, "series length", min=1, max=10)],
                     metrics={"value": "x times a draw", "curve": {"doc": "k draws", "series": True}},
                     work="k", check=_check)
def draw(p, rng):
    if p.x == 13:
        raise ZeroDivisionError("thirteen is unlucky")
    return {"value": p.x * rng.random(), "curve": list(rng.random(p.k))}
