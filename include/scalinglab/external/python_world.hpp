#pragma once
// Python worlds: a .py file whose measures are declared with scalinglab.worlds (`@sl.measure`),
// run by worker processes of the lab's own (`python3 -m scalinglab._world_worker FILE`), so that
// tasks run in parallel whatever the GIL, in the command line, its MPI ranks and Python alike.
#include <string>
#include <vector>

namespace scalinglab::external {

struct PythonWorldSettings {
  std::string python;        // the interpreter; empty: $SCALINGLAB_PYTHON, else the one the lab was built
                             // with (its Python module's), else python3 on the PATH
  std::string package_root;  // put first on the workers' PYTHONPATH (the folder holding this scalinglab
                             // package); empty: $SCALINGLAB_PYTHONPATH, else found next to the executable
};

// Starts one worker on `file`, reads its declarations, checks them as the built-in measures' are and
// registers each measure; returns their names. Tasks then go to a pool of workers (one per task
// running at once, started as needed). InputError when the file is missing, cannot be imported (the
// worker's traceback goes to stderr), declares nothing, or declares a measure the lab refuses.
// Loading the same file twice is a no-op (returns its names again).
std::vector<std::string> load_python_world(const std::string& file, const PythonWorldSettings& settings = {});

// The files loaded so far, absolute, in loading order (the Slurm scripts carry them).
std::vector<std::string> loaded_python_worlds();

}  // namespace scalinglab::external
