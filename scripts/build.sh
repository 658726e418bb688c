#!/usr/bin/env bash
# Installs the Debian packages (scripts/install-deps.sh) and builds scalinglab into build/.
#   scripts/build.sh            Release build with tests, Python module and benchmarks
# Environment: BUILD_DIR (default build), SCALINGLAB_SKIP_DEPS=1 to skip the package check.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${BUILD_DIR:-$root/build}
if [[ "${SCALINGLAB_SKIP_DEPS:-0}" != 1 ]]; then
  bash "$root/scripts/install-deps.sh"
fi
# Debian's interpreter has numpy/pytest; another python3 may come first on PATH.
cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release -DPython_EXECUTABLE=/usr/bin/python3 >/dev/null
cmake --build "$build" -j "$(nproc)"
