"""A long fit's progress in a notebook or a terminal: one bar per stage (the starts, the polishing,
the bootstrap refits, ...), tqdm when installed, else a plain line on sys.stderr redrawn in place.
Nothing is shown for a fit that ends within a few seconds."""

import sys
import time

from ._run_progress import _tqdm


class _StageBar:
    def __init__(self, quiet_seconds=3.0):
        self.start = time.monotonic()
        self.quiet = quiet_seconds
        self.stage, self.bar, self.open, self.last = None, None, False, 0.0
        self.tqdm = _tqdm()

    def __call__(self, stage, done, total):
        now = time.monotonic()
        if now - self.start < self.quiet:
            return
        if stage != self.stage:
            self.close()
            self.stage = stage
        if self.tqdm is not None:
            if self.bar is None:
                self.bar = self.tqdm(total=total, initial=done, desc=stage, leave=False)
            self.bar.n = done
            self.bar.refresh()
            return
        if now - self.last < 0.5 and done < total:
            return
        self.last = now
        self.open = done < total
        print(f"\r{stage}: {done}/{total}   ", end="" if self.open else "\n", file=sys.stderr, flush=True)

    def close(self):
        if self.bar is not None:
            self.bar.close()
            self.bar = None
        if self.open:
            print(file=sys.stderr, flush=True)
            self.open = False


def _progress_callable(progress):
    """progress=True: a _StageBar; False or None: nothing; a callable: itself."""
    if progress is True:
        return _StageBar()
    if progress is False or progress is None:
        return None
    if not callable(progress):
        raise TypeError("progress: give True, False or a callable (stage, done, total)")
    return progress
