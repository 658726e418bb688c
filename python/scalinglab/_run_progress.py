"""A sweep's progress in a notebook or a terminal (scalinglab.run): the core calls it after each task."""

import math
import sys
import time
import warnings


def _tqdm():
    """tqdm's notebook widget (tqdm.auto) when ipywidgets 7 or later is there, else its text bar. None
    without tqdm. tqdm.auto without ipywidgets warns "IProgress not found" in every notebook, and
    ipywidgets 6 (Debian 12's) opens its widgets in a form that nbconvert's executor (nbclient)
    fails on (KeyError: 'state'), stopping a headless run of the notebook."""
    try:
        import tqdm
    except ImportError:
        return None
    with warnings.catch_warnings():  # ipywidgets and traitlets: a DeprecationWarning on import
        warnings.simplefilter("ignore", DeprecationWarning)
        try:
            import ipywidgets
        except ImportError:
            return tqdm.tqdm
        try:
            major = int(str(ipywidgets.__version__).split(".")[0])
        except ValueError:
            major = 0
        if major < 7:
            return tqdm.tqdm
        from tqdm.auto import tqdm as auto
    return auto


class _Bar:
    """Progress in a notebook or a terminal: tqdm when installed, else one plain line on
    sys.stderr, redrawn in place (a carriage return) at most every half second."""

    def __init__(self, label):
        self.label, self.bar, self.last, self.open = label, None, 0.0, False
        self.tqdm = _tqdm()

    def __call__(self, done, total, seconds_left):
        if self.tqdm is not None:
            if self.bar is None:
                self.bar = self.tqdm(total=total, initial=done, desc=self.label, unit="task")
            self.bar.n = done
            self.bar.refresh()
            return
        now = time.monotonic()
        if now - self.last < 0.5 and done < total:
            return
        self.last = now
        eta = "?" if math.isnan(seconds_left) else f"{seconds_left:.0f}s"
        self.open = done < total
        print(f"\r{self.label}: {done}/{total} tasks, ETA {eta}   ", end="" if self.open else "\n",
              file=sys.stderr, flush=True)

    def reused(self, total, out, from_cache=0, cache=""):
        where = f"already done in {out}" if not from_cache else \
            f"already done ({from_cache} taken from the task cache {cache} into {out})"
        print(f"{self.label}: all {total} tasks {where}; nothing to run "
              f"(overwrite=True, cache=False runs them again)", file=sys.stderr, flush=True)

    def close(self, stopped=False):
        """Ends the display. A stopped run's bar is removed rather than left frozen at its last count
        (the exception's message says how many tasks were done)."""
        if self.bar is not None:
            if stopped:
                self.bar.leave = False
            self.bar.close()
        if self.open:  # a run stopped part way: the line ends where it was
            print(file=sys.stderr, flush=True)
            self.open = False
