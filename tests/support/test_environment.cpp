// The environment every test of this binary and the commands it starts run in, set before main.
// ctest's ENVIRONMENT property reaches gtest_discover_tests' tests only for its first entry (the
// list separator is lost on the way), so what is not the config folder is set here.
#include <cstdlib>

namespace {

// A fit's progress lines show after 3 s of a stage, which on a loaded machine comes and goes; tests
// that read a command's output with its stderr get none. The progress tests ask for them with
// SCALINGLAB_PROGRESS_DELAY=0 before the command, which wins over this default.
const bool kQuietProgress = [] { return ::setenv("SCALINGLAB_PROGRESS_DELAY", "100000", 0) == 0; }();

}  // namespace
