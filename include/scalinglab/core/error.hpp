#pragma once
// Error types. Every error that reaches `main` is one of these: InputError for anything the user can
// fix (bad parameter, malformed file, unwritable directory; exit status 2), std::runtime_error for
// failures of a computation (exit status 1).
#include <stdexcept>
#include <string>

namespace scalinglab {

struct InputError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

}  // namespace scalinglab
