"""run(..., overwrite=True): emptying a results folder, only when it holds nothing but what a
scalinglab run writes there. Nothing is followed through a symbolic link: a link named as the
folder is refused, a link inside it is removed as a link, and the folder is read through one
descriptor opened without following links."""

import errno
import fcntl
import json
import os
import shutil
import stat

# What a run writes into its folder (src/run/runner.cpp, src/plot/): files, then folders.
_FILES = {"results.jsonl", "summary.csv", "sweep.toml", "run.json", "checks.json",
          "plot.gp", "plot.dat", "plot.svg", "plot.png", "plot.pdf"}
_FOLDERS = {"checkpoints"}
_LOCK = ".lock"  # held by a run for its whole length (results_dir.hpp)
_RUN_JSON_BYTES = 1 << 20  # a run's run.json is a few hundred bytes


def _refuse(folder, why):
    raise ValueError(f"overwrite=True: {folder} {why}; nothing was deleted")


def _check_run_json(fd, folder):
    # O_NONBLOCK: a FIFO named run.json would block the open until a writer came; a device could be
    # read for ever. Either is refused by its mode before a byte is read.
    try:
        handle = os.open("run.json", os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC, dir_fd=fd)
    except OSError:
        _refuse(folder, "has no readable run.json, so it does not look like a scalinglab results folder")
    with os.fdopen(handle, "rb") as f:
        st = os.fstat(f.fileno())
        if not stat.S_ISREG(st.st_mode):
            _refuse(folder, "has a run.json that is not a regular file (a pipe, device or folder)")
        if st.st_size > _RUN_JSON_BYTES:
            _refuse(folder, f"has a run.json of {st.st_size} bytes, more than a run writes")
        text = f.read(_RUN_JSON_BYTES)
    try:
        record = json.loads(text)
    except ValueError:
        record = None
    if not isinstance(record, dict) or "name" not in record:
        _refuse(folder, "has a run.json that scalinglab did not write")


def _lock(fd, folder):
    """The run's lock on the folder, so that no run starts on it (or is running) while it is emptied."""
    try:
        lock = os.open(_LOCK, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC, 0o666,
                       dir_fd=fd)
    except OSError as e:
        _refuse(folder, f"has a lock file that cannot be opened ({os.strerror(e.errno)})")
    if not stat.S_ISREG(os.fstat(lock).st_mode):
        os.close(lock)
        _refuse(folder, "has a lock file that is not a regular file (a pipe, device or folder)")
    try:
        fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError as e:
        os.close(lock)
        if e.errno in (errno.EWOULDBLOCK, errno.EAGAIN):
            _refuse(folder, "is in use by another scalinglab process; wait for it to finish")
        raise
    return lock


def _open_real_folder(folder, refuse):
    """A descriptor of `folder` opened without following a link; None when it does not exist;
    refuse(folder, why) for a link or anything but a folder."""
    try:
        st = os.lstat(folder)
    except FileNotFoundError:
        return None
    if stat.S_ISLNK(st.st_mode):
        refuse(folder, "is a symbolic link (only a real folder is emptied; links are not followed)")
    if not stat.S_ISDIR(st.st_mode):
        refuse(folder, "is not a folder")
    return os.open(folder, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC)


def clear(folder):
    """Removes the outputs of the run in `folder` (kept as an empty folder). A missing folder is left
    alone; a link, a file, or a folder holding anything a run does not write (or no run.json) raises
    ValueError before anything is removed."""
    folder = os.fspath(folder)
    fd = _open_real_folder(folder, _refuse)
    if fd is None:
        return
    try:
        entries = {}
        for name in os.listdir(fd):
            mode = os.stat(name, dir_fd=fd, follow_symlinks=False).st_mode
            entries[name] = mode
        if not set(entries) - {_LOCK}:
            return  # empty (or a stale lock): nothing of a run to remove
        strange = sorted(n for n, mode in entries.items()
                         if n != _LOCK and not (n in _FILES and not stat.S_ISDIR(mode))
                         and not (n in _FOLDERS and (stat.S_ISDIR(mode) or stat.S_ISLNK(mode))))
        if strange:
            shown = ", ".join(strange[:5]) + (", ..." if len(strange) > 5 else "")
            them = "it" if len(strange) == 1 else "them"
            _refuse(folder, f"holds {shown}, which a scalinglab run does not write: remove {them} yourself "
                            f"or choose another out=")
        _check_run_json(fd, folder)
        lock = _lock(fd, folder)
        try:
            for name, mode in entries.items():
                if name == _LOCK:
                    continue
                if stat.S_ISDIR(mode):  # checkpoints/: removed without following any link inside
                    try:
                        shutil.rmtree(name, dir_fd=fd)  # Python 3.11: relative to the folder held open
                    except TypeError:
                        shutil.rmtree(os.path.join(folder, name))
                else:
                    os.unlink(name, dir_fd=fd)  # a link goes as a link
        finally:
            try:
                os.unlink(_LOCK, dir_fd=fd)  # a run waiting on it sees it replaced and takes a new one
            except FileNotFoundError:
                pass
            os.close(lock)
    finally:
        os.close(fd)
