#!/usr/bin/env bash
# `pip install .` into a fresh virtual environment (with the system's site packages: numpy, pandas),
# offline (--no-index, --no-build-isolation), from a copy of the source tree; then the package and
# the `scalinglab` command are used from the environment, away from the build tree; then the steps
# of docs/python.md for notebooks: the environment registered as a Jupyter kernel and a notebook
# executed with it by the system's nbconvert (whose own kernel, the system's Python, cannot import
# the package and must say what to run). Everything is written under one temporary folder.
#   tests/python/pip_install.sh SOURCE_DIR [BUILD_DIR]
# With BUILD_DIR, the install reuses that built CMake tree (SCALINGLAB_BUILD_DIR) instead of
# configuring and compiling the core again (minutes); the packaging path is the same.
# Exit 77 (skipped) without python3-venv, nbconvert, nbclient or ipykernel.
set -euo pipefail
src=$1
build=${2:-}
work=$(mktemp -d /tmp/scalinglab-pip-XXXXXX)
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
git -C "$src" rev-parse --git-dir >/dev/null 2>&1 || { echo "SKIP: $src is not a git checkout"; exit 77; }
/usr/bin/python3 -c 'import venv, ensurepip' 2>/dev/null || { echo "SKIP: python3-venv is not installed"; exit 77; }
/usr/bin/python3 -c 'import nbconvert, nbclient, ipykernel' 2>/dev/null ||
  { echo "SKIP: nbconvert, nbclient or ipykernel is not installed"; exit 77; }

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

# Jupyter's files (kernel specs, connection files, IPython's profile, matplotlib's cache) and the
# notebook's results stay in the temporary folder.
export HOME=$work/home JUPYTER_PATH=$work/jupyter/share/jupyter TMPDIR=$work/tmp MPLBACKEND=Agg
unset JUPYTER_CONFIG_DIR JUPYTER_DATA_DIR JUPYTER_RUNTIME_DIR IPYTHONDIR MPLCONFIGDIR VIRTUAL_ENV
mkdir -p "$HOME" "$TMPDIR"
"$work/venv/bin/python" -m ipykernel install --prefix "$work/jupyter" --name scalinglab-venv \
  --display-name "Python (scalinglab)" >"$work/kernel.log" 2>&1 || fail "ipykernel install: $(cat "$work/kernel.log")"
notebook=$work/tree/examples/notebooks/memory.ipynb
execute() {  # KERNEL: the notebook executed by the system's nbconvert with that kernel
  /usr/bin/python3 -m nbconvert --to notebook --execute --ExecutePreprocessor.kernel_name="$1" \
    --ExecutePreprocessor.timeout=300 --output-dir "$work/notebooks" --output "$1" "$notebook" >"$work/$1.log" 2>&1
}
start=$(date +%s)
execute scalinglab-venv || fail "memory.ipynb with the environment's kernel: $(tail -30 "$work/scalinglab-venv.log")"
seconds=$(( $(date +%s) - start ))
grep -q '"scalinglab [0-9.]* | results in ' "$work/notebooks/scalinglab-venv.ipynb" ||
  fail "the executed notebook does not show the package's version"
# The system's Python as the kernel (what Jupyter starts by default): the first cell says what to run.
if ! /usr/bin/python3 -c 'import scalinglab' 2>/dev/null; then
  /usr/bin/python3 -m ipykernel install --prefix "$work/jupyter" --name scalinglab-system >>"$work/kernel.log" 2>&1 ||
    fail "ipykernel install (system): $(cat "$work/kernel.log")"
  ! execute scalinglab-system || fail "memory.ipynb ran with a kernel that cannot import scalinglab"
  grep -q "bin/python -m ipykernel install --user --name scalinglab" "$work/scalinglab-system.log" ||
    fail "without the package the first cell does not print the command: $(tail -20 "$work/scalinglab-system.log")"
fi
echo "PASS: pip install in a fresh venv; import, eval and the command work ($version);" \
  "memory.ipynb ran with the environment's kernel in ${seconds} s"
