"""scalinglab: a laboratory for neural scaling laws (Python interface).

Evaluate a measure at one point, run a sweep file, and get the results as numpy arrays or pandas
DataFrames. Every name and value is validated by the measure's declaration (the same one the
command line uses): a bad parameter raises ValueError naming it.

    >>> import scalinglab as sl
    >>> sl.measures()
    ['memory.error', ...]
    >>> print(sl.describe_text("memory.error"))            # parameters, defaults, ranges, metrics
    >>> sl.eval("memory.error", N=100, d=64, T=float("inf"), scheme="q0", runs=10, seed=1)
    {'measure': 'memory.error', 'params': {...}, 'metrics': {'error': {'mean': ..., ...}, ...}}
    >>> error = sl.eval("memory.error", N=100, d=64, runs=10)["metrics"]["error"]
    >>> error.mean, error.sem                   # also error["mean"]; float(error) is the mean
    >>> df = sl.run("experiments/cabannes2023/fig1-left.toml", out="/tmp/fig1", profile="quick")
    >>> df                                      # a DataFrame: the swept parameters, the metrics' means, count
    >>> sl.run(..., columns="all")              # every column of summary.csv (std, sem, fixed parameters)
    >>> fig = sl.plot("/tmp/fig1", x="d", y="error", series="T", log="xy")   # matplotlib, imported then

See docs/python.md for the full guide.
"""

# Each concept lives in a module of its own (_measures, _run, _results, _extrapolation, ...); the
# names, private ones included, are re-exported here, where callers and tests have always found them.
import dataclasses  # noqa: F401 (these modules were names of the package before the split: kept)
import json  # noqa: F401
import math  # noqa: F401
import numbers  # noqa: F401
import os  # noqa: F401

import numpy as np  # noqa: F401

from . import _folder, _sweep_toml  # noqa: F401
from . import _scalinglab as _core
from ._metric import Estimate, Exact, Metric
from ._fit_args import (_bounds_text, _call, _csv_input, _csv_text, _grid_list, _is_path,  # noqa: F401
                        _json_number, _python_terms, _scale, _where_list)
# After ._metric: scalinglab._metric is the function reading a metric, not that module.
from ._values import _assignments, _duration, _metric, _number, _param, _text  # noqa: F401
from ._measures import describe, describe_text, eval, measure, measures  # noqa: A004
from ._results import _DTYPES, _declared, _has_pandas, _select, _table, load_results, to_pandas  # noqa: F401
from ._run_messages import _RUN_KEYWORDS, _folder_terms, _run_terms  # noqa: F401
from ._run_progress import _Bar  # noqa: F401
from ._run import run, run_sweep, sweep_toml
from ._cache import cache_stats, prune_cache
from ._limits import limits, set_limits
from ._fitters import fit, frontier, predict  # scaling-law fits (arguments: _fit_args.py)
from ._custom_methods import (_PREDICTION_KEYS, _TABLE_COLUMNS, _custom_column, _custom_method,  # noqa: F401
                              _custom_predictions)
from ._extrapolation import Extrapolation, _whole, extrapolate  # noqa: F401

__version__ = _core.__version__

__all__ = [
    "measures", "describe", "describe_text", "measure", "eval", "Metric", "Exact", "Estimate", "run", "run_sweep",
    "sweep_toml", "to_pandas", "load_results", "fit", "predict", "frontier", "extrapolate", "Extrapolation", "limits",
    "set_limits", "plot", "cache_stats", "prune_cache",
]


# The plot helper (matplotlib is imported when it draws, not here). Imported last: the function
# scalinglab.plot, not its module, is what the package exports under that name.
from .plot import plot  # noqa: E402
from .worlds import include_dir, load_plugin, load_world, param, register_measure  # noqa: E402,F401
from .plot_fit import plot_fit  # noqa: E402

__all__ += ["plot_fit", "register_measure", "param", "load_world", "load_plugin", "include_dir"]
