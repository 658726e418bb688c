"""run(..., overwrite=True) empties only a folder that holds a run's outputs and nothing else, never
through a symbolic link, and never one a run holds; a refusal deletes nothing."""
import fcntl
import json
import os
import stat

import pytest

import scalinglab as sl

SWEEP = {"measure": "memory.infinite_memory_error", "params": {"N": 100}, "grid": {"T": [10, 100]}}


def files(folder):
    return sorted(p.name for p in folder.iterdir())


@pytest.fixture
def done(tmp_path):
    """A folder holding a finished run's outputs (those of another sweep than SWEEP)."""
    out = tmp_path / "done"
    sl.run({**SWEEP, "params": {"N": 50}}, out=out, progress=False)
    return out


def test_a_run_folder_is_emptied_and_run_again(done):
    assert {"results.jsonl", "summary.csv", "run.json", "sweep.toml", "checks.json"} <= set(files(done))
    (done / "checkpoints" / "task").mkdir(parents=True)  # as a long task's saved state
    (done / "checkpoints" / "task" / "state.bin").write_bytes(b"\0")
    table = sl.run(SWEEP, out=done, overwrite=True, progress=False, columns="all")
    assert table["N"].tolist() == [100, 100] and table.attrs["tasks_run"] == 2
    assert {t["params"]["N"] for t in sl.load_results(done)} == {100}
    assert ".lock" not in files(done) and "checkpoints" not in files(done)


def test_missing_and_empty_folders_are_simply_run_into(tmp_path):
    assert sl.run(SWEEP, out=tmp_path / "new", overwrite=True, progress=False).attrs["tasks_run"] == 2
    (tmp_path / "empty").mkdir()
    again = sl.run(SWEEP, out=tmp_path / "empty", overwrite=True, progress=False)
    assert (again.attrs["tasks_run"], again.attrs["tasks_reused"]) == (0, 2)  # the task cache next to both


def test_a_folder_holding_anything_else_is_refused_whole(done):
    (done / "notes.txt").write_text("mine")
    before = files(done)
    with pytest.raises(ValueError, match=r"holds notes.txt, which a scalinglab run does not write.*nothing was deleted"):
        sl.run(SWEEP, out=done, overwrite=True, progress=False)
    assert files(done) == before and (done / "notes.txt").read_text() == "mine"


@pytest.mark.parametrize("run_json, why", [(None, "no readable run.json"), ("not json", "did not write"),
                                           ('{"other": 1}', "did not write")])
def test_a_folder_without_a_runs_record_is_refused(done, run_json, why):
    if run_json is None:
        (done / "run.json").unlink()
    else:
        (done / "run.json").write_text(run_json)
    before = files(done)
    with pytest.raises(ValueError, match=why):
        sl.run(SWEEP, out=done, overwrite=True, progress=False)
    assert files(done) == before


def test_a_link_to_a_folder_is_refused_and_its_target_kept(done, tmp_path):
    link = tmp_path / "link"
    link.symlink_to(done, target_is_directory=True)
    before = files(done)
    with pytest.raises(ValueError, match="symbolic link"):
        sl.run(SWEEP, out=link, overwrite=True, progress=False)
    assert files(done) == before and link.is_symlink()


def test_links_inside_are_removed_as_links(done, tmp_path):
    victim = tmp_path / "victim"
    victim.mkdir()
    (victim / "keep.txt").write_text("keep")
    (done / "summary.csv").unlink()
    (done / "summary.csv").symlink_to(victim / "keep.txt")
    (done / "checkpoints").symlink_to(victim, target_is_directory=True)
    sl.run(SWEEP, out=done, overwrite=True, progress=False)
    assert (victim / "keep.txt").read_text() == "keep" and files(victim) == ["keep.txt"]
    assert not (done / "summary.csv").is_symlink() and not (done / "checkpoints").exists()


def test_a_folder_held_by_a_run_is_refused(done):
    with open(done / ".lock", "w") as lock:  # as a run holds its folder
        fcntl.flock(lock, fcntl.LOCK_EX)
        before = files(done)
        with pytest.raises(ValueError, match="in use by another scalinglab process"):
            sl.run(SWEEP, out=done, overwrite=True, progress=False)
        assert files(done) == before
    os.unlink(done / ".lock")
    sl.run(SWEEP, out=done, overwrite=True, progress=False)


def test_a_file_is_refused(tmp_path):
    (tmp_path / "file").write_text("x")
    with pytest.raises(ValueError, match="not a folder"):
        sl.run(SWEEP, out=tmp_path / "file", overwrite=True, progress=False)


@pytest.mark.parametrize("name, what", [("run.json", "a run.json"), (".lock", "a lock file")])
def test_a_pipe_in_place_of_a_runs_file_is_refused_at_once(done, deadline, name, what):
    # Opened for reading, a pipe waits for a writer: the folder is refused by the file's kind instead.
    path = done / name
    if path.exists():
        path.unlink()
    os.mkfifo(path)
    before = files(done)
    with deadline(10), pytest.raises(ValueError, match=f"has {what} that is not a regular file.*nothing was deleted"):
        sl.run(SWEEP, out=done, overwrite=True, progress=False)
    assert files(done) == before and stat.S_ISFIFO(os.lstat(path).st_mode)
    assert len(sl.load_results(done)) == 2


def _misspelt(done, tmp_path):
    sl.run({**SWEEP, "measure": "memory.infinite_memory_eror"}, out=done, overwrite=True, progress=False)


def _missing_file(done, tmp_path):
    sl.run(tmp_path / "missing.toml", out=done, overwrite=True, progress=False)


def _bad_value(done, tmp_path):
    sl.run({**SWEEP, "grid": {"T": [10, -5]}}, out=done, overwrite=True, progress=False)


def _unknown_profile(done, tmp_path):
    sl.run(SWEEP, out=done, overwrite=True, progress=False, profile="quik")


def _too_many_tasks(done, tmp_path):
    saved = sl.limits()
    sl.set_limits(max_tasks=1)
    try:
        sl.run(SWEEP, out=done, overwrite=True, progress=False)
    finally:
        sl.set_limits(**saved)


def _bad_checkpoint_interval(done, tmp_path):
    sl.run(SWEEP, out=done, overwrite=True, progress=False, checkpoint_every="10 parsecs")


@pytest.mark.parametrize("attempt, why", [
    (_misspelt, "memory.infinite_memory_eror"), (_missing_file, "missing.toml: cannot read the sweep file"),
    (_bad_value, "T=-5"), (_unknown_profile, "unknown profile 'quik'"), (_too_many_tasks, "more than the limit of 1"),
    (_bad_checkpoint_interval, "checkpoint_every")])
def test_a_sweep_that_cannot_run_deletes_nothing(done, tmp_path, attempt, why):
    before = {name: (done / name).read_bytes() for name in files(done)}
    records = sl.load_results(done)
    with pytest.raises(ValueError, match=why):
        attempt(done, tmp_path)
    assert {name: (done / name).read_bytes() for name in files(done)} == before
    assert sl.load_results(done) == records


def test_a_folders_own_sweep_file_runs_again_into_it(tmp_path):
    # The file is read and checked before the folder (sweep.toml with it) is emptied, then run from memory.
    sweep = tmp_path / "mine.toml"
    sweep.write_text(sl.sweep_toml(SWEEP))
    out = tmp_path / "mine"
    sl.run(sweep, out=out, set={"N": 60}, progress=False)  # records the file does not make
    (out / "checkpoints").mkdir()
    table = sl.run(out / "sweep.toml", out=out, overwrite=True, progress=False, columns="all")
    assert table["N"].tolist() == [100, 100] and table.attrs["tasks_run"] == 2
    assert [t["params"]["N"] for t in sl.load_results(out)] == [100, 100]  # nothing of the N=60 run is left
    assert (out / "sweep.toml").read_text() == sweep.read_text()
    assert json.loads((out / "run.json").read_text())["sets"] == []
    assert "checkpoints" not in files(out)
