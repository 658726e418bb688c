#!/usr/bin/env bash
# The skills world's benchmarks (one thread each, medians): peeling throughput on 10^7-edge graphs
# (generation timed apart), and the theory's speed (thresholds, compute-optimal allocation,
# Figure 4's curves). Needs a build (scripts/build.sh).
#   bench/run_skills.sh [reps=5] [build dir=build]
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
reps=${1:-5}
build=${2:-$here/../build}
export OPENBLAS_NUM_THREADS=1
"$build/bench/bench_skills_peel" "$reps" 1e7
"$build/bench/bench_skills_theory" $((reps * 4))
