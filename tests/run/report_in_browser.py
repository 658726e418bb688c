#!/usr/bin/env python3
"""A reproduction's report.html as a reader sees it: opened in headless Chromium.

    report_in_browser.py REPORT_DIR [--max-bytes N] [--min-figures K]

Checks that report.html weighs at most N bytes (default 3 MB), that every figure it shows loads
in the browser (an <img> that is complete with a natural width; a linked figure's file exists),
that it shows one figure per sweep whose file has a [plot] table (and at least K), each at least
850 px wide in a 1100 px window, that its sections come in the paper's order (fig3 before fig10)
under a table of contents giving each section's PASS/FAIL counts, and writes a screenshot of the
top of the page to REPORT_DIR/report-screenshot.png (checked not to be blank). Exit status 0 when all hold, 1 with a
message naming what failed, 77 (skipped) when no Chromium is installed.
"""

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

BROWSERS = ("chromium", "chromium-browser", "google-chrome")
# Headless, offline and without a profile of its own: the flags that keep Chromium from reaching
# for the network (refused here) and from needing a sandbox (tests may run as root).
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync",
         "--hide-scrollbars", "--virtual-time-budget=20000"]

# Appended to a copy of the page: after every image has loaded (or failed), the page writes what
# it saw into an element that --dump-dom prints.
PROBE = """<script>
window.addEventListener("load", () => {
  const images = Array.from(document.images);
  const broken = images.filter(i => !(i.complete && i.naturalWidth > 0 && i.getBoundingClientRect().width > 50))
                       .map(i => i.alt || i.getAttribute("src").slice(0, 80));
  const out = document.createElement("pre");
  out.id = "scalinglab-probe";
  const narrow = images.filter(i => i.getBoundingClientRect().width < 850)
                       .map(i => (i.alt || "?") + " " + Math.round(i.getBoundingClientRect().width) + " px");
  out.textContent = JSON.stringify({images: images.length, broken: broken, narrow: narrow,
                                    height: document.documentElement.scrollHeight});
  document.body.appendChild(out);
});
</script>
"""


def browser():
    for name in BROWSERS:
        path = shutil.which(name)
        if path:
            return path
    return None


def run(exe, profile, args):
    cmd = [exe, *FLAGS, f"--user-data-dir={profile}", *args]
    return subprocess.run(cmd, capture_output=True, text=True, timeout=180)


def png_colours(path):
    """How many distinct colours a sample of the screenshot's pixels has (a blank page has one)."""
    try:
        import matplotlib.image as image
        import numpy as np
    except ImportError:
        return None  # cannot tell
    pixels = (image.imread(str(path))[::4, ::4, :3] * 255).astype(np.uint8).reshape(-1, 3)
    return len(np.unique(pixels, axis=0))


def natural_key(name):
    """fig3 < fig10: digits compare as numbers (the order a reader of the paper expects)."""
    return [(0, int(t), len(t)) if t.isdigit() else (1, t, 0) for t in re.findall(r"\d+|\D+", name)]


def contents_problems(html):
    """The sections' order and the table of contents, read from the page's markup."""
    problems = []
    sections = re.findall(r'<h2 id="sweep-(\d+)">([^<:]+)', html)
    names = [html_unescape(n) for _, n in sections]
    if not sections:
        return ["no numbered sweep sections (<h2 id=\"sweep-N\">)"]
    keys = [natural_key(n) for n in names]
    if keys != sorted(keys):
        problems.append(f"sections are not in the paper's order: {', '.join(names)}")
    nav = re.search(r"<nav>(.*?)</nav>", html, re.S)
    if not nav:
        return problems + ["no table of contents (<nav>)"]
    entries = re.findall(r'<li><a href="#sweep-(\d+)">([^<]+)</a> <span class="[a-z]+">([^<]+)</span>', nav.group(1))
    if [(k, html_unescape(n)) for k, n, _ in entries] != [(k, n) for (k, _), n in zip(sections, names)]:
        problems.append(f"the table of contents lists {len(entries)} sections, the page has {len(sections)}")
    # Each entry's counts agree with the status cells of its section.
    bodies = re.split(r'<h2 id="sweep-\d+">', html)[1:]
    for (_, name, counts), body in zip(entries, bodies):
        body = body.split("<h2")[0]
        passed = len(re.findall(r'<td class="pass">', body))
        failed = len(re.findall(r'<td class="fail">', body)) + body.count('<p class="fail">ERROR')
        known = len(re.findall(r'<td class="known">', body))
        want = "figure only" if passed + failed + known == 0 else \
            f"{passed} PASS" + (f", {failed} FAIL" if failed else "") + (f", {known} known" if known else "")
        if counts != want:
            problems.append(f"contents say {name}: {counts}; its section shows {want}")
    return problems


def html_unescape(text):
    import html as h
    return h.unescape(text)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("report_dir", type=Path)
    ap.add_argument("--max-bytes", type=int, default=3_000_000)
    ap.add_argument("--min-figures", type=int, default=1)
    a = ap.parse_args()
    report = a.report_dir / "report.html"
    if not report.is_file():
        print(f"report_in_browser: {report} does not exist", file=sys.stderr)
        return 1
    exe = browser()
    if exe is None:
        print("report_in_browser: no Chromium installed (chromium): skipped")
        return 77
    failures = []
    html = report.read_text(encoding="utf-8")
    size = report.stat().st_size
    print(f"{report}: {size / 1e6:.2f} MB (limit {a.max_bytes / 1e6:.1f} MB)")
    if size > a.max_bytes:
        failures.append(f"report.html weighs {size} bytes, more than {a.max_bytes}")
    linked = [s for s in re.findall(r'<img [^>]*src="([^"]+)"', html) if not s.startswith("data:")]
    for src in linked:
        if not (a.report_dir / src).is_file():
            failures.append(f"linked figure {src} does not exist")

    with tempfile.TemporaryDirectory(prefix="scalinglab-browser-") as profile:
        # The probed copy sits next to the report so that its relative links resolve the same way.
        probe = a.report_dir / ".report-probe.html"
        probe.write_text(html.replace("</body>", PROBE + "</body>") if "</body>" in html else html + PROBE,
                         encoding="utf-8")
        try:
            dom = run(exe, profile, ["--dump-dom", "--window-size=1100,1600", probe.resolve().as_uri()])
        finally:
            probe.unlink()
        m = re.search(r'<pre id="scalinglab-probe">(.*?)</pre>', dom.stdout, re.S)
        if not m:
            failures.append("the page did not finish loading in Chromium: " + dom.stderr.strip()[-400:])
            seen = {"images": 0, "broken": [], "narrow": [], "height": 0}
        else:
            seen = json.loads(m.group(1).replace("&quot;", '"').replace("&amp;", "&").replace("&lt;", "<")
                              .replace("&gt;", ">"))
        print(f"figures: {seen['images']} shown ({len(linked)} linked, {seen['images'] - len(linked)} inline), "
              f"{len(seen['broken'])} broken; page {seen['height']} px tall")
        for b in seen["broken"]:
            failures.append(f"figure does not load in the browser: {b}")
        for n in seen.get("narrow", []):
            failures.append(f"figure narrower than 850 px in a 1100 px window: {n}")
        failures += contents_problems(html)
        plotted = sorted(d.name for d in a.report_dir.iterdir()
                         if (d / "sweep.toml").is_file()
                         and re.search(r"^\[plot\]", (d / "sweep.toml").read_text(encoding="utf-8"), re.M))
        expected = max(a.min_figures, len(plotted))
        if seen["images"] < expected:
            missing = [p for p in plotted if f'alt="{p}"' not in html]
            failures.append(f"{seen['images']} figures shown, {expected} expected (missing: {', '.join(missing)})")

        shot = a.report_dir / "report-screenshot.png"
        if shot.exists():
            shot.unlink()
        run(exe, profile, [f"--screenshot={shot.resolve()}", "--window-size=1100,1600", report.resolve().as_uri()])
        if not shot.is_file():
            failures.append("Chromium wrote no screenshot")
        else:
            colours = png_colours(shot)
            print(f"screenshot: {shot} ({shot.stat().st_size / 1e3:.0f} KB, {colours} colours sampled)")
            if colours is not None and colours < 8:
                failures.append(f"the screenshot looks blank ({colours} colours)")

    for f in failures:
        print("FAIL " + f, file=sys.stderr)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
