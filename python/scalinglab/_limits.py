"""The limits checked before any work starts (the command line's --max-points, --max-tasks,
--max-memory, --max-work), for this process: a sweep past one is refused before it computes."""

from . import _scalinglab as _core


def limits():
    """The limits checked before any work starts: {"max_points", "max_tasks", "max_memory"} (grid
    points of a sweep, tasks of a sweep or runs of an eval, bytes the runs going at once may
    allocate by the measures' estimates). See docs/reliability.md."""
    return dict(_core.get_limits())


def set_limits(max_points=None, max_tasks=None, max_memory=None, max_work=None):
    """Raises (or lowers) the limits for this process; None keeps a limit as it is. A run past a
    limit raises ValueError at once, before anything is computed. `max_work`: elementary operations
    one run may take, by the measures' estimates (0: no limit, the default)."""
    cur = limits()
    _core.set_limits(float(cur["max_points"] if max_points is None else max_points),
                     float(cur["max_tasks"] if max_tasks is None else max_tasks),
                     float(cur["max_memory"] if max_memory is None else max_memory),
                     float(cur.get("max_work", 0) if max_work is None else max_work))
