#!/usr/bin/env bash
# Sets everything up and runs the main job: reproduces the figures of "Scaling Laws for
# Associative Memories" (quick profile), ending with the figures and a PASS/FAIL summary.
#   scripts/reproduce.sh [PAPER=cabannes2023] [PROFILE=quick]
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
paper=${1:-cabannes2023}
profile=${2:-quick}
bash "$root/scripts/build.sh"
cd "$root"
exec "${BUILD_DIR:-$root/build}/scalinglab" reproduce "$paper" --profile "$profile" --out "results/$paper-$profile"
