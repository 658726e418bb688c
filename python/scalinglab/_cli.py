"""The `scalinglab` command of an installed package: runs the command line built with it."""

import os
import sys


def path():
    """Where the command line is: SCALINGLAB_CLI when set, else the one installed with the package (or
    the build tree's, for the package under build/python)."""
    if os.environ.get("SCALINGLAB_CLI"):
        return os.environ["SCALINGLAB_CLI"]
    here = os.path.dirname(os.path.abspath(__file__))
    installed = os.path.join(here, "bin", "scalinglab")
    build_tree = os.path.join(here, "..", "..", "scalinglab")  # build/python/scalinglab -> build/scalinglab
    if not os.access(installed, os.X_OK) and os.access(build_tree, os.X_OK):
        return os.path.abspath(build_tree)
    return installed


def main():
    exe = path()
    if not os.access(exe, os.X_OK):
        sys.exit(f"scalinglab: the command line is missing at {exe}; reinstall the package (pip install .)")
    os.execv(exe, [exe] + sys.argv[1:])
