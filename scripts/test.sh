#!/usr/bin/env bash
# Sets everything up and runs every test: C++ unit tests, the Python tests and the quick
# reproduction of the default paper (all through ctest).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
bash "$root/scripts/build.sh"
cd "${BUILD_DIR:-$root/build}"
ctest --output-on-failure -j 2
