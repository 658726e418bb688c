#!/usr/bin/env bash
# Installs the Debian packages (scripts/install-deps.sh) and builds scalinglab into build/.
#   scripts/build.sh            Release build with tests, Python module and benchmarks
# Environment: BUILD_DIR (default build), SCALINGLAB_SKIP_DEPS=1 to skip the package check,
# SCALINGLAB_UNITY=0 for a build file by file.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${BUILD_DIR:-$root/build}
if [[ "${SCALINGLAB_SKIP_DEPS:-0}" != 1 ]]; then
  bash "$root/scripts/install-deps.sh"
fi
# Debian's interpreter has numpy/pytest; another python3 may come first on PATH. A unity build
# (batches of 8 sources compiled as one) takes ~40% less time from scratch; SCALINGLAB_UNITY=0
# builds file by file (quicker rebuilds after editing one file).
cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release -DPython_EXECUTABLE=/usr/bin/python3 \
  -DCMAKE_UNITY_BUILD="$([[ "${SCALINGLAB_UNITY:-1}" == 0 ]] && echo OFF || echo ON)" -DCMAKE_UNITY_BUILD_BATCH_SIZE=8 -DSCALINGLAB_FUZZ=ON >/dev/null
cmake --build "$build" -j "$(nproc)"
