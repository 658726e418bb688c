"""``python3 -m scalinglab COMMAND ...``: the command line, with this interpreter for Python worlds.

The same options as the `scalinglab` binary (`--world FILE.py`, `--plugin LIB.so`, ...); the
workers of a Python world run under the interpreter that ran this and import this package.
"""

import os
import sys

from ._cli import path


def main():
    exe = path()
    if not os.access(exe, os.X_OK):
        sys.exit(f"scalinglab: the command line is missing at {exe}; rebuild or reinstall the package")
    os.environ.setdefault("SCALINGLAB_PYTHON", sys.executable)
    os.environ.setdefault("SCALINGLAB_PYTHONPATH", os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    os.execv(exe, [exe] + sys.argv[1:])


if __name__ == "__main__":
    main()
