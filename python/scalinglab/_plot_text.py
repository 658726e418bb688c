"""Text of the lab's figures for matplotlib: gnuplot's enhanced markup of [plot] labels, names shown
as written, formulas with raised powers, large numbers as powers of ten (scalinglab.plot)."""

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
