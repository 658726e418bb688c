"""The `scalinglab` command of an installed package: runs the command line built with it."""

import os
import sys


def path():
    """Where the command line is: SCALINGLAB_CLI when set, else the one installed with the package."""
    return os.environ.get("SCALINGLAB_CLI") or os.path.join(os.path.dirname(__file__), "bin", "scalinglab")


def main():
    exe = path()
    if not os.access(exe, os.X_OK):
        sys.exit(f"scalinglab: the command line is missing at {exe}; reinstall the package (pip install .)")
    os.execv(exe, [exe] + sys.argv[1:])
