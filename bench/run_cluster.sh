#!/usr/bin/env bash
# Throughput of `mpirun -np 2 scalinglab run` against one process, on this machine's cores, for
# tasks of about 1 ms, 10 ms and 100 ms (skills.peel on a Poisson concept-text graph: CPU-bound,
# O(edges), R chosen for the duration; the measured task times are printed). Per size:
#   1 process            scalinglab run --threads 1                 (the reference)
#   2 ranks              mpirun -np 2 scalinglab run --threads 1     (rank 0 also computes)
#   2 threads            scalinglab run --threads 2                 (threads vs ranks, for the docs)
# Each command is timed whole, then its fixed cost (start-up, mpirun's launch, summary, plot) is
# timed as a --resume of the finished folder, which runs no task, and subtracted:
#   throughput = tasks / (wall - fixed);  per-task overhead = workers (wall - fixed) / tasks - mean task
# where "mean task" is the mean per-task seconds (results.jsonl) of the 1-process run: the overhead
# also counts tasks slowed down beside another rank's polling. Repetitions are interleaved; medians. Targets: 2 ranks >= 1.8x one process at 10 ms; overhead < 0.2 ms per task.
#   bench/run_cluster.sh [reps=3] [build dir=build]
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
reps=${1:-3}
build=${2:-$here/../build}
cli=$build/scalinglab
command -v mpirun >/dev/null || { echo "mpirun is not installed (scripts/install-deps.sh)" >&2; exit 2; }
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_btl=self,vader
export OMPI_MCA_btl_vader_single_copy_mechanism=none OPENBLAS_NUM_THREADS=1
work=$(mktemp -d /tmp/scalinglab-cluster-bench-XXXXXX)
trap 'rm -rf "$work"' EXIT

/usr/bin/python3 - "$cli" "$work" "$reps" <<'PY'
import json, os, shutil, statistics, subprocess, sys, time
cli, work, reps = sys.argv[1], sys.argv[2], int(sys.argv[3])
# (label, R, tasks): ~5 s of work for one process at each size.
sizes = [("1 ms", 4500, 4000), ("10 ms", 45000, 400), ("100 ms", 450000, 40)]
configs = {
    "1 process": ([], 1, 1),
    "2 ranks": (["mpirun", "--oversubscribe", "-np", "2"], 1, 2),
    "2 threads": ([], 2, 2),
}

def sweep(R, tasks):
    path = os.path.join(work, f"peel{R}.toml")
    with open(path, "w") as f:
        f.write(f'measure = "skills.peel"\nruns = {tasks}\nseed = 1\n[params]\n'
                f'ensemble = "poisson"\nR = {R}\ntexts_per_concept = 2\nd_t = 3\n')
    return path

def timed(cmd):
    t = time.perf_counter()
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return time.perf_counter() - t

rows = {}
for label, R, tasks in sizes:
    path = sweep(R, tasks)
    for rep in range(reps):
        names = list(configs) if rep % 2 == 0 else list(reversed(configs))
        for name in names:
            launcher, threads, workers = configs[name]
            out = os.path.join(work, "out")
            shutil.rmtree(out, ignore_errors=True)
            cmd = launcher + [cli, "run", path, "--out", out, "--threads", str(threads), "--quiet"]
            wall = timed(cmd)
            fixed = timed(cmd + ["--resume"])
            secs = [json.loads(l)["seconds"] for l in open(os.path.join(out, "results.jsonl"))]
            assert len(secs) == tasks
            busy = wall - fixed
            rows.setdefault((label, name), []).append(
                dict(wall=wall, fixed=fixed, rate=tasks / busy, task=statistics.mean(secs),
                     per_task=workers * busy / tasks))

med = lambda xs: statistics.median(xs)
print(f"{os.cpu_count()} cores; medians of {reps} interleaved repetitions")
print(f"{'tasks':>7} {'run':>10} {'n':>5} {'task ms':>8} {'wall s':>7} {'fixed s':>7} {'tasks/s':>8} "
      f"{'vs 1 proc':>9} {'overhead ms':>11}")
verdicts = []
for label, R, tasks in sizes:
    base = med([r["rate"] for r in rows[(label, "1 process")]])
    alone = med([r["task"] for r in rows[(label, "1 process")]])  # a task's own cost, in one process
    for name in configs:
        rs = rows[(label, name)]
        rate = med([r["rate"] for r in rs])
        over = med([r["per_task"] for r in rs]) - alone
        print(f"{label:>7} {name:>10} {tasks:>5} {1e3 * med([r['task'] for r in rs]):8.2f} "
              f"{med([r['wall'] for r in rs]):7.2f} {med([r['fixed'] for r in rs]):7.2f} {rate:8.1f} "
              f"{rate / base:8.2f}x {1e3 * over:11.3f}")
        if name == "2 ranks":
            if label == "10 ms":
                verdicts.append(f"2 ranks at 10 ms: {rate / base:.2f}x (target >= 1.8x): "
                                + ("met" if rate / base >= 1.8 else "NOT met"))
            verdicts.append(f"2 ranks' overhead at {label}: {1e3 * over:.3f} ms per task (target < 0.2 ms): "
                            + ("met" if over < 2e-4 else "NOT met"))
print("overhead = workers x (wall - fixed) / tasks - the mean task of the 1-process run: what a task")
print("costs beyond its own time (dispatch, slower tasks beside the polling, and the end of the run,")
print("when fewer tasks than workers are left: compare 2 threads).")
print("\n".join(verdicts))
