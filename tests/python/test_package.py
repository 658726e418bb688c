"""The package's version: one number in pyproject.toml, the module and the command line."""

import os
import subprocess
import tomllib
from pathlib import Path

import scalinglab as sl

ROOT = Path(__file__).resolve().parents[2]


def test_one_version_everywhere():
    with open(ROOT / "pyproject.toml", "rb") as f:
        declared = tomllib.load(f)["project"]["version"]
    assert sl.__version__ == declared
    cli = os.environ.get("SCALINGLAB_CLI")
    if cli:
        out = subprocess.run([cli, "--version"], capture_output=True, text=True, check=True).stdout.strip()
        assert out == f"scalinglab {declared}"
    with open(ROOT / "CMakeLists.txt") as f:
        assert f"project(scalinglab VERSION {declared} " in f.read()
