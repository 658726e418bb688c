#pragma once
// C++ world plugins: a shared library built against include/scalinglab/world_plugin.hpp, loaded at
// run time (`--plugin LIB.so`, scalinglab.load_plugin) and its measures added to the registry.
#include <string>
#include <vector>

namespace scalinglab::external {

// Loads the library and registers its measures (checked as built-in ones are); returns their names.
// InputError for a file that is missing or not a shared library, a library without the entry point,
// a plugin built against another version of the interface (its ABI number), or a declaration the lab
// refuses. Loading the same file twice is a no-op (returns its names again).
std::vector<std::string> load_plugin(const std::string& path);

// The paths of the plugins loaded so far, absolute, in loading order (the Slurm scripts carry them).
std::vector<std::string> loaded_plugins();

}  // namespace scalinglab::external
