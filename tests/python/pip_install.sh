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
# The executed notebook shows no warning (a TqdmWarning without ipywidgets, ...) and removed its
# temporary results folder when its kernel stopped.
/usr/bin/python3 - "$work/notebooks/scalinglab-venv.ipynb" <<'PY' || fail "warnings in memory.ipynb's outputs"
import json, re, sys
cells = json.load(open(sys.argv[1]))["cells"]
seen = [line for c in cells for o in c.get("outputs", []) if o.get("output_type") == "stream"
        for line in "".join(o.get("text", "")).splitlines() if re.search(r"\b\w*Warning\b", line)]
if seen:
    sys.exit("\n".join(seen[:10]))
PY
left=$(find "$TMPDIR" -mindepth 1 -maxdepth 1 -name 'scalinglab-memory-*' -print -quit)
[ -z "$left" ] || fail "memory.ipynb left its results folder behind: $left"

# The documented front end (`jupyter notebook`, Debian's jupyter-notebook) starts, lists the
# environment's kernel and starts it.
command -v jupyter-notebook >/dev/null || fail "jupyter-notebook is not installed (scripts/install-deps.sh installs it)"
port=$(/usr/bin/python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
token=$(/usr/bin/python3 -c 'import secrets; print(secrets.token_hex(16))')
root=()
[ "$(id -u)" != 0 ] || root=(--allow-root)
jupyter-notebook "${root[@]}" --no-browser --ip=127.0.0.1 --port="$port" --port-retries=0 \
  --NotebookApp.token="$token" --notebook-dir="$work/tree/examples/notebooks" >"$work/frontend.log" 2>&1 &
frontend=$!
/usr/bin/python3 - "$port" "$token" <<'PY' || { kill "$frontend"; fail "jupyter notebook: $(tail -20 "$work/frontend.log")"; }
import json, sys, time, urllib.request
base, headers = f"http://127.0.0.1:{sys.argv[1]}", {"Authorization": f"token {sys.argv[2]}"}
def call(path, method="GET", body=None):
    request = urllib.request.Request(base + path, method=method, headers=headers,
                                     data=None if body is None else json.dumps(body).encode())
    with urllib.request.urlopen(request, timeout=10) as r:
        text = r.read()
        return json.loads(text) if text and r.headers.get_content_type() == "application/json" else text
for _ in range(120):  # up to a minute to start
    try:
        specs = call("/api/kernelspecs")["kernelspecs"]
        break
    except OSError:
        time.sleep(0.5)
else:
    sys.exit("did not answer within a minute")
assert "scalinglab-venv" in specs, f"the environment's kernel is not listed: {sorted(specs)}"
assert b"<html" in call("/tree").lower(), "the notebooks' page is not served"
names = [entry["name"] for entry in call("/api/contents")["content"]]
assert "memory.ipynb" in names, f"the notebooks' folder does not list memory.ipynb: {names}"
kernel = call("/api/kernels", "POST", {"name": "scalinglab-venv"})
assert kernel["name"] == "scalinglab-venv", kernel
call(f"/api/kernels/{kernel['id']}", "DELETE")
PY
kill "$frontend"
wait "$frontend" 2>/dev/null || true

echo "PASS: pip install in a fresh venv; import, eval and the command work ($version);" \
  "memory.ipynb ran with the environment's kernel in ${seconds} s with no warning; jupyter notebook starts"
