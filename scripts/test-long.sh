#!/usr/bin/env bash
# The long statistical tests left out of ctest (and so of CI): the coverage of every fitting
# method's intervals over 100 synthetic replications (tests/fit/test_fit_method.cpp), about 3 minutes
# on 2 cores. Run before a release, with scripts/test-sanitizers.sh (docs/reliability.md).
#   scripts/test-long.sh      (after scripts/build.sh; BUILD_DIR as there)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${BUILD_DIR:-$root/build}
"$build/tests/scalinglab_tests" --gtest_filter='FitMethod.RecoversNoptAt100xWithinItsInterval'
