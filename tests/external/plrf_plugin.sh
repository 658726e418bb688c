#!/usr/bin/env bash
# The PLRF world plugin as a user builds and runs it:
#   1. built by the template's two documented commands (cmake -S ... -B ..., cmake --build ...);
#   2. a small sweep with --plugin, and the same under `mpirun -np 2`: every record identical
#      (the MPI part is skipped, with a note, when mpirun or MPI support is missing);
#   3. the hostile-value harness over its measures: 0 signals, 0 exit 1, 0 hangs.
#   tests/external/plrf_plugin.sh SCALINGLAB_CLI SOURCE_DIR PYTHON PYTHONPATH
set -uo pipefail
cli=$1
src=$2
python=$3
pythonpath=$4
fail() { echo "FAIL: $*"; exit 1; }

work=$(mktemp -d /tmp/scalinglab-plrf-XXXXXX)
trap 'rm -rf "$work"' EXIT
cd "$work" || exit 1

# 1. The two commands of examples/worlds/cpp/plrf/CMakeLists.txt, from a copy of the repository's
# layout (the template finds the header three levels up, or by -DSCALINGLAB_INCLUDE_DIR).
start=$(date +%s)
cmake -S "$src/examples/worlds/cpp/plrf" -B build/plrf >build.log 2>&1 || { cat build.log; fail "cmake -S failed"; }
cmake --build build/plrf >>build.log 2>&1 || { cat build.log; fail "cmake --build failed"; }
lib=$work/build/plrf/libplrf.so
[ -f "$lib" ] || fail "the build made no libplrf.so"
echo "built $lib in $(( $(date +%s) - start )) s"
# The model's own tests against ground truth (exact loss vs Monte Carlo, one SGD step by hand, ...).
build/plrf/test_plrf >test_plrf.log 2>&1 || { tail -20 test_plrf.log; fail "test_plrf"; }
tail -1 test_plrf.log

# 2. A sweep of 24 short tasks: single process, then two MPI ranks.
cat >tiny.toml <<'TOML'
measure = "plrf.loss"
runs = 3
seed = 5
[params]
alpha = 1.5
beta = 3
v = 256
steps = "f/d"
points = 5
[grid]
d = [8, 16, 32, 64]
f = [1e3, 1e4]
TOML
"$cli" --plugin "$lib" run tiny.toml --out single --threads 1 --quiet --no-cache || fail "the single-process run failed"
cat >records.py <<'PY'
import json, sys
def load(path):
    out = {}
    for line in open(path):
        r = json.loads(line)
        r.pop("seconds")
        out[(r["key"], r["run"])] = json.dumps(r, sort_keys=True)
    return out
a, b = load(sys.argv[1]), load(sys.argv[2])
if a != b:
    sys.exit(f"records differ: {len(set(a) ^ set(b))} tasks on one side only, "
             f"{sum(a[t] != b[t] for t in set(a) & set(b))} with other values")
print(f"{len(a)} records identical")
PY
if command -v mpirun >/dev/null && "$cli" run --help | grep -q "mpirun"; then
  export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
  export OMPI_MCA_btl=self,vader OMPI_MCA_btl_vader_single_copy_mechanism=none
  mpirun -np 2 --oversubscribe "$cli" --plugin "$lib" run tiny.toml --out ranks --threads 1 --quiet --no-cache \
    || fail "mpirun -np 2 failed"
  "$python" records.py single/results.jsonl ranks/results.jsonl || fail "mpirun -np 2 gives other records"
else
  echo "note: mpirun or MPI support missing: the MPI comparison did not run"
fi

# 3. Hostile values over the plugin's measures, through the command line and Python.
"$python" "$src/tests/python/domain_edges.py" "$cli" "$pythonpath" --plugin "$lib" --loaded-only --timeout 60 --jobs 2 \
  || fail "hostile values"
echo "PASS"
