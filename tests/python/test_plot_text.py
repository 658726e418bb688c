"""Text a user writes (titles, axis labels, a law's formula) drawn by matplotlib: as written, powers
raised as mathtext superscripts, and never a text that makes mathtext fail."""
import pytest

matplotlib = pytest.importorskip("matplotlib")
matplotlib.use("Agg")
import matplotlib.cbook as cbook  # noqa: E402
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
from matplotlib.mathtext import MathTextParser  # noqa: E402

import scalinglab as sl  # noqa: E402
from scalinglab._plot_text import user_text  # noqa: E402


@pytest.mark.parametrize("text, shown", [
    ("error at 10^4 samples", "error at $10^{4}$ samples"),
    ("10^-3", "$10^{-3}$"),
    ("y = E + A x^-a", "y = E + A x$^{-a}$"),
    ("N^alpha_N", r"N$^{\alpha_{N}}$"),
    ("x^(1-a) and x^{1 - a}", r"x$^{1-a}$ and x$^{1\ -\ a}$"),
    ("cost $5 for 10^4 runs", r"cost \$5 for $10^{4}$ runs"),
    ("$\\alpha$ as typed", r"\$\alpha\$ as typed"),       # a $ is a dollar: no mathtext of the user's
    ("x\\^2, x^, x^&y, x^(a&b), a^(b", "x^2, x^, x^&y, x^(a&b), a^(b"),  # nothing mathtext can raise
    ("plain text", "plain text"),
])
def test_powers_are_raised_and_the_rest_shown_as_written(text, shown):
    assert user_text(text) == shown


def test_no_text_makes_mathtext_fail():
    parser = MathTextParser("agg")
    for text in ["x^(a_b c%#)", "x^(a\"b)", "x^`a", "10^4 $ x^-a $", "\\$x^2", "a\\b^2", "x^{a}^{b}", "x^(y^z)",
                 "2.5^3 v1.5^-2", "x^(α−1)", "x^é", "$$", "a_b^c_d", "x^{}", "^2"]:
        shown = user_text(text)
        if cbook.is_math_text(shown):
            parser.parse(shown, 72)  # raises ValueError on a text mathtext cannot draw


def test_plot_shows_titles_and_labels_with_powers_raised():
    t = {"d": np.array([8.0, 16.0]), "error": np.array([0.5, 0.3])}
    fig = sl.plot(t, "d", "error", title="error at 10^4 samples, $5", xlabel="d (x 10^3)", ylabel="error^-1")
    ax = fig.axes[0]
    assert ax.get_title() == r"error at $10^{4}$ samples, \$5"
    assert (ax.get_xlabel(), ax.get_ylabel()) == ("d (x $10^{3}$)", "error$^{-1}$")
    fig.canvas.draw()  # mathtext accepts them
    plt.close(fig)


def test_plot_fit_titles_the_law_with_its_formula_in_mathtext(tmp_path):
    x = np.logspace(0, 3, 12)
    table = tmp_path / "law.csv"  # a file: no DataFrame to build
    table.write_text("x,loss\n" + "".join(f"{a!r},{1 + 3 * a ** -0.5!r}\n" for a in x.tolist()))
    r = sl.fit(str(table), "saturating", x="x", bootstrap=0, progress=False)
    fig = sl.plot_fit(r, panels=["law"])
    title = fig.axes[0].get_title()
    assert title.startswith("Fitted law: ") and "$^{" in title and "x^" not in title
    MathTextParser("agg").parse(title, 72)
    plt.close(fig)
