"""extrapolate(..., overwrite=True): emptying a benchmark's results folder, only when it holds
nothing but what the benchmark writes there: its tables and figures, and per world a folder of run
folders (each design's rep-N, the truth's slices), each holding nothing but a run's outputs (the
rule of run(..., overwrite=True)). Everything is checked before anything is removed, and nothing is
followed through a symbolic link: each folder is opened from its parent's descriptor without
following links, a link is removed as a link."""

import errno
import fcntl
import os
import re
import shutil
import stat

from . import _folder

# What the benchmark writes at the top of its folder (src/extrapolate/leaderboard.cpp and
# extrapolation_plot.cpp): tables, and each figure's gnuplot script and drawings.
_TABLES = {"leaderboard.csv", "leaderboard.json", "leaderboard.md", "predictions.csv", "tables.csv", "truth.csv",
           "truth-curves.csv"}
_FIGURES = {"coverage", "extrapolation-N", "extrapolation-L", "design-cost", "design-cost-regret"}
_FILES = _TABLES | {f"{name}.{ext}" for name in _FIGURES for ext in ("gp", "svg", "png", "pdf")}
_CUT_WRITE = re.compile(r"(.+)\.tmp\.\d+\.\d+")  # a write cut by a kill (file_io.cpp writes then renames)
_REP = re.compile(r"rep-\d+")
_DIRECTORY = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC


def _refuse(folder, why):
    raise ValueError(f"extrapolate: overwrite=True: {folder} {why}; nothing was deleted")


def _entries(fd):
    return {name: os.stat(name, dir_fd=fd, follow_symlinks=False).st_mode for name in os.listdir(fd)}


def _ours(name, mode):
    """A file the benchmark writes at the top of its folder (a link named so goes as a link)."""
    m = _CUT_WRITE.fullmatch(name)
    return not stat.S_ISDIR(mode) and (name in _FILES or (m is not None and m.group(1) in _FILES))


def _run_folder(entries):
    """Whether a folder's entries are a run's outputs (and nothing else)."""
    return all(n == _folder._LOCK or (n in _folder._FILES and not stat.S_ISDIR(mode)) or
               (n in _folder._FOLDERS and (stat.S_ISDIR(mode) or stat.S_ISLNK(mode))) for n, mode in entries.items())


def _not_in_use(fd, shown, folder):
    """Refuses a run folder whose run is going on (its lock held). A folder without a lock file has no
    run going on: none is made here, so a refusal leaves the folder as it was."""
    try:
        lock = os.open(_folder._LOCK, os.O_RDWR | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC, dir_fd=fd)
    except FileNotFoundError:
        return
    except OSError as e:
        _refuse(folder, f"holds {shown}/{_folder._LOCK}, which cannot be opened ({os.strerror(e.errno)})")
    try:
        if not stat.S_ISREG(os.fstat(lock).st_mode):
            _refuse(folder, f"holds {shown}/{_folder._LOCK}, which is not a regular file")
        try:
            fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError as e:
            if e.errno in (errno.EWOULDBLOCK, errno.EAGAIN):
                _refuse(folder, f"is in use: a scalinglab process is running in {shown}; wait for it to finish")
            raise
    finally:
        os.close(lock)


def _survey(fd, folder):
    """The folder's contents as (files, worlds) once every entry is known to be the benchmark's:
    files at the top; worlds as [(name, [(design or None, run folder)])]. Raises ValueError naming
    what the benchmark does not write."""
    strange, files, worlds = [], [], []
    for name, mode in sorted(_entries(fd).items()):
        if _ours(name, mode):
            files.append(name)
        elif stat.S_ISLNK(mode) or not stat.S_ISDIR(mode):
            strange.append(name)
        else:
            runs = []
            world = os.open(name, _DIRECTORY, dir_fd=fd)
            try:
                for inner, inner_mode in sorted(_entries(world).items()):
                    shown = f"{name}/{inner}"
                    if not stat.S_ISDIR(inner_mode):  # a file, or a link (never followed)
                        strange.append(shown)
                        continue
                    sub = os.open(inner, _DIRECTORY, dir_fd=world)
                    try:
                        entries = _entries(sub)
                        reps = entries and all(_REP.fullmatch(n) and stat.S_ISDIR(m) for n, m in entries.items())
                        if reps:  # a design: one run folder per replication
                            for rep in sorted(entries):
                                run = os.open(rep, _DIRECTORY, dir_fd=sub)
                                try:
                                    strange += _check_run(run, f"{shown}/{rep}", folder)
                                finally:
                                    os.close(run)
                                runs.append((inner, rep))
                        else:  # a truth slice: a run folder
                            strange += _check_run(sub, shown, folder)
                            runs.append((None, inner))
                    finally:
                        os.close(sub)
            finally:
                os.close(world)
            worlds.append((name, runs))
    if strange:
        shown = ", ".join(strange[:5]) + (", ..." if len(strange) > 5 else "")
        them = "it" if len(strange) == 1 else "them"
        _refuse(folder, f"holds {shown}, which an extrapolation benchmark does not write: remove {them} yourself "
                        f"or choose another out=")
    return files, worlds


def _check_run(fd, shown, folder):
    """The names in a run folder that a run does not write (its run.json checked, its run not going on)."""
    entries = _entries(fd)
    if not _run_folder(entries):
        return [f"{shown}/{n}" for n, mode in sorted(entries.items())
                if not _run_folder({n: mode})]
    if set(entries) - {_folder._LOCK}:
        _folder._check_run_json(fd, os.path.join(folder, shown))
    _not_in_use(fd, shown, folder)
    return []


def _empty_run(parent, name, folder, shown):
    """Removes a run folder checked by _survey (`shown`: its path in `folder`), holding its run's
    lock meanwhile."""
    fd = os.open(name, _DIRECTORY, dir_fd=parent)
    try:
        lock = _folder._lock(fd, folder)
        try:
            for entry, mode in _entries(fd).items():
                if entry == _folder._LOCK:
                    continue
                if stat.S_ISDIR(mode):  # checkpoints/: removed without following any link inside
                    try:
                        shutil.rmtree(entry, dir_fd=fd)  # Python 3.11: relative to the folder held open
                    except TypeError:
                        shutil.rmtree(os.path.join(folder, shown, entry))
                else:
                    os.unlink(entry, dir_fd=fd)
        finally:
            try:
                os.unlink(_folder._LOCK, dir_fd=fd)
            except FileNotFoundError:
                pass
            os.close(lock)
    finally:
        os.close(fd)
    os.rmdir(name, dir_fd=parent)


def clear(folder):
    """Removes what an extrapolation benchmark wrote in `folder` (kept as an empty folder). A
    missing folder is left alone; a link, a file, or a folder holding anything the benchmark does
    not write raises ValueError before anything is removed."""
    folder = os.fspath(folder)
    fd = _folder._open_real_folder(folder, _refuse)
    if fd is None:
        return
    try:
        files, worlds = _survey(fd, folder)
        for world, runs in worlds:
            wfd = os.open(world, _DIRECTORY, dir_fd=fd)
            try:
                for design, run in runs:
                    if design is None:
                        _empty_run(wfd, run, folder, f"{world}/{run}")
                        continue
                    dfd = os.open(design, _DIRECTORY, dir_fd=wfd)
                    try:
                        _empty_run(dfd, run, folder, f"{world}/{design}/{run}")
                    finally:
                        os.close(dfd)
                for design in {d for d, _ in runs if d is not None}:
                    os.rmdir(design, dir_fd=wfd)
            finally:
                os.close(wfd)
            os.rmdir(world, dir_fd=fd)
        for name in files:
            os.unlink(name, dir_fd=fd)
    finally:
        os.close(fd)


def holds_results(folder):
    """Whether `folder` holds something a benchmark writes: its tables or figures, or a world's run
    folder with records (a design's rep-N, a truth slice). Links are not followed."""

    def dirs(path):
        try:
            with os.scandir(path) as it:
                return [e for e in it if e.is_dir(follow_symlinks=False)]
        except OSError:
            return []

    def records(path):
        return any(os.path.isfile(os.path.join(path, n)) for n in ("results.jsonl", "run.json"))

    try:
        with os.scandir(folder) as it:
            if any(_ours(e.name, stat.S_IFREG) for e in it if not e.is_dir(follow_symlinks=False)):
                return True
    except OSError:
        return False
    return any(records(run.path) or any(_REP.fullmatch(r.name) and records(r.path) for r in dirs(run.path))
               for world in dirs(folder) for run in dirs(world.path))
