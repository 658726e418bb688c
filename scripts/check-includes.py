#!/usr/bin/env python3
"""The include rule of the source tree (docs/architecture.md): the measure spine (lab/) never
includes a world, and no room includes a room above it. Each folder of src/ and include/scalinglab/
may include the folders listed for it below; files directly in src/ (the list of worlds), apps/,
python/, tests/, bench/ and fuzz/ stand above everything and are not checked.

    scripts/check-includes.py [ROOT]    ROOT: the repository (default: the one holding this script)

Prints one line per include that breaks the rule and exits 1; exits 0 when there is none.
"""
import pathlib
import re
import sys

CORE = ["core"]
SPINE = CORE + ["lab"]
# Rooms in the order of the data flow: sweep file -> tasks -> records and table -> figures and
# checks -> report. A room may include the rooms before it that it reads, never one after it.
ROOMS = {
    "sweep": SPINE + ["sweep"],
    "results": SPINE + ["sweep", "results"],
    "plot": SPINE + ["sweep", "results", "plot"],
    "claims": SPINE + ["sweep", "results", "claims"],
    "run": SPINE + ["sweep", "results", "plot", "claims", "run"],
}
ALLOWED = {
    "core": CORE,
    "lab": SPINE,
    **ROOMS,
    # The worlds stand on the spine alone: they neither see each other nor the rooms.
    **{world: SPINE + [world] for world in ("memory", "skills", "teacher", "factor")},
    # Fitting reads tables and draws its figures; it runs nothing.
    "fit": SPINE + ["sweep", "results", "plot", "fit"],
    # The extrapolation protocol and its benchmark run sweeps on a world and fit their tables.
    "extrapolate": SPINE + ["sweep", "results", "plot", "run", "fit", "extrapolate"],
    # Worlds loaded at run time (C++ plugins, Python worlds) stand on the spine, and read the plugin
    # interface, the one header at the top of include/scalinglab (world_plugin.hpp).
    "external": SPINE + ["external", "(top)"],
    # MPI ranks and Slurm arrays serve the runner.
    "cluster": SPINE + ["sweep", "results", "claims", "run", "cluster"],
}
INCLUDE = re.compile(r'^\s*#\s*include\s*"([^"]+)"')


def folder_files(root):
    """(folder, file) for every source and header of the checked folders; unknown folders too."""
    for base in (root / "src", root / "include" / "scalinglab"):
        if not base.is_dir():
            continue
        for path in sorted(base.rglob("*")):
            if path.is_file() and path.suffix in (".cpp", ".hpp", ".h", ".cc") and path.parent != base:
                yield path.relative_to(base).parts[0], path


def violations(root):
    out = []
    for folder, path in folder_files(root):
        rel = path.relative_to(root)
        if folder not in ALLOWED:
            out.append(f"{rel}: folder '{folder}' has no place in the include rule (add it to {pathlib.Path(__file__).name})")
            continue
        for number, line in enumerate(path.read_text(encoding="utf-8", errors="replace").splitlines(), 1):
            m = INCLUDE.match(line)
            if not m:
                continue
            target = m.group(1)
            if not target.startswith("scalinglab/"):
                if "/" in target:  # a private header is included from its own folder only
                    out.append(f"{rel}:{number}: includes \"{target}\" from outside its folder")
                continue
            parts = target.split("/")
            to = parts[1] if len(parts) > 2 else "(top)"
            if to not in ALLOWED[folder]:
                out.append(f"{rel}:{number}: {folder}/ includes {to}/ (\"{target}\"); "
                           f"{folder}/ may include {', '.join(ALLOWED[folder])}")
    return out


def main():
    root = pathlib.Path(sys.argv[1] if len(sys.argv) > 1 else pathlib.Path(__file__).resolve().parent.parent)
    if not (root / "src").is_dir():
        print(f"check-includes: {root} has no src/ folder", file=sys.stderr)
        return 2
    found = violations(root)
    for v in found:
        print(v)
    if found:
        print(f"check-includes: {len(found)} include(s) break the rule (docs/architecture.md)", file=sys.stderr)
        return 1
    print("check-includes: every include follows the rule")
    return 0


if __name__ == "__main__":
    sys.exit(main())
