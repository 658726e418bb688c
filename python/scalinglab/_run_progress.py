"""A sweep's progress in a notebook or a terminal (scalinglab.run): the core calls it after each task."""

import math
import sys
import time


class _Bar:
    """Progress in a notebook or a terminal: tqdm when installed, else one plain line on
    sys.stderr, redrawn in place (a carriage return) at most every half second."""

    def __init__(self, label):
        self.label, self.bar, self.last, self.open = label, None, 0.0, False
        try:
            from tqdm.auto import tqdm
            self.tqdm = tqdm
        except ImportError:
            self.tqdm = None

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

    def reused(self, total, out):
        print(f"{self.label}: all {total} tasks already done in {out}; nothing to run "
              f"(overwrite=True runs them again)", file=sys.stderr, flush=True)

    def close(self):
        if self.bar is not None:
            self.bar.close()
        if self.open:  # a run stopped part way: the line ends where it was
            print(file=sys.stderr, flush=True)
            self.open = False
