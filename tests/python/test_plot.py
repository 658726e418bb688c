"""scalinglab.plot: one curve per series value with the table's numbers, theory dashed in its
simulation's colour, the band named in the legend, points a log axis cannot show counted on the
figure, the legend outside the data area, a results directory's [plot] as defaults, clear errors."""
import os
import subprocess
import sys

import numpy as np
import pytest

matplotlib = pytest.importorskip("matplotlib")
matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
from matplotlib.colors import to_hex  # noqa: E402
from matplotlib.figure import Figure  # noqa: E402

import scalinglab as sl  # noqa: E402

# A simulation (a memory that stores every input it saw) against its theory (Proposition 1),
# one curve per part.
SWEEP = {
    "title": "memory against Proposition 1",
    "runs": 4,
    "seed": 3,
    "params": {"N": 300, "alpha": 2.0},
    "grid": {"T": [10, 100, 1000]},
    "part": [
        {"name": "sim", "label": "memory (q0)", "measure": "memory.error", "params": {"d": 300, "scheme": "q0"}},
        {"name": "theory", "label": "Proposition 1", "measure": "memory.infinite_memory_error"},
    ],
    "plot": {"x": "T", "y": "error", "series": "part", "log": ["x", "y"], "band": "sem",
             "xlabel": "samples T", "ylabel": "error"},
}


def table():
    """A table as scalinglab.run returns it: d x T, one metric, with a zero at d = 64."""
    d = np.array([8, 16, 32, 64] * 2, dtype=np.int64)
    T = np.array([100.0] * 4 + [np.inf] * 4)
    error = np.array([0.5, 0.3, 0.1, 0.02, 0.4, 0.2, 0.05, 0.0])
    return {"d": d, "T": T, "error": error, "error_std": np.full(8, 0.04), "error_sem": np.full(8, 0.01),
            "count": np.full(8, 16, dtype=np.int64)}


@pytest.fixture(scope="module")
def run_dir(tmp_path_factory):
    out = tmp_path_factory.mktemp("plot") / "vs-theory"
    sl.run(SWEEP, out=out, progress=False)
    return out


@pytest.fixture(autouse=True)
def close_figures():
    yield
    plt.close("all")


def data_lines(fig):
    return [line for line in fig.axes[0].get_lines() if len(line.get_xdata())]


def legend_texts(fig):
    legend = fig.axes[0].get_legend()
    return [t.get_text() for t in legend.get_texts()] if legend else []


def notes(fig):
    return [t.get_text() for t in fig.axes[0].texts]


def test_import_does_not_need_matplotlib():
    code = "import sys, scalinglab; assert callable(scalinglab.plot); print('matplotlib' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, env=os.environ)
    assert out.stdout.strip() == "False"


def test_one_line_per_series_value_with_the_tables_numbers():
    t = table()
    fig = sl.plot(t, "d", "error", "T")
    assert isinstance(fig, Figure)
    lines = data_lines(fig)
    assert [line.get_label() for line in lines] == ["T = 100", "T = inf"]
    for line, rows in zip(lines, (slice(0, 4), slice(4, 8))):
        assert np.array_equal(line.get_xdata(), t["d"][rows])
        assert np.array_equal(line.get_ydata(), t["error"][rows])
        assert line.get_linestyle() == "-" and line.get_marker() == "o"
    assert fig.axes[0].get_xlabel() == "d" and fig.axes[0].get_ylabel() == "error"


def test_palette_and_style_are_the_labs():
    from scalinglab.plot import PALETTE
    fig = sl.plot(table(), "d", "error", "T", log="x")
    ax = fig.axes[0]
    assert [to_hex(line.get_color()) for line in data_lines(fig)] == [c.lower() for c in PALETTE[:2]]
    assert PALETTE[:3] == ("#0072B2", "#D55E00", "#009E73")
    assert not ax.spines["top"].get_visible() and not ax.spines["right"].get_visible()
    assert ax.get_xscale() == "log" and ax.get_yscale() == "linear"
    bands = ax.collections
    assert len(bands) == 2 and all(abs(b.get_alpha() - 0.18) < 1e-12 for b in bands)


def test_dataframe_where_and_several_metrics():
    pd = pytest.importorskip("pandas")
    t = table()
    t["bound"] = t["error"] * 2 + 0.1
    df = pd.DataFrame(t)
    fig = sl.plot(df, "d", ["error", "bound"], "T", where=["d<=32", {"T": "inf"}])
    lines = data_lines(fig)
    assert [line.get_label() for line in lines] == ["error, T = inf", "bound, T = inf"]
    assert list(lines[0].get_xdata()) == [8, 16, 32]
    assert list(lines[1].get_ydata()) == list(t["bound"][4:7])
    assert len(data_lines(sl.plot(df, "d", "error", where="T != inf"))) == 1


def test_band_is_named_in_the_legend():
    assert "band: ± 1 sem over runs" in legend_texts(sl.plot(table(), "d", "error", "T"))
    assert "band: ± 1 std over runs" in legend_texts(sl.plot(table(), "d", "error", "T", band="std"))
    fig = sl.plot(table(), "d", "error", "T", band="none")
    assert not any(t.startswith("band") for t in legend_texts(fig)) and not fig.axes[0].collections


def test_points_a_log_axis_cannot_show_are_counted_on_the_figure():
    fig = sl.plot(table(), "d", "error", "T", log="xy")
    assert notes(fig) == ["not shown: 1 point with error = 0 (log y axis)"]
    fig.canvas.draw()
    renderer = fig.canvas.get_renderer()
    note, box = fig.axes[0].texts[0].get_window_extent(renderer), fig.axes[0].get_window_extent(renderer)
    assert note.y1 <= box.y0 and note.y0 >= fig.bbox.y0 - 1  # under the axes, on the figure
    assert [len(line.get_xdata()) for line in data_lines(fig)] == [4, 3]
    assert notes(sl.plot(table(), "d", "error", "T", log="x")) == []  # linear y: the zero is drawn
    t = table()
    t["error"] = t["error"] + 0.01
    assert notes(sl.plot(t, "d", "error", "T", log="xy", band="none")) == []  # (a band would be cut: noted)
    # x = inf cannot be placed on any axis: said too.
    assert notes(sl.plot(table(), "T", "error", "d")) == ["not shown: 4 points with T = inf"]


def test_legend_lies_outside_the_data_area():
    from scalinglab.plot import AXES_SIZE

    for t in (table(), {**table(), "T": np.array(["a rather long label for the first curve"] * 4 +
                                                  ["and an even longer label for the second one"] * 4, dtype=object)}):
        fig = sl.plot(t, "d", "error", "T", log="xy")
        fig.canvas.draw()
        renderer = fig.canvas.get_renderer()
        ax = fig.axes[0]
        box, legend = ax.get_window_extent(renderer), ax.get_legend().get_window_extent(renderer)
        assert legend.x0 >= box.x1 or legend.y1 <= box.y0  # right of the axes, or below
        figure_box = fig.bbox
        assert legend.x1 <= figure_box.x1 + 1 and legend.y0 >= figure_box.y0 - 1  # and inside the figure
        assert abs(box.width / fig.dpi - AXES_SIZE[0]) < 0.01  # the data area keeps its size


def test_theory_is_dashed_in_its_simulations_colour(run_dir):
    fig = sl.plot(run_dir)  # the directory knows each part's measure
    lines = {line.get_label(): line for line in data_lines(fig)}
    sim, theory = lines["memory (q0)"], lines["Proposition 1"]
    assert sim.get_linestyle() == "-" and theory.get_linestyle() == "--"
    assert to_hex(sim.get_color()) == to_hex(theory.get_color())
    assert len(fig.axes[0].collections) == 1  # a band for the simulation only
    # The same table from Python: the theory part is named.
    t = sl.run(SWEEP, out=run_dir.parent / "again", progress=False)
    for fig in (sl.plot(t, "T", "error", "part", theory="theory"),):
        styles = {line.get_label(): (line.get_linestyle(), to_hex(line.get_color())) for line in data_lines(fig)}
        assert styles["theory"][0] == "--" and styles["sim"][0] == "-" and styles["theory"][1] == styles["sim"][1]
    # Without theory= a table's part is a simulation like any other: solid, its own colour.
    styles = [(line.get_linestyle(), to_hex(line.get_color())) for line in data_lines(sl.plot(t, "T", "error", "part"))]
    assert styles[0][0] == styles[1][0] == "-" and styles[0][1] != styles[1][1]


def test_theory_without_a_simulation_takes_the_next_colour(run_dir):
    # The asymptote is a metric of the theory part only: dashed, in the next colour.
    fig = sl.plot(run_dir, y=["error", "asymptote"])
    styles = {line.get_label(): (line.get_linestyle(), to_hex(line.get_color())) for line in data_lines(fig)}
    assert styles["error, Proposition 1"] == ("--", styles["error, memory (q0)"][1])
    assert styles["asymptote, Proposition 1"][0] == "--"
    assert styles["asymptote, Proposition 1"][1] == "#d55e00"
    # A metric named in theory= is dashed in the colour of its series' curve.
    t = table()
    t["bound"] = t["error"] * 2 + 0.1
    fig = sl.plot(t, "d", ["error", "bound"], "T", theory="bound")
    styles = {line.get_label(): (line.get_linestyle(), to_hex(line.get_color())) for line in data_lines(fig)}
    assert styles["bound, T = 100"] == ("--", styles["error, T = 100"][1])
    assert styles["bound, T = inf"] == ("--", styles["error, T = inf"][1])


def test_a_results_directory_uses_its_plot_table(run_dir):
    fig = sl.plot(run_dir)
    ax = fig.axes[0]
    assert ax.get_xscale() == "log" and ax.get_yscale() == "log"
    assert ax.get_xlabel() == "samples T" and ax.get_title() == "memory against Proposition 1"
    assert "band: ± 1 sem over runs" in legend_texts(fig)
    summary = np.genfromtxt(run_dir / "summary.csv", delimiter=",", names=True, dtype=None, encoding="utf-8")
    sim = summary[summary["part"] == "sim"]
    line = data_lines(fig)[0]
    assert np.array_equal(line.get_xdata(), sim["T"]) and np.allclose(line.get_ydata(), sim["error"], rtol=1e-15)
    # Keywords override the file's choices.
    fig = sl.plot(run_dir, log="x", band="std", title="mine", where={"part": "sim"})
    assert fig.axes[0].get_yscale() == "linear" and fig.axes[0].get_title() == "mine"
    assert len(data_lines(fig)) == 1 and "band: ± 1 std over runs" in legend_texts(fig)
    assert len(data_lines(sl.plot(run_dir / "summary.csv"))) == 2
    # A condition on a parameter a part lacks keeps that part's rows (the theory has no d).
    assert [line.get_label() for line in data_lines(sl.plot(run_dir, where={"d": 300}))] == \
        ["memory (q0)", "Proposition 1"]
    assert [line.get_label() for line in data_lines(sl.plot(run_dir, where="d != 300"))] == ["Proposition 1"]
    # Without a [plot] table the band is the function's default, sem, and the sweep's title stays.
    plain = run_dir.parent / "no-plot"
    sl.run({k: v for k, v in SWEEP.items() if k != "plot"}, out=plain, progress=False)
    fig = sl.plot(plain, x="T", y="error", series="part")
    assert "band: ± 1 sem over runs" in legend_texts(fig) and fig.axes[0].get_title() == SWEEP["title"]


def test_draws_into_a_given_axes():
    fig, (left, right) = plt.subplots(1, 2)
    assert sl.plot(table(), "d", "error", "T", ax=right) is fig
    assert len(right.get_lines()) == 2 and not left.get_lines()


def test_many_points_are_drawn_without_markers():
    x = np.arange(1, 101, dtype=np.float64)
    t = {"x": x, "y": 1 / x, "y_std": 0 * x, "y_sem": 0 * x, "count": np.ones(100)}
    assert data_lines(sl.plot(t, "x", "y"))[0].get_marker() in (None, "None", "")
    assert data_lines(sl.plot({k: v[:60] for k, v in t.items()}, "x", "y"))[0].get_marker() == "o"


def test_bad_columns_raise_value_errors_that_list_the_columns(run_dir):
    t = table()
    for kwargs, name in ((dict(x="D", y="error"), "x='D'"), (dict(x="d", y="err"), "y='err'"),
                         (dict(x="d", y=["error", "eror"]), "y='eror'"),
                         (dict(x="d", y="error", series="t"), "series='t'"),
                         (dict(x="d", y="error", where={"dd": 1}), "where='dd'"),
                         (dict(x="d", y="error", where="q <= 3"), "where='q'")):
        with pytest.raises(ValueError, match=name) as e:
            sl.plot(t, **kwargs)
        assert "columns: d, T, error, error_std, error_sem, count" in str(e.value)
    with pytest.raises(ValueError, match="OP"):
        sl.plot(t, "d", "error", where="d << 3")
    with pytest.raises(ValueError, match="band"):
        sl.plot(t, "d", "error", band="var")
    with pytest.raises(ValueError, match="theory='oops'"):
        sl.plot(t, "d", "error", theory="oops")
    with pytest.raises(ValueError, match="x="):
        sl.plot(t)
    with pytest.raises(ValueError, match="y='nope'.*columns: part, N, M"):
        sl.plot(run_dir, y="nope")
    with pytest.raises(ValueError, match="summary.csv"):
        sl.plot(run_dir / "missing")


# A deterministic sweep (fast) whose [plot] draws theory lines given as formulas, renames the
# legend and writes its labels in gnuplot's markup, as experiments/cabannes2023/prop1.toml does.
REFERENCE_SWEEP = {
    "measure": "memory.infinite_memory_error",
    "title": "Proposition 1",
    "runs": 1,
    "params": {"N": 100000},
    "grid": {"alpha": [1.5, 2.0], "T": [10, 100, 1000, 10000]},
    "plot": {"x": "T", "y": "error", "series": "alpha", "log": ["x", "y"], "xlabel": "samples T, n_x",
             "legend": {"alpha = 1.5": "α = 1.5", "alpha = 2": "α = 2"},
             "reference": [{"expr": "zeta(alpha)^(-1/alpha)*gamma(1-1/alpha)/alpha*T^(-(1-1/alpha))",
                            "label": "asymptote, {/Symbol a} = 2", "where": {"alpha": 2}},
                           "T^-0.5"]},
}


@pytest.fixture(scope="module")
def reference_dir(tmp_path_factory):
    out = tmp_path_factory.mktemp("plot") / "references"
    sl.run(REFERENCE_SWEEP, out=out, progress=False)
    return out


def test_a_directorys_reference_lines_are_drawn_with_the_labs_evaluator(reference_dir):
    fig = sl.plot(reference_dir)
    lines = {line.get_label(): line for line in data_lines(fig)}
    assert len(lines) == 4  # two series, two references
    assert legend_texts(fig) == ["α = 1.5", "α = 2", "asymptote, α = 2", "T$^{-0.5}$"]
    asymptote, guide = lines["asymptote, α = 2"], lines["T$^{-0.5}$"]
    # The asymptote at alpha = 2: zeta(2)^(-1/2) Gamma(1/2) / 2 T^(-1/2), here in closed form.
    t = asymptote.get_xdata()
    assert np.allclose(asymptote.get_ydata(), (6 / np.pi ** 2) ** 0.5 * np.sqrt(np.pi) / 2 * t ** -0.5, rtol=1e-12)
    assert t.min() == pytest.approx(10) and t.max() == pytest.approx(10000) and len(t) == 200
    assert np.allclose(np.diff(np.log(t)), np.log(1000) / 199)  # log-spaced on the log x axis
    # Pinned to alpha = 2: that curve's theory, dashed in its colour; the bare formula is a black guide.
    assert to_hex(asymptote.get_color()) == to_hex(lines["α = 2"].get_color())
    assert asymptote.get_linestyle() == "--"
    assert to_hex(guide.get_color()) == "#222222" and guide.get_linestyle() == "--"
    assert np.allclose(guide.get_ydata(), guide.get_xdata() ** -0.5, rtol=1e-12)
    assert fig.axes[0].get_xlabel() == "samples T, n$_{x}$"  # single-character subscript, as gnuplot draws it


def test_a_simulation_with_a_theory_is_thin_under_it(reference_dir):
    fig = sl.plot(reference_dir)
    lines = {line.get_label(): line for line in data_lines(fig)}
    paired, alone, theory = lines["α = 2"], lines["α = 1.5"], lines["asymptote, α = 2"]
    assert paired.get_linewidth() < alone.get_linewidth() < theory.get_linewidth()
    assert paired.get_marker() == "o" and paired.get_zorder() < theory.get_zorder()
    # Theory parts are drawn after (over) every simulation, whatever the order of the parts.
    t = table()
    t["bound"] = t["error"] * 2 + 0.1
    fig = sl.plot(t, "d", ["bound", "error"], "T", theory="bound")
    order = [line.get_label() for line in data_lines(fig)]
    assert order.index("bound, T = 100") > order.index("error, T = inf")
    styles = {line.get_label(): line.get_linewidth() for line in data_lines(fig)}
    assert styles["error, T = 100"] < styles["bound, T = 100"]


def test_reference_keyword_takes_formulas_and_functions(reference_dir):
    fig = sl.plot(reference_dir, reference=[
        {"expr": "2*T^(-1/alpha)", "where": {"alpha": 1.5}},  # no label: the formula, powers raised
        {"fn": lambda T: 3 / T, "label": "3/T"},
        np.sqrt])
    lines = {line.get_label(): line for line in data_lines(fig)}
    assert set(lines) == {"α = 1.5", "α = 2", "2*T$^{-1/alpha}$", "3/T", "sqrt"}  # the keyword replaces the file's
    pinned = lines["2*T$^{-1/alpha}$"]
    assert np.allclose(pinned.get_ydata(), 2 * pinned.get_xdata() ** (-1 / 1.5), rtol=1e-12)
    assert to_hex(pinned.get_color()) == to_hex(lines["α = 1.5"].get_color())
    assert np.allclose(lines["3/T"].get_ydata(), 3 / lines["3/T"].get_xdata())
    assert [to_hex(lines[k].get_color()) for k in ("3/T", "sqrt")] == ["#222222", "#777777"]
    assert len(legend_texts(fig)) == 5
    # On a table too, with the table's parameters.
    t = table()
    fig = sl.plot(t, "d", "error", "T", log="x", reference={"expr": "0.1*d^0 + 0*T", "where": {"T": 100}})
    assert len(data_lines(fig)) == 3 and np.allclose(data_lines(fig)[2].get_ydata(), 0.1)


def test_bad_references_raise_clear_errors(reference_dir):
    with pytest.raises(ValueError, match="label"):
        sl.plot(reference_dir, reference=lambda T: T)
    with pytest.raises(ValueError, match="'beta'"):
        sl.plot(reference_dir, reference="T^beta")
    with pytest.raises(ValueError):
        sl.plot(reference_dir, reference="T^^2")  # the lab's parser names the position
    with pytest.raises(ValueError, match="expr= .* or fn="):
        sl.plot(reference_dir, reference={"label": "nothing"})
    with pytest.raises(ValueError, match="'colour'"):
        sl.plot(reference_dir, reference={"expr": "T", "colour": "red"})
    with pytest.raises(TypeError, match="reference"):
        sl.plot(reference_dir, reference=3)
    with pytest.warns(UserWarning, match="no row matches"):
        fig = sl.plot(reference_dir, reference={"expr": "T", "label": "T", "where": {"alpha": 7}})
    assert len(data_lines(fig)) == 2


def test_legend_map_of_the_directory_and_the_keyword(reference_dir, run_dir):
    assert legend_texts(sl.plot(reference_dir, reference=[]))[:2] == ["α = 1.5", "α = 2"]
    fig = sl.plot(reference_dir, reference=[], legend={"alpha = 2": "alpha two"})
    assert legend_texts(fig) == ["alpha = 1.5", "alpha two"]  # the keyword replaces the file's map
    with pytest.warns(UserWarning, match="no curve is labelled 'nope'"):
        sl.plot(reference_dir, reference=[], legend={"nope": "x"})
    # Keys are the labels the lab's figures use: metric, series value, then part.
    fig = sl.plot(run_dir, y=["error", "asymptote"], series="N", legend={"error, N = 300, memory (q0)": "simulated"})
    assert "simulated" in legend_texts(fig) and "error, N = 300, Proposition 1" in legend_texts(fig)
    # Large numbers of a series read as powers of ten.
    big = {"C": np.array([6e18, 6e18, 1e19, 1e19]), "D": np.array([1.0, 2, 1, 2]), "loss": np.array([3.0, 2, 2, 1])}
    assert legend_texts(sl.plot(big, "D", "loss", "C")) == [r"C = $6\times 10^{18}$", "C = $10^{19}$"]


def test_a_band_on_a_log_axis_stays_positive_and_is_cut_at_a_third_of_the_mean():
    t = table()
    t["error_sem"] = np.full(8, 0.1)  # wider than most means: mean - sem < 0
    fig = sl.plot(t, "d", "error", "T", log="xy")
    ax = fig.axes[0]
    for band, line in zip(ax.collections, data_lines(fig)):
        outline = band.get_paths()[0].vertices
        mean = line.get_ydata()
        n = len(mean)
        lower = outline[n:2 * n, 1][::-1]  # the polygon: upper edge left to right, lower edge back
        assert np.all(lower > 0)
        assert np.allclose(lower, np.maximum(mean - 0.1, mean / 3))
    cut = int(np.sum(t["error"][t["error"] > 0] - 0.1 < t["error"][t["error"] > 0] / 3))
    assert notes(fig) == [f"not shown: 1 point with error = 0 (log y axis); band cut at mean/3 at {cut} points "
                          "(log y axis)"]
    low = min(line.get_ydata().min() for line in data_lines(fig))
    assert ax.get_ylim()[0] >= low / 3 * 0.5  # no band runs to the bottom of the frame
    assert notes(sl.plot(t, "d", "error", "T", log="x")) == []  # linear y: the whole band


def test_many_bands_are_lighter():
    t = {"d": np.tile([8.0, 16, 32], 4), "P": np.repeat([1, 2, 3, 4], 3), "error": np.linspace(0.1, 0.5, 12),
         "error_sem": np.full(12, 0.01)}
    assert {round(b.get_alpha(), 2) for b in sl.plot(t, "d", "error", "P").axes[0].collections} == {0.10}
    few = {k: v[:9] for k, v in t.items()}
    assert {round(b.get_alpha(), 2) for b in sl.plot(few, "d", "error", "P").axes[0].collections} == {0.18}


def test_lines_added_later_join_the_legend():
    from scalinglab.plot import update_legend

    fig = sl.plot(table(), "d", "error", "T", log="xy")
    ax = fig.axes[0]
    ax.axvline(20, ls=":", label="threshold")
    ax.plot([10, 20], [0.1, 0.2], "*", label="minima")
    ax.plot([10, 20], [0.3, 0.2])  # no label: not an entry
    assert update_legend(fig) is None  # a notebook cell ending with it shows the figure once
    assert legend_texts(fig) == ["T = 100", "T = inf", "threshold", "minima", "band: ± 1 sem over runs"]
    assert notes(fig) == ["not shown: 1 point with error = 0 (log y axis)"]  # the note drawn once
    with pytest.raises(ValueError, match="scalinglab.plot"):
        update_legend(plt.figure())


def test_a_table_of_means_only_says_why_it_has_no_band(tmp_path):
    pd = pytest.importorskip("pandas")
    sweep = {k: v for k, v in SWEEP.items() if k != "plot"}
    main = sl.run(sweep, out=tmp_path / "r", progress=False)  # default columns: the means only
    assert isinstance(main, pd.DataFrame) and "error_sem" not in main.columns
    fig = sl.plot(main, x="T", y="error", series="part", log="xy")
    said = notes(fig)
    assert any("no band: the table has no error_sem" in t and 'columns="all"' in t for t in said), said
    plt.close(fig)
    full = sl.run(sweep, out=tmp_path / "r", progress=False, columns="all")  # the same folder, reused
    fig = sl.plot(full, x="T", y="error", series="part", log="xy")
    assert not any("no band" in t for t in notes(fig))
    assert fig.axes[0].collections, "the full table's sem gives a band"
    plt.close(fig)


def test_a_directorys_files_are_read_as_the_core_reads_them(tmp_path, deadline):
    # Not UTF-8, or 1.5 GB of holes: refused at once with a sentence, neither a UnicodeDecodeError
    # nor seconds of reading ending in a csv.Error.
    bad = tmp_path / "bad"
    bad.mkdir()
    table = b"T,error\n10,0.5\n100,\xff\n"
    (bad / "summary.csv").write_bytes(table)
    at = table.index(b"\xff")
    with pytest.raises(ValueError, match=rf"summary.csv: byte {at} \(0xff\) is not UTF-8 text"):
        sl.plot(bad, x="T", y="error")
    big = tmp_path / "big"
    big.mkdir()
    with open(big / "summary.csv", "wb") as f:
        f.truncate(1500 << 20)
    with deadline(10), pytest.raises(ValueError, match=f"summary.csv: {1500 << 20} bytes is more than the"):
        sl.plot(big, x="T", y="error")
