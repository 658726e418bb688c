#!/usr/bin/env bash
# Runs the memory.error benchmark and its PyTorch reference in the same run and prints the
# speed ratio (median over repetitions). Needs a build (scripts/build.sh) and python3-torch
# (scripts/install-deps.sh --bench).
#   bench/run_memory_error.sh [reps=7] [build dir=build]
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
reps=${1:-7}
build=${2:-$here/../build}
py=/usr/bin/python3
for threads in 1 2; do
  ours=$("$build/bench/bench_memory_error" "$reps" "$threads")
  ref=$("$py" "$here/reference/memory_error_torch.py" "$reps" "$threads")
  "$py" - "$ours" "$ref" <<'PY'
import json, sys
ours, ref = json.loads(sys.argv[1]), json.loads(sys.argv[2])
print(f"threads={ours['threads']}: scalinglab {ours['seconds_total']*1e3:.1f} ms "
      f"(draw {ours['seconds_draw']*1e3:.1f} ms, error {ours['seconds_error']*1e3:.1f} ms at "
      f"{ours['error_gflops']:.1f} GFLOP/s = {100*ours['fraction_of_sgemm']:.0f}% of sgemm "
      f"{ours['sgemm_gflops']:.1f} GFLOP/s) | torch {ref['torch']} {ref['seconds_total']*1e3:.1f} ms "
      f"| speed-up x{ref['seconds_total']/ours['seconds_total']:.1f}")
print(f"threads={ours['threads']}: small runs (N=100, d=64, T=1000, q0): scalinglab "
      f"{ours['small_seconds_per_run']*1e6:.1f} us/run (mean error {ours['small_error']:.4f}) | torch "
      f"{ref['small_seconds_per_run']*1e6:.1f} us/run (mean error {ref['small_error']:.4f}) "
      f"| speed-up x{ref['small_seconds_per_run']/ours['small_seconds_per_run']:.1f}")
PY
done
