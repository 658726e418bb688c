"""Text of the lab's figures for matplotlib: gnuplot's enhanced markup of [plot] labels, names shown
as written, a user's titles and formulas with raised powers, large numbers as powers of ten
(scalinglab.plot, scalinglab.plot_fit)."""

import math
import re

import numpy as np

GREEK = dict(zip("abgdezhqiklmnxoprstufcyw", "αβγδεζηθικλμνξοπρστυφχψω"))


def label_text(text):
    """A [plot] text (gnuplot enhanced markup) or a name, made safe for matplotlib: a literal $
    stays one, \\_ is _, ^{...} and _{...} become super- and subscripts, as do ^ and _ before a
    single character (n_x, f^n), and {/Symbol a} is α."""
    if text is None:
        return None
    s = str(text).replace("$", r"\$")
    s = re.sub(r"\{/Symbol\s+(\w)\}", lambda m: GREEK.get(m.group(1).lower(), m.group(1)), s)
    s = s.replace("\\_", "\x00").replace("\\^", "\x01")  # escaped: shown as written

    def script(m):
        return "$" + m.group(1) + "{" + m.group(2).replace(" ", r"\ ").replace("\x00", r"\_") + "}$"

    s = re.sub(r"([\^_])\{([^{}]*)\}", script, s)
    s = re.sub(r"([\^_])([^\s{}$\\\x00\x01])", script, s)
    return s.replace("\x00", "_").replace("\x01", "^")


def plain(name):
    """A column name or value shown as written (no mathtext)."""
    return str(name).replace("$", r"\$")


# Greek letters by name, raised as letters: x^alpha reads x^α.
_GREEK_NAMES = {"alpha", "beta", "gamma", "delta", "epsilon", "zeta", "eta", "theta", "iota", "kappa", "lambda", "mu",
                "nu", "xi", "pi", "rho", "sigma", "tau", "upsilon", "phi", "chi", "psi", "omega"}
# What an exponent may hold to be raised: letters, digits, spaces and the signs that mathtext draws
# as themselves. With anything else the ^ is shown as written, so that no text can make mathtext fail.
_EXPONENT = re.compile(r"[\w .+\-−*/,:;=<>|()\[\]!?'@%#]+")
_BARE = re.compile(r"[-+−]?(?:\d+(?:\.\d+)?|[^\W\d_]\w*)")  # the exponent of 10^-3, x^a, N^alpha_N


def _math(exponent):
    """An exponent as mathtext (inside $^{...}$): % and # escaped, spaces kept, Greek names as
    letters, alpha_N as alpha with subscript N."""
    def name(word):
        return "\\" + word if word in _GREEK_NAMES else word

    def piece(m):
        if m.group(1):
            head, *subs = m.group(1).split("_")
            return name(head) + "".join("_{" + name(sub) + "}" if sub else r"\_" for sub in subs)
        return {"_": r"\_", " ": r"\ "}.get(m.group(0), "\\" + m.group(0))

    return re.sub(r"([^\W\d_]\w*)|[_ %#]", piece, exponent)


def _closing(text, i):
    """The index of the bracket closing the one at text[i], or -1."""
    opening, closing, depth = text[i], {"(": ")", "{": "}"}[text[i]], 0
    for k in range(i, len(text)):
        depth += (text[k] == opening) - (text[k] == closing)
        if depth == 0:
            return k
    return -1


def user_text(text):
    """Text a user wrote (a title, an axis label, a law's formula) for matplotlib: shown as written,
    powers raised as mathtext superscripts: 10^4, 10^-3, x^-a, N^alpha, x^(1-a) and x^{1-a} (the
    brackets dropped). Every $ is a dollar sign and \\^ a caret; an exponent is raised only when
    mathtext draws all of it as written, so no text can make the drawing fail."""
    if text is None:
        return None
    text = str(text)
    out, plain, i = [], "", 0
    while i < len(text):
        if text.startswith("\\^", i):
            plain, i = plain + "^", i + 2
            continue
        if text[i] != "^":
            plain, i = plain + text[i], i + 1
            continue
        exponent, end = None, i + 1
        if text[i + 1:i + 2] in ("(", "{"):
            k = _closing(text, i + 1)
            if k > i + 2:
                exponent, end = text[i + 2:k], k + 1
        else:
            m = _BARE.match(text, i + 1)
            if m:
                exponent, end = m.group(0), m.end()
        if exponent is None or not _EXPONENT.fullmatch(exponent):
            plain, i = plain + "^", i + 1  # nothing mathtext can raise: the caret as written
            continue
        # A number's power is drawn whole in mathtext ($10^{4}$); a name's exponent after it (x$^{-a}$).
        number = re.search(r"(?<![\w.])\d+(?:\.\d+)?$", plain)
        base = number.group(0) if number else ""
        out.append(plain[:len(plain) - len(base)].replace("$", r"\$") + "$" + base + "^{" + _math(exponent) + "}$")
        plain, i = "", end
    return "".join(out) + plain.replace("$", r"\$")


def formula_text(expr):
    """A formula as its legend shows it, as the lab's figures do: written as is, powers raised
    ("d^(1-alpha)" shows 1-alpha as a superscript of d)."""
    out, i = [], 0
    while i < len(expr):
        ch = expr[i]
        if ch != "^":
            out.append(plain(ch))
            i += 1
            continue
        j = i + 1
        if j < len(expr) and expr[j] == "(":  # a balanced group, outer parentheses dropped
            depth, k = 0, j
            while k < len(expr):
                depth += {"(": 1, ")": -1}.get(expr[k], 0)
                if depth == 0:
                    break
                k += 1
            exponent, i = expr[j + 1:k], k + 1
        else:  # a signed number or name
            m = re.match(r"[-+]?[\w.]*", expr[j:])
            exponent, i = m.group(0), j + m.end()
        safe = re.sub(r"([_#%&{}$\\])", r"\\\1", exponent).replace(" ", r"\ ")
        out.append("$^{" + safe + "}$")
    return "".join(out)


def series_number(v):
    """A large or small number of a series label: 6e+18 reads 6×10^18 (as mathtext)."""
    if v != 0 and math.isfinite(v) and (abs(v) >= 1e6 or abs(v) < 1e-3) and not (v == math.floor(v) and abs(v) < 1e6):
        mantissa, exponent = np.format_float_scientific(v, trim="-", exp_digits=1).split("e")
        power = f"10^{{{int(exponent)}}}"
        return f"${power}$" if mantissa == "1" else f"${mantissa}\\times {power}$"
    return None
