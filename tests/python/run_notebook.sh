#!/usr/bin/env bash
# Executes one notebook of examples/notebooks start to end, as a reader would (nbconvert runs it
# with the notebook's folder as working directory), and writes the executed copy to OUT_DIR.
#   tests/python/run_notebook.sh PYTHON NOTEBOOK OUT_DIR
# Exit 77 (skipped) when nbconvert, nbclient or ipykernel is not installed; any failing cell fails.
# The notebooks put their results in a temporary folder of the system's (here a fresh one under
# OUT_DIR, removed at the end), which each removes when its kernel stops: one left behind fails. With SCALINGLAB_CLI set, its folder goes first on PATH (`!scalinglab ...` in a cell).
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
left=$(find "$scratch" -mindepth 1 -maxdepth 1 -name 'scalinglab-*' -print -quit)
if [ -n "$left" ]; then
  echo "FAIL: $(basename "$notebook") left its temporary folder behind: $left"
  exit 1
fi
# A warning printed by a cell (TqdmWarning, RuntimeWarning, ...) is a defect a reader would see.
"$python" - "$out/$(basename "$notebook")" <<'EOF'
import json, re, sys
cells = json.load(open(sys.argv[1]))["cells"]
seen = [f"cell {i}: {line.strip()}" for i, c in enumerate(cells) for o in c.get("outputs", [])
        if o.get("output_type") == "stream" for line in "".join(o.get("text", "")).splitlines()
        if re.search(r"\b\w*Warning\b", line)]
if seen:
    sys.exit("FAIL: warnings in the outputs:\n  " + "\n  ".join(seen[:10]))
EOF
echo "PASS: $(basename "$notebook") executed in $(( (end - start) / 1000000 )) ms"
