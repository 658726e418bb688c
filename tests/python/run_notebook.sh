#!/usr/bin/env bash
# Executes one notebook of examples/notebooks start to end, as a reader would (nbconvert runs it
# with the notebook's folder as working directory), and writes the executed copy to OUT_DIR.
#   tests/python/run_notebook.sh PYTHON NOTEBOOK OUT_DIR
# Exit 77 (skipped) when nbconvert, nbclient or ipykernel is not installed; any failing cell fails.
# The notebooks put their results in a temporary folder: here a fresh one under OUT_DIR, removed
# at the end. With SCALINGLAB_CLI set, its folder goes first on PATH (`!scalinglab ...` in a cell).
set -euo pipefail
python=$1
notebook=$2
out=$3
"$python" -c 'import nbconvert, nbclient, ipykernel' 2>/dev/null ||
  { echo "SKIP: nbconvert, nbclient or ipykernel is not installed for $python"; exit 77; }
mkdir -p "$out"
scratch=$(mktemp -d "$out/tmp-XXXXXX")
trap 'rm -rf "$scratch"' EXIT
export TMPDIR=$scratch
if [ -n "${SCALINGLAB_CLI:-}" ]; then
  PATH="$(dirname "$SCALINGLAB_CLI"):$PATH"
  export PATH
fi
start=$(date +%s%N)
"$python" -m nbconvert --to notebook --execute --ExecutePreprocessor.timeout=300 --output-dir "$out" "$notebook"
end=$(date +%s%N)
echo "PASS: $(basename "$notebook") executed in $(( (end - start) / 1000000 )) ms"
