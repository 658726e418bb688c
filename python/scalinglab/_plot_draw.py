"""Drawing a figure of plot() with matplotlib: its axes (a figure made here has a data area of a
fixed size in inches), then the simulations with their bands, the theory on top of them, and the
reference lines last."""

import numpy as np

from ._plot_style import (AXES_SIZE, BAND_ALPHA, BAND_FLOOR, LINE_WIDTH, MARKER_SIZE, MAX_MARKERS, THEORY_WIDTH,
                          THIN_WIDTH, band_alpha)


def _axes(ax, logs):
    """(fig, ax, own_figure): a figure made here unless `ax` is given, its axes log as `logs` says."""
    own_figure = ax is None
    if own_figure:
        import matplotlib.pyplot as plt

        fig = plt.figure(figsize=(AXES_SIZE[0] + 2.5, AXES_SIZE[1] + 1.3))
        ax = fig.add_axes([0.12, 0.15, AXES_SIZE[0] / (AXES_SIZE[0] + 2.5), AXES_SIZE[1] / (AXES_SIZE[1] + 1.3)])
    fig = ax.figure.figure  # the top-level figure (ax may sit in a subfigure)
    if "x" in logs:
        ax.set_xscale("log")
    if "y" in logs:
        ax.set_yscale("log")
    return fig, ax, own_figure


def _draw(ax, drawn, ref_lines, columns, xs_all, band, logs):
    """Draws the curves and the reference lines into ax; returns (handles, texts, band_entry,
    band_cut, bands): the legend's lines and texts, its entry for the bands (None without bands),
    the number of points whose band a log y axis cut, and each band drawn as (index of its curve's
    legend entry, x, lower edge, upper edge, line)."""
    from matplotlib.collections import PolyCollection
    from matplotlib.patches import Patch

    def spread_of(c):
        col = f"{c.metric}_{band}"
        if c.theory or band == "none" or col not in columns:
            return None
        spread = columns[col][c.rows].astype(np.float64)
        spread = np.where(np.isfinite(spread), spread, 0.0)
        return spread if np.any(spread > 0) else None

    # Many overlapping bands would darken into a grey mass: each in its curve's colour, lighter the
    # more curves have one.
    banded = [c for c in drawn if spread_of(c) is not None]
    alpha = band_alpha(len(banded))
    handles, texts, bands, band_cut = [], [], [], 0
    for layer in (False, True):  # simulations first, theory on top
        for c in drawn:
            if c.theory != layer:
                continue
            px = xs_all[c.rows]
            py = columns[c.metric][c.rows].astype(np.float64)
            if c.theory:
                line, = ax.plot(px, py, color=c.colour, lw=THEORY_WIDTH, ls="--", dashes=(4, 2.5), zorder=3)
            else:
                spread, edges = spread_of(c), None
                if spread is not None:
                    lo, hi = py - spread, py + spread
                    if "y" in logs:
                        # mean - sem <= 0 has no place on a log axis (the band would run to the
                        # bottom of the frame): the lower edge is cut at mean/3, and the figure says so.
                        cut = lo < py / BAND_FLOOR
                        band_cut += int(np.sum(cut))
                        lo = np.where(cut, py / BAND_FLOOR, lo)
                    # On a log axis the view follows a band only within a factor 3 of the mean: a band
                    # rising by decades leaves the frame rather than squash the curves.
                    outline = np.column_stack([np.r_[px, px[::-1]], np.r_[hi, lo[::-1]]])
                    ax.add_collection(PolyCollection([outline], facecolors=c.colour, alpha=alpha, lw=0, zorder=1),
                                      autolim=False)
                    view_hi = np.minimum(hi, py * BAND_FLOOR) if "y" in logs else hi
                    ax.update_datalim(np.column_stack([np.r_[px, px], np.r_[lo, view_hi]]))
                    edges = (px, lo, hi)
                marker = "o" if len(px) <= MAX_MARKERS else None
                if c.thin:
                    line, = ax.plot(px, py, color=c.colour, lw=THIN_WIDTH, marker=marker, ms=MARKER_SIZE * 1.3,
                                    zorder=2)
                else:
                    line, = ax.plot(px, py, color=c.colour, lw=LINE_WIDTH, marker=marker, ms=MARKER_SIZE, zorder=2)
            line.set_label(c.label)
            if not c.theory and edges is not None:
                bands.append((len(handles), *edges, line))
            handles.append(line)
            texts.append(c.label)
    for rx, ry, colour, style, width, label in ref_lines:
        line, = ax.plot(rx, ry, color=colour, lw=width, ls=style, zorder=3.5, label=label)
        handles.append(line)
        texts.append(label)
    # The band's entry: a swatch in each banded curve's colour (as dark as two bands, to be seen).
    colours = list(dict.fromkeys(c.colour for c in banded))
    band_entry = (tuple(Patch(facecolor=colour, alpha=2 * BAND_ALPHA, lw=0) for colour in colours),
                  f"band: ± 1 {band} over runs") if bands else None
    return handles, texts, band_entry, band_cut, bands


def _thin_bands(ax, bands, texts, band_entry):
    """Says in the legend which bands are everywhere thinner than their curve's line at the axes'
    limits and size (the many runs of a sem make it so), where the legend would promise a band no
    one can see: the band's entry when it is every band, else the entry of each such curve. Returns
    the band's entry."""
    dpi = ax.figure.figure.dpi
    thin = []
    for index, px, lo, hi, line in bands:
        top = ax.transData.transform(np.column_stack([px, hi]))[:, 1]
        bottom = ax.transData.transform(np.column_stack([px, lo]))[:, 1]
        if np.all(np.abs(top - bottom) < line.get_linewidth() * dpi / 72):
            thin.append((index, line))
    if not thin:
        return band_entry
    if len(thin) == len(bands):
        return band_entry[0], band_entry[1] + " (thinner than the line)"
    for index, line in thin:
        texts[index] += " (band thinner than the line)"
        line.set_label(texts[index])
    return band_entry
