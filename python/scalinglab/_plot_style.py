"""The look of the lab's gnuplot figures for matplotlib (scalinglab.plot, scalinglab.plot_fit): the
palette, line widths and bands, the grid and spines, and tick labels of short log axes."""

# The palette of the lab's gnuplot figures: Okabe-Ito without yellow, then tableau colours.
PALETTE = ("#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00",
           "#56B4E9", "#000000", "#8c564b", "#7f7f7f", "#bcbd22")
BAND_ALPHA = 0.18
BAND_ALPHA_MANY = 0.10    # bands of four curves: lighter, so that overlaps stay readable (and lighter with more)
BAND_ALPHA_LEAST = 0.04   # the lightest band, of ten curves and more
BAND_FLOOR = 3            # on a log y axis a band reaches down to at most mean / BAND_FLOOR
LINE_WIDTH = 1.8
THIN_WIDTH = 1.0          # a simulation drawn under its theory: thin, with its markers
THEORY_WIDTH = 2.2        # theory and references pinned to a series, drawn on top
MARKER_SIZE = 3.5
GUIDES = ("#222222", "#777777")   # references that belong to no series: black, then grey
GUIDE_STYLES = ((0, (4, 2.5)), (0, (1, 2)), (0, (5, 2, 1, 2)))  # dashed, dotted, dash-dot
MAX_MARKERS = 60          # curves with more points are drawn without markers
AXES_SIZE = (5.6, 3.5)    # inches of the data area of a figure made here
LEGEND_BELOW = 0.7        # a legend wider than this fraction of the data area goes below it
NOTE_COLOUR = "#555555"


def band_alpha(n):
    """The opacity of each band when n curves have one: BAND_ALPHA up to three, then falling as 1/n
    (BAND_ALPHA_MANY at four), so that a stack of bands stays as light as four of them and each
    keeps its curve's hue instead of darkening into grey."""
    return BAND_ALPHA if n <= 3 else max(BAND_ALPHA_LEAST, BAND_ALPHA_MANY * 4 / n)


def _style(ax, logs):
    """The lab's look: light grey grid (major and, on log axes, minor), left and bottom spines,
    ticks outwards."""
    ax.set_axisbelow(True)
    ax.grid(True, which="major", color="#e4e4e4", lw=0.8)
    for axis in sorted(logs):
        ax.grid(True, which="minor", axis=axis, color="#f3f3f3", lw=0.6)
    for side in ("top", "right"):
        ax.spines[side].set_visible(False)
    for side in ("left", "bottom"):
        ax.spines[side].set_color("#404040")
    ax.tick_params(which="both", direction="out", color="#404040")


def _log_labels(ax, logs):
    """On a log axis spanning less than two decades, ticks read 0.2, 0.3, ... rather than
    2x10^-1 (as the lab's figures, which switch to 10^k from two decades on)."""
    from matplotlib.ticker import LogFormatter

    class Plain(LogFormatter):
        def _num_to_string(self, x, vmin, vmax):
            return f"{x:g}"

    for axis, limits in (("x", ax.get_xlim()), ("y", ax.get_ylim())):
        lo, hi = sorted(limits)
        if axis in logs and lo > 0 and hi / lo < 100:
            target = ax.xaxis if axis == "x" else ax.yaxis
            target.set_major_formatter(Plain(labelOnlyBase=False))
            target.set_minor_formatter(Plain(labelOnlyBase=False, minor_thresholds=(2, 0.5)))
