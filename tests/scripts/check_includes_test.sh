#!/usr/bin/env bash
# The include rule (scripts/check-includes.py) passes on the tree and fails on each planted include:
# the spine including a world, a lower room including a higher one, a world including a room, a
# private header reached from another folder, and a folder the rule does not know.
#   tests/scripts/check_includes_test.sh SOURCE_DIR
set -euo pipefail
src=$1
check=$src/scripts/check-includes.py
python=/usr/bin/python3
[[ -x $python ]] || python=python3
"$python" "$check" "$src"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
plant() {  # FILE LINE: a fresh copy of the tree with LINE appended to FILE; the check must fail naming it
  rm -rf "$tmp/tree"
  mkdir -p "$tmp/tree"
  cp -r "$src/src" "$src/include" "$tmp/tree/"
  mkdir -p "$(dirname "$tmp/tree/$1")"
  printf '%s\n' "$2" >>"$tmp/tree/$1"
  if "$python" "$check" "$tmp/tree" >"$tmp/out" 2>&1; then
    echo "FAIL: the check passed with '$2' planted in $1" >&2
    exit 1
  fi
  if ! grep -qF "$1" "$tmp/out"; then
    echo "FAIL: the check failed but did not name $1:" >&2
    cat "$tmp/out" >&2
    exit 1
  fi
  echo "caught: $(grep -F "$1" "$tmp/out" | head -1)"
}
plant src/lab/measure.cpp '#include "scalinglab/memory/zipf_task.hpp"'
plant include/scalinglab/lab/evaluate.hpp '#include "scalinglab/factor/factor_measures.hpp"'
plant src/sweep/sweep_grid.cpp '#include "scalinglab/run/runner.hpp"'
plant src/results/aggregate.cpp '#include "scalinglab/plot/gnuplot.hpp"'
plant include/scalinglab/plot/plot.hpp '#include "scalinglab/claims/check.hpp"'
plant src/claims/check.cpp '#include "scalinglab/run/report.hpp"'
plant src/memory/memory_error.cpp '#include "scalinglab/sweep/sweep.hpp"'
plant src/lab/describe.cpp '#include "../sweep/sweep_reader.hpp"'
plant src/fit/isoflop.cpp '#include "scalinglab/run/runner.hpp"'
plant include/scalinglab/fit/fit_method.hpp '#include "scalinglab/extrapolate/protocol_world.hpp"'
plant src/run/report.cpp '#include "scalinglab/extrapolate/extrapolate.hpp"'
plant src/newroom/thing.cpp '#include "scalinglab/core/error.hpp"'
echo "check_includes_test: the rule holds on the tree and catches every planted include"
