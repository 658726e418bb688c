"""scalinglab.plot_fit: the figure of a fit or an IsoFLOP analysis, drawn with matplotlib.

    >>> import scalinglab as sl
    >>> result = sl.fit("runs.csv", law="chinchilla", N="N", D="D", at=[1e24])
    >>> fig = sl.plot_fit(result)          # the panels of `scalinglab fit --plot`
    >>> fig = sl.plot_fit(sl.frontier("isoflops.csv", C="C", D="D"))

The numbers come from the fit itself (its "figure" entry, computed by the same code as the command
line's gnuplot figure), so both figures show the same curves and bands. A series of runs and the
fitted curve that describes it share a colour, the curve dashed; every line has a legend entry.
matplotlib is imported when a figure is drawn, never by `import scalinglab`. See docs/python.md.
"""

import math

import numpy as np

from .plot import BAND_ALPHA, PALETTE, _log_labels, _style

__all__ = ["plot_fit"]

PANEL_SIZE = (4.6, 3.4)   # inches per panel
POINT_SIZE = 9            # scatter marker area (points^2)
CMAP = "viridis"          # the gnuplot figures' palette (viridis' five stops)


def _array(values):
    return np.array([math.nan if v is None else v for v in values], dtype=np.float64)


def _finish(ax, logs, title, xlabel, ylabel):
    ax.set_title(title, fontsize="medium")
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    _style(ax, logs)
    for axis in logs:
        (ax.set_xscale if axis == "x" else ax.set_yscale)("log")
    _log_labels(ax, logs)
    ax.legend(fontsize="x-small", frameon=False, loc="best")


def _grey_key(ax, kind, label):
    """A legend entry for runs or curves coloured by a colour map: a grey sample, the meaning in words."""
    if kind == "points":
        ax.scatter([], [], s=POINT_SIZE, color="#707070", label=label)
    else:
        ax.plot([], [], ls="--", color="#707070", label=label)


def _colourbar(fig, ax, norm, label):
    import matplotlib.cm as cm

    bar = fig.colorbar(cm.ScalarMappable(norm=norm, cmap=CMAP), ax=ax, pad=0.02)
    bar.set_label(label)


def _residual_panel(ax, x, residual, colour, norm, title, xlabel, log_x):
    ax.scatter(x, residual, c=colour, cmap=CMAP, norm=norm, s=POINT_SIZE)
    _grey_key(ax, "points", "runs (colour: their budget C)")
    ax.axhline(0, color="black", lw=1, label="zero")
    _finish(ax, "x" if log_x else "", title, xlabel, "log residual (fit - data)")


def _range_span(ax, c_range):
    ax.axvspan(c_range[0], c_range[1], color="#ebebeb", zorder=0, label="budgets of the data")


def _law2(fig, f):
    from matplotlib.colors import Normalize

    p = {k: _array(v) for k, v in f["points"].items()}
    logC, logN = np.log10(p["C"]), np.log10(p["N"])
    norm_C = Normalize(logC.min(), max(logC.max(), logC.min() + 1e-9))
    norm_N = Normalize(logN.min(), max(logN.max(), logN.min() + 1e-9))
    cmap = __import__("matplotlib").colormaps[CMAP]
    axes = fig.subplots(2, 3).ravel()
    loss_name = f["loss_name"]
    # 1. IsoFLOP curves of the law over the runs (same colour: same budget).
    ax = axes[0]
    ax.scatter(p["N"], p["loss"], c=logC, cmap=CMAP, norm=norm_C, s=POINT_SIZE)
    for c in f["isoflop_curves"]:
        ax.plot(_array(c["N"]), _array(c["loss"]), ls="--", lw=1.4, color=cmap(norm_C(math.log10(c["C"]))))
    _grey_key(ax, "points", "runs (colour: their budget C)")
    _grey_key(ax, "lines", "fitted law at each budget (same colour)")
    if "frontier" in f:
        ax.plot(_array(f["frontier"]["N"]), _array(f["frontier"]["loss"]), ls="--", lw=2, color="black",
                label="the law's optimum")
    lo, hi = np.nanmin(p["loss"]), np.nanmax(p["loss"])
    ax.set_ylim(lo * 0.97, hi * 1.08)
    ax.set_xlim(np.nanmin(p["N"]) / 2, np.nanmax(p["N"]) * 2)
    _colourbar(fig, ax, norm_C, "log$_{10}$ C (FLOPs)")
    _finish(ax, "xy", f"IsoFLOP curves of the fitted law {f['law']}", f"N (parameters): {f['N_name']}", loss_name)
    # 2. Loss against tokens per parameter (same colour: same N).
    ax = axes[1]
    ax.scatter(p["D"] / p["N"], p["loss"], c=logN, cmap=CMAP, norm=norm_N, s=POINT_SIZE)
    for c in f["ratio_curves"]:
        ax.plot(_array(c["ratio"]), _array(c["loss"]), ls="--", lw=1.4, color=cmap(norm_N(math.log10(c["N"]))))
    _grey_key(ax, "points", "runs (colour: their N)")
    _grey_key(ax, "lines", "fitted law at that N (same colour)")
    ax.set_ylim(lo * 0.97, hi * 1.08)
    _colourbar(fig, ax, norm_N, "log$_{10}$ N (parameters)")
    _finish(ax, "xy", "loss against tokens per parameter", "D / N (tokens per parameter)", loss_name)
    # 3. The frontier with its bands, the data's budgets and each budget's best run.
    ax = axes[2]
    if "frontier" in f:
        fr = {k: (_array(v) if isinstance(v, list) else v) for k, v in f["frontier"].items()}
        _range_span(ax, f["C_range"])
        level = f"{100 * f['level']:.0f}%"
        if f["bootstrap"]:
            ax.fill_between(fr["C"], fr["N_lo"], fr["N_hi"], color=PALETTE[0], alpha=BAND_ALPHA, lw=0,
                            label=f"{level} band of N$_{{opt}}$")
            ax.fill_between(fr["C"], fr["D_lo"], fr["D_hi"], color=PALETTE[1], alpha=BAND_ALPHA, lw=0,
                            label=f"{level} band of D$_{{opt}}$")
        ax.plot(fr["C"], fr["N"], ls="--", lw=2, color=PALETTE[0], label="N$_{opt}$ of the law")
        ax.plot(fr["C"], fr["D"], ls="--", lw=2, color=PALETTE[1], label="D$_{opt}$ of the law")
        sm = {k: _array(v) for k, v in f["slice_minima"].items()}
        if len(sm["C"]):  # each IsoFLOP budget's lowest-loss run (none for grids of N and D)
            ax.scatter(sm["C"], sm["N"], s=22, color=PALETTE[0], marker="o", label="N of each budget's best run")
            ax.scatter(sm["C"], sm["D"], s=22, color=PALETTE[1], marker="s", label="D of each budget's best run")
        title = (f"frontier: N$_{{opt}}$ ∝ C$^{{{fr['a']:.3f}}}$, D$_{{opt}}$ ∝ C$^{{{fr['b']:.3f}}}$" if "a" in fr
                 else "frontier (minimised numerically)")
        _finish(ax, "xy", title, "C (FLOPs)", "compute-optimal size")
    else:
        ax.set_axis_off()
        ax.set_title("no compute-optimal frontier (the law does not read N and D)", fontsize="medium")
    # 4-6. Residuals against the fit, N and D.
    _residual_panel(axes[3], p["fitted"], p["residual"], logC, norm_C, "residuals against the fit", "fitted loss", True)
    _residual_panel(axes[4], p["N"], p["residual"], logC, norm_C, "residuals against N", "N (parameters)", True)
    _residual_panel(axes[5], p["D"], p["residual"], logC, norm_C, "residuals against D", "D (tokens)", True)
    _colourbar(fig, axes[5], norm_C, "log$_{10}$ C (FLOPs)")
    return (2, 3)


def _law1(fig, f):
    p = {k: _array(v) for k, v in f["points"].items()}
    axes = fig.subplots(1, 3)
    ax = axes[0]
    ax.scatter(p["x"], p["loss"], s=POINT_SIZE, color=PALETTE[0], label="data")
    ax.plot(_array(f["curve"]["x"]), _array(f["curve"]["loss"]), ls="--", lw=2, color=PALETTE[0], label="fitted law")
    title = f["formula"] if f["law"] == f["formula"] else f"{f['law']}: {f['formula']}"
    _finish(ax, "xy", title, f["x_name"], f["loss_name"])
    for ax, x, name in ((axes[1], p["fitted"], "fitted loss"), (axes[2], p["x"], f["x_name"])):
        ax.scatter(x, p["residual"], s=POINT_SIZE, color=PALETTE[0], label="data")
        ax.axhline(0, color="black", lw=1, label="zero")
        _finish(ax, "x", f"residuals against {'the fit' if name == 'fitted loss' else 'the input'}", name,
                "log residual (fit - data)")
    return (1, 3)


def _isoflop(fig, f):
    from matplotlib.colors import Normalize

    p = {k: _array(v) for k, v in f["points"].items()}
    logC = np.log10(p["C"])
    norm = Normalize(logC.min(), max(logC.max(), logC.min() + 1e-9))
    cmap = __import__("matplotlib").colormaps[CMAP]
    trimmed = p["trimmed"] > 0
    axes = fig.subplots(1, 3)
    ax = axes[0]
    ax.scatter(p["N"][~trimmed], p["loss"][~trimmed], c=logC[~trimmed], cmap=CMAP, norm=norm, s=POINT_SIZE)
    for c in f["parabolas"]:
        ax.plot(_array(c["N"]), _array(c["loss"]), ls="--", lw=1.4, color=cmap(norm(math.log10(c["C"]))))
    _grey_key(ax, "points", "runs (colour: their budget C)")
    _grey_key(ax, "lines", "the slice's parabola (same colour)")
    if trimmed.any():
        ax.scatter(p["N"][trimmed], p["loss"][trimmed], facecolors="none", edgecolors=cmap(norm(logC[trimmed])),
                   s=POINT_SIZE * 1.5)
        ax.scatter([], [], facecolors="none", edgecolors="#707070", s=POINT_SIZE * 1.5, label="trimmed (not in the parabola)")
    m = {k: _array(v) for k, v in f["minima"].items()}
    ax.scatter(m["N"], m["loss"], facecolors="none", edgecolors="black", s=60, lw=1.5, label="parabola minimum")
    _colourbar(fig, ax, norm, "log$_{10}$ C (FLOPs)")
    _finish(ax, "x", "IsoFLOP slices, their parabolas and minima", "N (parameters)", "loss")
    fr = {k: (_array(v) if isinstance(v, list) else v) for k, v in f["frontier"].items()}
    level = f"{100 * f['level']:.0f}%"
    ax = axes[1]
    _range_span(ax, f["C_range"])
    if f["bootstrap"]:
        ax.fill_between(fr["C"], fr["N_lo"], fr["N_hi"], color=PALETTE[0], alpha=BAND_ALPHA, lw=0,
                        label=f"{level} band of N$_{{opt}}$")
        ax.fill_between(fr["C"], fr["D_lo"], fr["D_hi"], color=PALETTE[1], alpha=BAND_ALPHA, lw=0,
                        label=f"{level} band of D$_{{opt}}$")
    ax.scatter(m["C"], m["N"], s=22, color=PALETTE[0], marker="o", label="N$_{opt}$ of the slices")
    ax.plot(fr["C"], fr["N"], ls="--", lw=2, color=PALETTE[0], label="N$_{opt}$ fit")
    ax.scatter(m["C"], m["D"], s=22, color=PALETTE[1], marker="s", label="D$_{opt}$ of the slices")
    ax.plot(fr["C"], fr["D"], ls="--", lw=2, color=PALETTE[1], label="D$_{opt}$ fit")
    _finish(ax, "xy", f"N$_{{opt}}$ ∝ C$^{{{fr['a']:.3f}}}$, D$_{{opt}}$ ∝ C$^{{{fr['b']:.3f}}}$", "C (FLOPs)",
            "compute-optimal size")
    ax = axes[2]
    _range_span(ax, f["C_range"])
    law = f["loss_law"]
    if f["bootstrap"]:
        ax.fill_between(fr["C"], fr["loss_lo"], fr["loss_hi"], color="black", alpha=0.12, lw=0,
                        label=f"{level} band of L$_{{opt}}$")
    ax.scatter(m["C"], m["loss"], s=22, color="black", label="L$_{opt}$ of the slices")
    ax.plot(fr["C"], fr["loss_power"], ls=":", lw=2, color="#7f7f7f", label="power law")
    if law["fitted"]:
        ax.plot(fr["C"], fr["loss"], ls="--", lw=2, color="black", label="E + A C$^{-\\gamma}$")
        title = f"L$_{{opt}}$ = {law['E']:.3g} + {law['A']:.3g} C$^{{-{law['gamma']:.3f}}}$"
    else:
        title = "L$_{opt}$: power law (too few slices for E + A C$^{-\\gamma}$)"
    _finish(ax, "x", title, "C (FLOPs)", "loss at the minimum")
    return (1, 3)


def plot_fit(result):
    """The figure of a fit() or frontier() result, as a matplotlib Figure: for a two-input law the
    fitted law's IsoFLOP curves over the runs, the loss against D/N at a few model sizes, the
    frontier N_opt(C) and D_opt(C) with bootstrap bands (the data's budgets shaded, each budget's
    best run marked), and the log residuals against the fitted loss, N and D; for a one-input law
    the data, the curve and the residuals; for an IsoFLOP analysis the slices with their parabolas,
    the regressions of N_opt and D_opt with bands, and the loss at the minima with its band."""
    if not isinstance(result, dict) or not isinstance(result.get("figure"), dict):
        raise TypeError("plot_fit: give the dict that scalinglab.fit() or scalinglab.frontier() returned")
    import matplotlib.pyplot as plt

    f = result["figure"]
    draw = {"law2": _law2, "law1": _law1, "isoflop": _isoflop}.get(f.get("kind"))
    if draw is None:
        raise ValueError(f"plot_fit: unknown figure kind {f.get('kind')!r}")
    fig = plt.figure(layout="constrained")
    rows, cols = draw(fig, f)
    fig.set_size_inches(PANEL_SIZE[0] * cols, PANEL_SIZE[1] * rows)
    return fig
