"""scalinglab.plot_fit: the figure of a fit or an IsoFLOP analysis, drawn with matplotlib.

    >>> import scalinglab as sl
    >>> result = sl.fit("runs.csv", law="chinchilla", N="N", D="D", at=[1e24])
    >>> fig = sl.plot_fit(result)                        # the panels of `scalinglab fit --plot`
    >>> fig = sl.plot_fit(result, panels=["isoflop"])    # one panel, one column of a paper wide
    >>> fig = sl.plot_fit(sl.frontier("isoflops.csv", C="C", D="D"), panels=["isoflop", "frontier"])

The numbers come from the fit itself (its "figure" entry, computed by the same code as the command
line's gnuplot figure), so both figures show the same curves, bands, labels and panel names. Each
panel is 3.3 inches wide (a column of a two-column paper) with its legend below its axes, never
over the data. A series of runs and the fitted curve that describes it share a colour, the curve
dashed; every line has a legend entry. matplotlib is imported when a figure is drawn, never by
`import scalinglab`. See docs/python.md and docs/fit.md (the panels).
"""

import math
import textwrap

import numpy as np

from ._plot_text import user_text
from .plot import BAND_ALPHA, PALETTE, _log_labels, _renderer, _style

__all__ = ["plot_fit"]

PANEL_WIDTH = 3.3       # inches: one column of a two-column paper
PANEL_HEIGHT = 2.55     # inches of a panel without its legend (title, axes, tick labels, axis label)
LEGEND_LINE = 0.15      # inches per line of a legend
FONT = 8                # points: labels and ticks; titles one more, legends one less
POINT_SIZE = 12         # marker area (points^2) of runs
MARK_SIZE = 28          # of the few points that summarise them (minima, best runs)
CMAP = "viridis"        # the gnuplot figures' palette (viridis' five stops)
RESIDUAL = "log(fit / data)"
N_OPT, D_OPT, L_OPT = (f"{s}$_\\mathrm{{opt}}$" for s in "NDL")


def _labels(f):
    """The axis labels of a figure (the user's column names) as matplotlib text: as written, powers raised."""
    return {k: user_text(v) for k, v in f["labels"].items()}


def _array(values):
    return np.array([math.nan if v is None else v for v in values], dtype=np.float64)


def _finish(ax, logs, title, xlabel, ylabel):
    ax.set_title(title, fontsize=FONT + 1)
    ax.set_xlabel(xlabel, fontsize=FONT)
    ax.set_ylabel(ylabel, fontsize=FONT)
    _style(ax, logs)
    ax.tick_params(which="both", labelsize=FONT)
    for axis in logs:
        (ax.set_xscale if axis == "x" else ax.set_yscale)("log")
    _log_labels(ax, logs)
    handles, labels = ax.get_legend_handles_labels()
    if handles:
        # Below the axes (placed under the tick labels and axis label by _place_legends).
        columns = 2 if len(labels) > 2 and max(len(t) for t in labels) <= 22 else 1
        ax.legend(handles, labels, loc="upper left", bbox_to_anchor=(0, -0.3), fontsize=FONT - 1, frameon=False,
                  ncol=columns, handlelength=1.8, columnspacing=1.0, borderaxespad=0, borderpad=0)


def _legend_lines(ax):
    legend = ax.get_legend()
    if legend is None:
        return 0
    return math.ceil(len(legend.get_texts()) / legend._ncols)  # noqa: SLF001 (no public accessor in 3.6)


def _place_legends(fig, axes):
    """Each legend just under its axes' tick labels and axis label, left-aligned with the axes, so
    that it covers neither the data nor the label. The drop is measured on the texts (a tick label
    with a superscript, as log axes have, and the axis label) rather than on the drawn axes, whose
    ticks would all have to be made first: the layout does not change it."""
    from matplotlib import rcParams
    from matplotlib.font_manager import FontProperties
    from matplotlib.transforms import ScaledTranslation

    renderer = _renderer(fig)
    font = FontProperties(size=FONT)

    def height(text):
        return renderer.get_text_width_height_descent(text, font, ismath="$" in text)[1] / fig.dpi

    # Tick length and pad, the axis label's pad, and a gap of 3 points.
    points = rcParams["xtick.major.size"] + rcParams["xtick.major.pad"] + rcParams["axes.labelpad"] + 3
    ticks = height("$10^{10}$")
    for ax in axes:
        legend = ax.get_legend()
        if legend is None:
            continue
        drop = points / 72 + ticks + height(ax.get_xlabel() or "x")
        legend.set_bbox_to_anchor((0, 0), transform=ax.transAxes + ScaledTranslation(0, -drop, fig.dpi_scale_trans))


def _grey_key(ax, kind, label):
    """A legend entry for runs or curves coloured by a colour map: a grey sample, the meaning in words."""
    if kind == "points":
        ax.scatter([], [], s=POINT_SIZE, color="#707070", label=label)
    else:
        ax.plot([], [], ls="--", color="#707070", label=label)


def _colourbar(fig, ax, norm, label):
    import matplotlib.cm as cm

    bar = fig.colorbar(cm.ScalarMappable(norm=norm, cmap=CMAP), ax=ax, pad=0.02, fraction=0.06, aspect=25)
    bar.set_label(label, fontsize=FONT)
    if norm.vmax - norm.vmin >= 2:  # whole decades, as the gnuplot figures' bars
        from matplotlib.ticker import MultipleLocator

        bar.locator = MultipleLocator(1)
    bar.ax.tick_params(labelsize=FONT - 1)


def _runs(f, what):
    """"runs", and how many of how many when a large table is drawn by a subsample."""
    shown, total = f.get("points_shown"), f.get("points_total")
    return f"{what} ({shown} of {total} shown)" if shown is not None and shown < total else what


def _range_span(ax, c_range):
    ax.axvspan(c_range[0], c_range[1], color="#ebebeb", zorder=0, lw=0, label="budgets of the data")


def _norm(values):
    from matplotlib.colors import Normalize

    return Normalize(np.nanmin(values), max(np.nanmax(values), np.nanmin(values) + 1e-9))


def _law2(fig, f, ax, name):
    import matplotlib

    p = {k: _array(v) for k, v in f["points"].items()}
    logC, logN = np.log10(p["C"]), np.log10(p["N"])
    norm_C, norm_N = _norm(logC), _norm(logN)
    cmap = matplotlib.colormaps[CMAP]
    labels, law = _labels(f), user_text(f["law_label"])
    lo, hi = np.nanmin(p["loss"]), np.nanmax(p["loss"])
    runs = _runs(f, "runs (colour: budget C)")
    if name == "isoflop":  # the law's IsoFLOP curves over the runs (same colour: same budget)
        ax.scatter(p["N"], p["loss"], c=logC, cmap=CMAP, norm=norm_C, s=POINT_SIZE, lw=0)
        for c in f["isoflop_curves"]:
            ax.plot(_array(c["N"]), _array(c["loss"]), ls="--", lw=1.2, color=cmap(norm_C(math.log10(c["C"]))))
        _grey_key(ax, "points", runs)
        _grey_key(ax, "lines", f"{law} at each budget")
        if "frontier" in f:
            ax.plot(_array(f["frontier"]["N"]), _array(f["frontier"]["loss"]), ls="--", lw=1.6, color="black",
                    label=f"compute-optimal ({law})")
        ax.set_ylim(lo * 0.97, hi * 1.08)
        ax.set_xlim(np.nanmin(p["N"]) / 2, np.nanmax(p["N"]) * 2)
        _colourbar(fig, ax, norm_C, "log$_{10}$ C (FLOPs)")
        _finish(ax, "xy", "IsoFLOP curves", labels["N"], labels["loss"])
    elif name == "ratio":  # loss against tokens per parameter (same colour: same N)
        ax.scatter(p["D"] / p["N"], p["loss"], c=logN, cmap=CMAP, norm=norm_N, s=POINT_SIZE, lw=0)
        for c in f["ratio_curves"]:
            ax.plot(_array(c["ratio"]), _array(c["loss"]), ls="--", lw=1.2, color=cmap(norm_N(math.log10(c["N"]))))
        _grey_key(ax, "points", _runs(f, "runs (colour: size N)"))
        _grey_key(ax, "lines", f"{law} at each N")
        ax.set_ylim(lo * 0.97, hi * 1.08)
        _colourbar(fig, ax, norm_N, "log$_{10}$ N (parameters)")
        _finish(ax, "xy", "Loss against D / N", "D / N (tokens per parameter)", labels["loss"])
    elif name == "frontier":  # the frontier with its bands, the data's budgets and each budget's best run
        fr = {k: (_array(v) if isinstance(v, list) else v) for k, v in f["frontier"].items()}
        _range_span(ax, f["C_range"])
        level = f"{100 * f['level']:.0f}%"
        if f["bootstrap"]:
            ax.fill_between(fr["C"], fr["N_lo"], fr["N_hi"], color=PALETTE[0], alpha=BAND_ALPHA, lw=0,
                            label=f"{level} band of {N_OPT}")
            ax.fill_between(fr["C"], fr["D_lo"], fr["D_hi"], color=PALETTE[1], alpha=BAND_ALPHA, lw=0,
                            label=f"{level} band of {D_OPT}")
        closed = "a" in fr
        ax.plot(fr["C"], fr["N"], ls="--", lw=1.6, color=PALETTE[0],
                label=f"{N_OPT} ∝ C$^{{{fr['a']:.3f}}}$ ({law})" if closed else f"{N_OPT} ({law})")
        ax.plot(fr["C"], fr["D"], ls="--", lw=1.6, color=PALETTE[1],
                label=f"{D_OPT} ∝ C$^{{{fr['b']:.3f}}}$ ({law})" if closed else f"{D_OPT} ({law})")
        sm = {k: _array(v) for k, v in f["slice_minima"].items()}
        if len(sm["C"]):  # each IsoFLOP budget's lowest-loss run (none for grids of N and D)
            ax.scatter(sm["C"], sm["N"], s=MARK_SIZE, color=PALETTE[0], marker="o", lw=0,
                       label="N of each budget's best run")
            ax.scatter(sm["C"], sm["D"], s=MARK_SIZE, color=PALETTE[1], marker="s", lw=0,
                       label="D of each budget's best run")
        _finish(ax, "xy", "Compute-optimal frontier", labels["C"], f"{N_OPT}, {D_OPT}")
    else:  # residuals against the fitted loss, N or D (colour: the budget)
        x, title, xlabel = {"residuals": (p["fitted"], "Residuals", "fitted loss"),
                            "residuals-N": (p["N"], "Residuals against N", labels["N"]),
                            "residuals-D": (p["D"], "Residuals against D", labels["D"])}[name]
        ax.scatter(x, p["residual"], c=logC, cmap=CMAP, norm=norm_C, s=POINT_SIZE, lw=0)
        _grey_key(ax, "points", runs)
        ax.axhline(0, color="black", lw=0.8, label="zero")
        _colourbar(fig, ax, norm_C, "log$_{10}$ C (FLOPs)")
        _finish(ax, "x", title, xlabel, RESIDUAL)


def _law1(fig, f, ax, name):
    p = {k: _array(v) for k, v in f["points"].items()}
    labels = _labels(f)
    data = _runs(f, "data")
    if name == "law":
        ax.scatter(p["x"], p["loss"], s=POINT_SIZE, color=PALETTE[0], lw=0, label=data)
        ax.plot(_array(f["curve"]["x"]), _array(f["curve"]["loss"]), ls="--", lw=1.6, color=PALETTE[0],
                label=user_text(f["law_label"]))
        # The law's formula, its powers raised ("y = E + A x^-a" reads y = E + A x⁻ᵃ), on lines of a panel's width.
        formula = f.get("formula")
        title = "Fitted law" + (f": {formula}" if formula else "")
        _finish(ax, "xy", "\n".join(user_text(line) for line in textwrap.wrap(title, 46)), labels["x"],
                labels["loss"])
        return
    against_fit = name == "residuals"
    ax.scatter(p["fitted"] if against_fit else p["x"], p["residual"], s=POINT_SIZE, color=PALETTE[0], lw=0, label=data)
    ax.axhline(0, color="black", lw=0.8, label="zero")
    _finish(ax, "x", "Residuals" if against_fit else f"Residuals against {user_text(f['x_symbol'])}",
            "fitted loss" if against_fit else labels["x"], RESIDUAL)


def _isoflop(fig, f, ax, name):
    import matplotlib

    p = {k: _array(v) for k, v in f["points"].items()}
    logC = np.log10(p["C"])
    norm = _norm(logC)
    cmap = matplotlib.colormaps[CMAP]
    labels = _labels(f)
    m = {k: _array(v) for k, v in f["minima"].items()}
    fr = {k: (_array(v) if isinstance(v, list) else v) for k, v in f["frontier"].items()}
    level = f"{100 * f['level']:.0f}%"
    if name == "isoflop":  # the slices, their parabolas and minima
        # Losses spanning decades (a slice's smallest models) squash the others on a linear axis: a
        # log axis whenever every run's loss can be placed on one, else a legend line says why not.
        # On it, a parabola (fitted to the loss, not its log) is drawn where it is above 0.
        runs = p["loss"][np.isfinite(p["loss"])]
        below = int(np.sum(runs <= 0))
        logs = "x" if below else "xy"
        cut = 0

        def shown(loss):
            nonlocal cut
            if below:
                return loss
            cut += int(np.sum(loss <= 0))
            return np.where(loss > 0, loss, np.nan)

        trimmed = p["trimmed"] > 0
        ax.scatter(p["N"][~trimmed], p["loss"][~trimmed], c=logC[~trimmed], cmap=CMAP, norm=norm, s=POINT_SIZE, lw=0)
        for c in f["parabolas"]:
            ax.plot(_array(c["N"]), shown(_array(c["loss"])), ls="--", lw=1.2, color=cmap(norm(math.log10(c["C"]))))
        parabola_cut, cut = cut, 0
        _grey_key(ax, "points", _runs(f, "runs (colour: budget C)"))
        _grey_key(ax, "lines", "parabola of each budget" + (" (drawn where > 0)" if parabola_cut else ""))
        if trimmed.any():
            ax.scatter(p["N"][trimmed], p["loss"][trimmed], facecolors="none", edgecolors=cmap(norm(logC[trimmed])),
                       s=POINT_SIZE * 1.5)
            ax.scatter([], [], facecolors="none", edgecolors="#707070", s=POINT_SIZE * 1.5,
                       label="trimmed (not in the parabola)")
        minima = shown(m["loss"])
        ax.scatter(m["N"], minima, facecolors="none", edgecolors="black", s=MARK_SIZE * 1.6, lw=1.2,
                   label="minimum of each parabola" + (f" ({cut} <= 0 not shown)" if cut else ""))
        if below:
            ax.plot([], [], ls="none", label=f"linear loss axis: {below} {'run has' if below == 1 else 'runs have'} "
                                             "loss <= 0")
        if not below and len(runs):  # the view holds the runs and minima: a parabola diving below leaves it
            seen = np.log10(np.concatenate([runs, minima[np.isfinite(minima)]]))
            margin = 0.08 * max(seen.max() - seen.min(), 0.01)
            ax.set_ylim(10 ** (seen.min() - margin), 10 ** (seen.max() + margin))
        _colourbar(fig, ax, norm, "log$_{10}$ C (FLOPs)")
        _finish(ax, logs, "IsoFLOP curves", labels["N"], labels["loss"])
    elif name == "frontier":
        _range_span(ax, f["C_range"])
        if f["bootstrap"]:
            ax.fill_between(fr["C"], fr["N_lo"], fr["N_hi"], color=PALETTE[0], alpha=BAND_ALPHA, lw=0,
                            label=f"{level} band of {N_OPT}")
            ax.fill_between(fr["C"], fr["D_lo"], fr["D_hi"], color=PALETTE[1], alpha=BAND_ALPHA, lw=0,
                            label=f"{level} band of {D_OPT}")
        interval = f["frontier"].get("a_interval")
        a_text = f", a ∈ [{interval[0]:.3f}, {interval[1]:.3f}]" if interval and interval[0] is not None else ""
        ax.scatter(m["C"], m["N"], s=MARK_SIZE, color=PALETTE[0], marker="o", lw=0, label=f"{N_OPT} of each budget")
        ax.plot(fr["C"], fr["N"], ls="--", lw=1.6, color=PALETTE[0], label=f"{N_OPT} ∝ C$^{{{fr['a']:.3f}}}${a_text}")
        ax.scatter(m["C"], m["D"], s=MARK_SIZE, color=PALETTE[1], marker="s", lw=0, label=f"{D_OPT} of each budget")
        ax.plot(fr["C"], fr["D"], ls="--", lw=1.6, color=PALETTE[1], label=f"{D_OPT} ∝ C$^{{{fr['b']:.3f}}}$")
        _finish(ax, "xy", "Compute-optimal frontier", labels["C"], f"{N_OPT}, {D_OPT}")
    else:  # "loss": the loss at the minima against the budget
        _range_span(ax, f["C_range"])
        law = f["loss_law"]
        if f["bootstrap"]:
            ax.fill_between(fr["C"], fr["loss_lo"], fr["loss_hi"], color="black", alpha=0.12, lw=0,
                            label=f"{level} band of {L_OPT}")
        ax.scatter(m["C"], m["loss"], s=MARK_SIZE, color="black", lw=0, label=f"{L_OPT} of each budget")
        ax.plot(fr["C"], fr["loss_power"], ls=":", lw=1.6, color="#7f7f7f", label="power law")
        if law["fitted"]:
            ax.plot(fr["C"], fr["loss"], ls="--", lw=1.6, color="black",
                    label=f"{law['E']:.3g} + {law['A']:.3g} C$^{{-{law['gamma']:.3f}}}$")
        _finish(ax, "x", "Loss at the optimum", labels["C"], f"{labels['loss']} at the optimum")


def _chosen(f, panels):
    """The panels to draw, in the order asked (all of the figure's when None); a name the figure
    lacks is a ValueError listing the ones it has (the names of `scalinglab fit --plot-panels`)."""
    have = list(f["panels"])
    if panels is None:
        return have
    if isinstance(panels, str):
        panels = panels.split(",")
    if not isinstance(panels, (list, tuple)) or not panels or not all(isinstance(p, str) for p in panels):
        raise TypeError(f"plot_fit: panels must be a non-empty list of panel names, e.g. {have[:2]}")
    by_name = {p.lower(): p for p in have}
    chosen = []
    for name in panels:
        p = by_name.get(name.strip().lower())
        if p is None:
            raise ValueError(f"plot_fit: {name.strip()!r} is not a panel of this figure; its panels are "
                             f"{', '.join(have)}")
        if p not in chosen:
            chosen.append(p)
    return chosen


def _grid(n):
    """Columns and rows for n panels: a row of up to three, then rows of two or three."""
    cols = n if n <= 3 else 2 if n == 4 else 3
    return cols, -(-n // cols)


def plot_fit(result, panels=None):
    """The figure of a fit() or frontier() result, as a matplotlib Figure. panels: the names of the
    panels to draw, in that order (default: all of the figure's):
      a two-input law: isoflop (the fitted law's IsoFLOP curves over the runs), ratio (the loss
        against D/N at a few model sizes), frontier (N_opt(C) and D_opt(C) with bootstrap bands, the
        data's budgets shaded, each budget's best run marked), residuals, residuals-N, residuals-D
        (the log residuals against the fitted loss, N and D);
      a one-input law: law (the data and the curve), residuals, residuals-x;
      an IsoFLOP analysis: isoflop (the slices with their parabolas), frontier (the regressions of
        N_opt and D_opt with bands), loss (the loss at the minima with its band).
    Each panel is 3.3 inches wide (one column of a two-column paper), in a grid of up to three
    columns; each legend sits below its axes."""
    if not isinstance(result, dict) or not isinstance(result.get("figure"), dict):
        raise TypeError("plot_fit: give the dict that scalinglab.fit() or scalinglab.frontier() returned")
    f = result["figure"]
    draw = {"law2": _law2, "law1": _law1, "isoflop": _isoflop}.get(f.get("kind"))
    if draw is None:
        raise ValueError(f"plot_fit: unknown figure kind {f.get('kind')!r}")
    chosen = _chosen(f, panels)
    import matplotlib.pyplot as plt

    cols, rows = _grid(len(chosen))
    fig = plt.figure(layout="constrained")
    axes = fig.subplots(rows, cols, squeeze=False).ravel()
    for ax in axes[len(chosen):]:
        ax.remove()
    axes = axes[:len(chosen)]
    for ax, name in zip(axes, chosen):
        draw(fig, f, ax, name)
    # Each row as tall as its panel plus its longest legend, so that the axes keep their size.
    height = sum(PANEL_HEIGHT + LEGEND_LINE * max(_legend_lines(ax) for ax in axes[r * cols:(r + 1) * cols])
                 for r in range(rows))
    fig.set_size_inches(PANEL_WIDTH * cols, height)
    _place_legends(fig, axes)
    return fig
