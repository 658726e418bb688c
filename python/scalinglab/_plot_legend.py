"""The legend and the notes of a figure of plot(): legend texts renamed as a [plot] legend says,
notes about the points left out, and their layout (the legend right of the data area or below it,
the notes under the x axis label, a figure made here grown to hold them)."""

import warnings

from ._plot_style import LEGEND_BELOW, NOTE_COLOUR
from ._plot_text import user_text as _user_text


def _relabel(kept_curves, legend):
    """The legend texts of a [plot] legend (or legend=), shown as written, powers raised."""
    for key, text in legend.items():
        hits = [c for c in kept_curves if c.raw == str(key)]
        if not hits:
            warnings.warn(f"plot: legend: no curve is labelled {str(key)!r}", stacklevel=3)
        for c in hits:
            c.label = _user_text(text)


def _plural(n, word="point"):
    return f"{n} {word}{'' if n == 1 else 's'}"


def _notes(data, drops, band_cut, drawn, kept_curves, columns, band):
    """The notes under the figure: points not shown, bands cut, why no band, nothing drawn."""
    notes = []
    said = []  # one line, as on the lab's figures: "not shown: 3 points with error = 0 (log y axis); ..."
    if drops:
        said.append("not shown: " + "; ".join(f"{_plural(count)} with {reason}" for reason, count in drops.items()))
    if band_cut:
        said.append(f"band cut at mean/3 at {_plural(band_cut)} (log y axis)")
    # A table of run()'s default columns has the means only: say why no band is drawn.
    from_run = bool(getattr(data, "attrs", None) and data.attrs.get("out"))
    unbanded = sorted({f"{c.metric}_{band}" for c in drawn if not c.theory and f"{c.metric}_{band}" not in columns})
    if from_run and band != "none" and unbanded:
        said.append(f"no band: the table has no {', '.join(unbanded)} (run(..., columns=\"all\") or plot the results folder)")
    if said:
        notes.append("; ".join(said))
    if not kept_curves:
        notes.append("no points to draw (check where= and the columns)")
    return notes


def _renderer(fig):
    canvas = fig.canvas
    if hasattr(canvas, "get_renderer"):
        return canvas.get_renderer()
    fig.draw_without_rendering()
    return fig._get_renderer()  # noqa: SLF001 (matplotlib's own accessor for other canvases)


def _legend_and_notes(fig, ax, state):
    """The notes about points left out, in small grey text under the x axis label; the legend
    right of the data area, or below the notes when its labels are long. A figure made here grows
    to hold them, the data area keeping its size in inches. state: the axes' handles and texts,
    band entry, notes and whether to resize; the note drawn is recorded there."""
    handles, texts, notes, resize = list(state["handles"]), list(state["texts"]), state["notes"], state["resize"]
    if state["band"] is not None:
        handles.append(state["band"][0])
        texts.append(state["band"][1])
    dpi = fig.dpi
    renderer = _renderer(fig)
    box = ax.get_window_extent(renderer)
    tight = ax.get_tightbbox(renderer, bbox_extra_artists=[])  # ticks, labels, title: no legend
    margin = {"left": (box.x0 - tight.x0) / dpi, "right": max(0.0, (tight.x1 - box.x1) / dpi),
              "bottom": (box.y0 - tight.y0) / dpi, "top": (tight.y1 - box.y1) / dpi}
    gap = 0.06  # inches between stacked pieces
    note, note_height = None, 0.0
    if notes:
        note = ax.annotate("\n".join(notes), xy=(0, 0), xycoords="axes fraction",
                           xytext=(-margin["left"] * 72, -(margin["bottom"] + gap) * 72), textcoords="offset points",
                           ha="left", va="top", fontsize="x-small", color=NOTE_COLOUR, annotation_clip=False)
        note_height = note.get_window_extent(renderer).height / dpi + gap
    state["note"] = note
    legend, below = None, False
    from matplotlib.legend_handler import HandlerTuple

    # The band's entry is a tuple of swatches, one per colour, side by side.
    kwargs = dict(frameon=False, fontsize="small", handlelength=2.6, borderaxespad=0.0,
                  handler_map={tuple: HandlerTuple(ndivide=None, pad=0)})
    if handles:
        legend = ax.legend(handles, texts, loc="upper left", bbox_to_anchor=(1.03, 1.0), **kwargs)
        if legend.get_window_extent(renderer).width > LEGEND_BELOW * box.width:  # long labels: below
            below = True
            legend.remove()
            drop = (margin["bottom"] + note_height + 2 * gap) * dpi / box.height
            ncol = 2 if max(len(t) for t in texts) <= 45 else 1
            legend = ax.legend(handles, texts, loc="upper left", bbox_to_anchor=(0.0, -drop), ncol=ncol, **kwargs)
            if ncol > 1 and legend.get_window_extent(renderer).width > 1.5 * box.width:
                legend.remove()
                legend = ax.legend(handles, texts, loc="upper left", bbox_to_anchor=(0.0, -drop), ncol=1, **kwargs)
    if not resize:
        return
    axw, axh = box.width / dpi, box.height / dpi
    leg = legend.get_window_extent(renderer) if legend is not None else None
    legw, legh = (leg.width / dpi, leg.height / dpi) if leg is not None else (0.0, 0.0)
    notew = note.get_window_extent(renderer).width / dpi if note is not None else 0.0
    pad = 0.15
    left, top = margin["left"] + pad, margin["top"] + pad
    bottom = margin["bottom"] + note_height + pad
    if below:
        bottom += legh + 2 * gap
        right = max(margin["right"], legw - axw) + pad
    else:
        right = max(margin["right"], 0.03 * axw + legw) + pad
    right = max(right, notew - margin["left"] - axw + pad)
    width = left + axw + right
    height = max(top + axh + bottom, top + legh + pad)
    fig.set_size_inches(width, height)
    ax.set_position([left / width, (height - top - axh) / height, axw / width, axh / height])
