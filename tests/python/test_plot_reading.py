"""Figures a notebook reader can read: a results folder of a dict sweep drawn without being told
what to draw, bands in their curves' colours (and said when thinner than the line), and the IsoFLOP
slices of a frontier on a log loss axis."""
import numpy as np
import pytest

matplotlib = pytest.importorskip("matplotlib")
matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
from matplotlib.colors import to_rgb  # noqa: E402

import scalinglab as sl  # noqa: E402
from scalinglab._plot_style import band_alpha  # noqa: E402


@pytest.fixture(autouse=True)
def close_figures():
    yield
    plt.close("all")


def lines(ax):
    return [line for line in ax.get_lines() if len(line.get_xdata())]


def legend_texts(ax):
    return [t.get_text() for t in ax.get_legend().get_texts()]


def test_a_dict_sweep_without_plot_is_drawn_against_its_grid_axis(tmp_path):
    one = tmp_path / "one"
    sl.run({"measure": "memory.error", "grid": {"d": [8, 16]}, "params": {"N": 20}, "runs": 2}, out=one,
           progress=False, frame=False)
    ax = sl.plot(one).axes[0]
    assert (ax.get_xlabel(), ax.get_ylabel()) == ("d", "error")  # the grid axis, the first metric
    assert [list(line.get_xdata()) for line in lines(ax)] == [[8, 16]]
    # Several axes: the next is the series, the others are held at their first value, said so.
    three = tmp_path / "three"
    sl.run({"measure": "memory.error", "grid": {"scheme": ["q0", "rho"], "d": [8, 16], "T": [10, 100]},
            "params": {"N": 20}, "runs": 1}, out=three, progress=False, frame=False)
    ax = sl.plot(three).axes[0]
    assert ax.get_xlabel() == "d" and [line.get_label() for line in lines(ax)] == ["scheme = q0", "scheme = rho"]
    assert [t.get_text() for t in ax.texts] == ["drawn at T = 10 (the sweep varies it too: see where=)"]
    # A sweep of one point varies nothing to draw against.
    point = tmp_path / "point"
    sl.run({"measure": "memory.error", "params": {"N": 20}}, out=point, progress=False, frame=False)
    with pytest.raises(ValueError, match="varies no parameter holding numbers"):
        sl.plot(point)


def seven(sem):
    """Seven curves of five points, each with a std and a sem."""
    d = np.tile([8.0, 16, 32, 64, 128], 7)
    P = np.repeat(np.arange(7), 5)
    error = 0.5 / (1 + 0.2 * P) * (d / 8) ** -0.3
    return {"d": d, "P": P, "error": error, "error_std": np.full(35, 0.08), "error_sem": np.asarray(sem, float),
            "bound": 0.9 * error}


def test_each_band_takes_its_curves_colour_lighter_with_more_curves():
    ax = sl.plot(seven(np.full(35, 0.01)), "d", ["error", "bound"], "P", band="std", log="x", theory="bound").axes[0]
    bands, curves = ax.collections, lines(ax)
    simulations = [line for line in curves if line.get_linestyle() == "-"]
    assert len(bands) == len(simulations) == 7  # theory has no band
    for band, line in zip(bands, simulations):
        assert to_rgb(band.get_facecolor()[0]) == to_rgb(line.get_color())
        assert band.get_alpha() == pytest.approx(band_alpha(7)) and band_alpha(7) < band_alpha(4) < band_alpha(3)
    # The theory of each curve: dashed, in its colour.
    theory = {line.get_label(): line for line in curves if line.get_linestyle() == "--"}
    for line in simulations:
        twin = theory[line.get_label().replace("error", "bound")]
        assert to_rgb(twin.get_color()) == to_rgb(line.get_color())
    # The band's legend entry: a swatch in each curve's colour, none grey.
    swatches, text = ax._scalinglab_legend["band"]
    assert [to_rgb(p.get_facecolor()) for p in swatches] == [to_rgb(line.get_color()) for line in simulations]
    assert legend_texts(ax)[-1] == text == "band: ± 1 std over runs"


def test_a_band_thinner_than_its_line_is_said_in_the_legend():
    ax = sl.plot(seven(np.full(35, 1e-4)), "d", "error", "P").axes[0]
    assert legend_texts(ax)[-1] == "band: ± 1 sem over runs (thinner than the line)"
    sem = np.full(35, 1e-4)
    sem[:5] = 0.05  # the first curve's band is wide: only the others are said
    texts = legend_texts(sl.plot(seven(sem), "d", "error", "P").axes[0])
    assert texts[0] == "P = 0" and texts[1] == "P = 1 (band thinner than the line)"
    assert texts[-1] == "band: ± 1 sem over runs"


def test_isoflop_slices_are_drawn_on_a_log_loss_axis(tmp_path):
    rows = []
    for C in [1e18, 1e19, 1e20, 1e21]:
        for k in range(7):
            N = C ** 0.5 / 30 * 10 ** (k / 2 - 1)
            D = C / (6 * N)
            rows.append(f"{N!r},{D!r},{1.7 + 400 / N ** 0.34 + 4e7 / D ** 0.6!r}\n")
    table = tmp_path / "isoflops.csv"  # losses from 4 to 1000: unreadable on a linear axis
    table.write_text("N,D,loss\n" + "".join(rows))
    r = sl.frontier(str(table), N="N", D="D", bootstrap=0, progress=False)
    ax = sl.plot_fit(r, panels=["isoflop"]).axes[0]
    assert ax.get_yscale() == "log"
    runs = np.array(r["figure"]["points"]["loss"])
    low, high = ax.get_ylim()
    assert low < runs.min() and runs.max() < high < 2 * runs.max()  # no parabola stretches the view
    # A run whose loss is <= 0 cannot be placed on a log axis: linear, and the legend says why.
    r["figure"]["points"]["loss"][0] = -0.5
    ax = sl.plot_fit(r, panels=["isoflop"]).axes[0]
    assert ax.get_yscale() == "linear" and "linear loss axis: 1 run has loss <= 0" in legend_texts(ax)
