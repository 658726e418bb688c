"""Builds the extension module and the command line with CMake for `pip install .` (see pyproject.toml).

The CMake project is configured in build/pip (tests, benchmarks and -march=native off, so that the
wheel runs on any x86-64 machine of the same distribution; sources compiled in unity batches, the
quickest build from scratch) and only the targets `_scalinglab` and `scalinglab` are built.
SCALINGLAB_BUILD_DIR=DIR reuses an already configured and built tree instead (its options are left
alone): a quick install after `scripts/build.sh`.

Each stage prints one line on stderr, and CMake its progress: pip shows them with `pip install -v`
(without -v it shows only that the build is still running).
"""

import os
import shutil
import subprocess
import sys
from pathlib import Path

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

ROOT = Path(__file__).resolve().parent
MINUTES = "8"  # measured: a pip install from scratch on 2 cores (docs/python.md)


def stage(text):
    print(f"scalinglab: {text}", file=sys.stderr, flush=True)


class CMakeBuild(build_ext):
    def build_extension(self, ext):
        build = os.environ.get("SCALINGLAB_BUILD_DIR")
        if build:
            build = Path(build).resolve()
            if not (build / "CMakeCache.txt").is_file():
                sys.exit(f"SCALINGLAB_BUILD_DIR={build}: not a configured CMake build directory")
        else:
            build = ROOT / "build" / "pip"
            build.mkdir(parents=True, exist_ok=True)
            stage(f"configuring the C++ core with CMake in {build}")
            subprocess.run(["cmake", "-S", str(ROOT), "-B", str(build), "-DCMAKE_BUILD_TYPE=Release",
                            "-DSCALINGLAB_TESTS=OFF", "-DSCALINGLAB_BENCH=OFF", "-DSCALINGLAB_NATIVE=OFF",
                            "-DCMAKE_UNITY_BUILD=ON", "-DCMAKE_UNITY_BUILD_BATCH_SIZE=8",
                            "-DSCALINGLAB_PYTHON=ON", f"-DPython_EXECUTABLE={sys.executable}"], check=True)
        jobs = str(os.cpu_count() or 1)
        stage(f"compiling the C++ core with {jobs} jobs" +
              ("" if os.environ.get("SCALINGLAB_BUILD_DIR") else f" (from scratch: about {MINUTES} minutes on 2 cores)"))
        subprocess.run(["cmake", "--build", str(build), "--target", "_scalinglab", "scalinglab", "-j", jobs],
                       check=True)
        stage("copying the module and the command line into the package")
        module = next((build / "python" / "scalinglab").glob("_scalinglab*.so"), None)
        if module is None:
            sys.exit(f"{build}: the build made no _scalinglab module")
        target = Path(self.get_ext_fullpath(ext.name))
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(module, target)
        # The command line travels inside the package; `scalinglab` (scalinglab._cli) runs it.
        bindir = target.parent / "bin"
        bindir.mkdir(exist_ok=True)
        shutil.copy2(build / "scalinglab", bindir / "scalinglab")
        # The plugin interface, for C++ worlds built against the installed lab (scalinglab.worlds.include_dir()).
        incdir = target.parent / "include" / "scalinglab"
        incdir.mkdir(parents=True, exist_ok=True)
        shutil.copy2(ROOT / "include" / "scalinglab" / "world_plugin.hpp", incdir / "world_plugin.hpp")


setup(ext_modules=[Extension("scalinglab._scalinglab", sources=[])], cmdclass={"build_ext": CMakeBuild},
      # setuptools' own staging stays out of the way of the CMake trees under build/
      options={"build": {"build_base": "build/pip-setuptools"}})
