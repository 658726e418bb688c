#!/usr/bin/env bash
# `pip install .` into a fresh virtual environment (with the system's site packages: numpy, pandas),
# offline (--no-index, --no-build-isolation), from a copy of the source tree; then the package and
# the `scalinglab` command are used from the environment, away from the build tree.
#   tests/python/pip_install.sh SOURCE_DIR [BUILD_DIR]
# With BUILD_DIR, the install reuses that built CMake tree (SCALINGLAB_BUILD_DIR) instead of
# configuring and compiling the core again (minutes); the packaging path is the same.
set -euo pipefail
src=$1
build=${2:-}
work=$(mktemp -d /tmp/scalinglab-pip-XXXXXX)
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
git -C "$src" rev-parse --git-dir >/dev/null 2>&1 || { echo "SKIP: $src is not a git checkout"; exit 77; }
/usr/bin/python3 -c 'import venv, ensurepip' 2>/dev/null || { echo "SKIP: python3-venv is not installed"; exit 77; }

# A copy of the tracked sources, as a user's clone would be (the install writes only in it).
mkdir -p "$work/tree" && (cd "$src" && git ls-files -z | xargs -0 cp --parents -t "$work/tree")
/usr/bin/python3 -m venv --system-site-packages "$work/venv"
export SCALINGLAB_BUILD_DIR=$build
[ -n "$build" ] || unset SCALINGLAB_BUILD_DIR
unset PYTHONPATH SCALINGLAB_CLI
"$work/venv/bin/pip" install --quiet --no-index --no-build-isolation "$work/tree" >"$work/pip.log" 2>&1 ||
  fail "pip install failed: $(tail -20 "$work/pip.log")"

cd "$work"  # away from any source or build tree
"$work/venv/bin/python" - <<'PY' || fail "the installed package does not work"
import os, sys
import scalinglab as sl
where = os.path.dirname(sl.__file__)
assert where.startswith(sys.prefix), f"imported from {where}, not from the environment {sys.prefix}"
assert callable(sl.plot) and os.path.isfile(os.path.join(where, "plot.py")), "the plot helper is not installed"
r = sl.eval("memory.infinite_memory_error", alpha=2.0, N=100, T=1000)
print(f"scalinglab {sl.__version__} from {where}: infinite_memory_error = {r['metrics']['error']}")
PY
version=$("$work/venv/bin/scalinglab" --version) || fail "the scalinglab command does not run"
expected=$("$work/venv/bin/python" -c 'import scalinglab; print("scalinglab", scalinglab.__version__)')
[ "$version" = "$expected" ] || fail "scalinglab --version says '$version', the package '$expected'"
"$work/venv/bin/scalinglab" eval memory.infinite_memory_error alpha=2 N=100 T=1000 >/dev/null ||
  fail "scalinglab eval from the environment failed"
echo "PASS: pip install in a fresh venv; import, eval and the command work ($version)"
