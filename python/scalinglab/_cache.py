"""The task cache from Python (results/task_cache.hpp): what a cache folder holds, and pruning it,
as `scalinglab cache stats|prune` does. run() reads and writes it (its cache= keyword)."""

import os

from . import _scalinglab as _core


def cache_stats(cache="results/.cache"):
    """What a task cache holds: {"entries", "bytes", "this_build" (entries this build of the lab
    reuses), "unreadable" (entries that do not parse), "temporaries" (writes cut short), "by_measure",
    "by_build", "oldest", "newest" (modification times, seconds since the epoch)}."""
    return _core.cache_stats(os.fspath(cache))


def prune_cache(cache="results/.cache", older_than=None, all=False):  # noqa: A002
    """Removes entries of other builds of the lab, entries that do not parse and cut writes; also
    those older than `older_than` (seconds, or "12h", "30d"), or every entry with all=True. Refused
    (ValueError) while a run uses the cache. Returns {"removed", "bytes", "kept"}."""
    if older_than is None:
        age = ""
    elif isinstance(older_than, str) or (isinstance(older_than, (int, float)) and not isinstance(older_than, bool)):
        age = older_than if isinstance(older_than, str) else repr(float(older_than))
    else:
        raise TypeError(f"prune_cache: older_than={older_than!r}: expected seconds or a duration such as \"30d\"")
    return _core.prune_cache(os.fspath(cache), bool(all), age)
