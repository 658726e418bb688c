#!/usr/bin/env bash
# Sets everything up and runs every test: C++ unit tests, the Python tests and the quick
# reproduction of the default paper (all through ctest).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
bash "$root/scripts/build.sh"
cd "${BUILD_DIR:-$root/build}"
# Every test but the papers' reproductions first, then the reproductions (label `reproduction`,
# each with its own timeout, SCALINGLAB_REPRODUCTION_TIMEOUT): a failure of a quick test shows
# within minutes, and the long pieces do not share the machine with the rest of the suite.
status=0
ctest --output-on-failure -j 2 -LE reproduction || status=$?
ctest --output-on-failure -j 2 -L reproduction || status=$?
exit $status
