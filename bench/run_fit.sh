#!/usr/bin/env bash
# The Chinchilla Approach 3 fit (`scalinglab fit --law chinchilla`) against the same fit in
# numpy + scipy.optimize (bench/reference/chinchilla_fit_scipy.py), same run, on the example data
# (240 points after dropping the 5 highest losses):
#   (a) the full grid, 4500 L-BFGS starts, no bootstrap, on 2 and on 1 thread(s)/process(es);
#       scalinglab timed as the whole command (start-up, CSV and JSON included), SciPy as the fit
#       call only; medians over reps. Also SciPy with its default stopping rules, 2 processes.
#   (b) 1000 bootstrap refits (33 starts each), 2 threads/processes: scalinglab's own
#       "bootstrap.seconds" (median over reps); SciPy measured once on fewer replicates, scaled.
#   (c) the same fit written as an expression (--law 'E + A/N^alpha + B/D^beta' with --bounds, --grid
#       and --delta spelling out the built-in's grid, 4500 starts) against the built-in
#       --law chinchilla, both on 1 thread, no bootstrap, timed as whole commands; repetitions
#       interleaved (order alternating) so load affects both alike; medians over reps. Prints both
#       times, the ratio custom / built-in and the relative difference of the two objectives.
#   (d) the built-in's full 4500-start fit on 1 thread (the built-in runs of (c)) against the
#       1-start fit (--grid alpha=0 ... log_B=0, interleaved with (c)), which stands for process
#       start-up + CSV + JSON; their difference estimates the fit's own time.
# Prints times, ratios (SciPy / scalinglab), the targets, and each side's optimum. Needs a build
# (scripts/build.sh) and python3-scipy; takes about 5 minutes on 2 cores. With
# FIT_BENCH_ONLY=expression only (c) and (d) run: no SciPy needed, under a minute.
# FIT_BENCH_ONLY=big runs (e) only: a generated Chinchilla-like file of 10^6 rows (N, D, C, loss,
# log-noise 0.01; written to a temporary folder, removed after) read alone (peak memory and time of
# a run refused after the columns are read) and fitted with the default 4500-start grid, screened on
# 10^4 rows, with --polish 64 and 8, 2 threads, no bootstrap; progress goes to stderr. About ten
# minutes on 2 cores; needs numpy.
#   bench/run_fit.sh [reps=3] [SciPy bootstrap replicates=100] [build dir=build]
#   FIT_BENCH_ONLY=expression bench/run_fit.sh [reps=3] [ignored] [build dir=build]
#   FIT_BENCH_ONLY=big bench/run_fit.sh [ignored] [ignored] [build dir=build]
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
reps=${1:-3}
boot=${2:-100}
build=${3:-$here/../build}
only=${FIT_BENCH_ONLY:-}
case "$only" in
  ""|expression|big) ;;
  *) echo "FIT_BENCH_ONLY must be empty, 'expression' or 'big', not '$only'" >&2; exit 2 ;;
esac
export OPENBLAS_NUM_THREADS=1
/usr/bin/python3 - "$build/scalinglab" "$here/reference/chinchilla_fit_scipy.py" \
  "$here/../examples/data/chinchilla-figure4-epoch-extraction.csv" "$reps" "$boot" "$only" <<'PY'
import json, statistics, subprocess, sys, time
ours_bin, ref_py, data, reps, boot = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4]), int(sys.argv[5])
only = sys.argv[6]

def ours(threads, bootstrap=0):
    cmd = [ours_bin, "fit", data, "--law", "chinchilla", "--N", "Model Size", "--C", "Training FLOP",
           "--loss", "loss", "--drop-top", "5", "--json", "--bootstrap", str(bootstrap), "--threads", str(threads)]
    times, out = [], None
    for _ in range(reps):
        t0 = time.perf_counter()
        out = json.loads(subprocess.run(cmd, check=True, capture_output=True, text=True).stdout)
        times.append(out["bootstrap"]["seconds"] if bootstrap else time.perf_counter() - t0)
    return statistics.median(times), out

def scipy(*args):
    cmd = [sys.executable, ref_py, data, "--reps", str(reps), *args]
    return json.loads(subprocess.run(cmd, check=True, capture_output=True, text=True).stdout)

def optimum(name, r):
    return f"{name} {r['objective']:.17g} (alpha {r['alpha']:.10f}, beta {r['beta']:.10f}, E {r['E']:.8f})"

def verdict(ok):
    return "met" if ok else "NOT met"

COMMON = ["--N", "Model Size", "--C", "Training FLOP", "--loss", "loss", "--drop-top", "5",
          "--json", "--bootstrap", "0", "--threads", "1"]
CUSTOM = [ours_bin, "fit", data, "--law", "E + A/N^alpha + B/D^beta", "--bounds", "E=0:,A=0:,B=0:",
          "--grid", "log(E)=-1:0.5:1", "--grid", "log(A)=0:5:25", "--grid", "log(B)=0:5:25",
          "--grid", "alpha=0:0.5:2", "--grid", "beta=0:0.5:2", "--delta", "1e-3", *COMMON]
BUILTIN = [ours_bin, "fit", data, "--law", "chinchilla", *COMMON]
ONE_START = [*BUILTIN, "--grid", "alpha=0", "--grid", "beta=0", "--grid", "log_E=0", "--grid", "log_A=0",
             "--grid", "log_B=0"]

def timed(cmd):
    t0 = time.perf_counter()
    out = subprocess.run(cmd, check=True, capture_output=True, text=True).stdout
    return time.perf_counter() - t0, json.loads(out)

def expression_sections():
    names = ("custom", "builtin", "one")
    cmds = dict(zip(names, (CUSTOM, BUILTIN, ONE_START)))
    times, outs = {n: [] for n in names}, {}
    for i in range(reps):  # interleaved, order reversed every other repetition
        for n in (names if i % 2 == 0 else names[::-1]):
            t, outs[n] = timed(cmds[n])
            times[n].append(t)
    for n, starts in (("custom", 4500), ("builtin", 4500), ("one", 1)):
        o = outs[n]
        if o["starts"] != starts or o["points"] != 240:
            sys.exit(f"{n}: expected {starts} starts on 240 points, got {o['starts']} on {o['points']}")
    tc, tb, t1 = (statistics.median(times[n]) for n in names)
    c, b = outs["custom"], outs["builtin"]
    rel = abs(c["objective"] - b["objective"]) / b["objective"]
    print(f"Custom expression vs built-in, {b['points']} points, {b['starts']} starts, 1 thread, no bootstrap, "
          f"reps={reps} (medians; repetitions interleaved)")
    print(f"(c) custom 'E + A/N^alpha + B/D^beta' {tc:.3f} s | built-in chinchilla {tb:.3f} s (whole commands) "
          f"| ratio custom/built-in x{tc / tb:.2f}  [target custom expression within 1.5x of the built-in: "
          f"{verdict(tc <= 1.5 * tb)}]")
    print(f"    optimum: {optimum('custom  ', c)}\n             {optimum('built-in', b)}\n"
          f"             relative difference of objectives {rel:.1e}; starts ending at the best "
          f"(1e-6 rel.): custom {c['starts_at_best']}, built-in {b['starts_at_best']}")
    print(f"    all times (s): custom {' '.join(f'{t:.3f}' for t in times['custom'])} | "
          f"built-in {' '.join(f'{t:.3f}' for t in times['builtin'])}")
    print(f"(d) built-in full grid ({b['starts']} starts) on {b['points']} points, 1 thread: {tb:.3f} s (whole command, "
          f"the built-in runs of (c))  [target 4,500-start fit on 240 points < 1 s on one core: {verdict(tb < 1)}]")
    print(f"    1-start fit (same command, --grid alpha=0 beta=0 log_E=0 log_A=0 log_B=0), taken as start-up + CSV "
          f"+ JSON cost: {t1 * 1000:.1f} ms; fit alone ~ {tb:.3f} - {t1:.3f} = {tb - t1:.3f} s "
          f"(difference of medians)")

def scipy_sections():
    fit_target = "fit with >= 1000 starts on 240 points < 2 s"
    runs = []
    for k in (2, 1):
        runs.append((k, ours(k), scipy("--workers", str(k), *(["--bootstrap", str(boot)] if k == 2 else []))))
    sd = scipy("--workers", "2", "--scipy-defaults")
    (t_boot, o_boot) = ours(2, 1000)

    r2 = runs[0][2]
    print(f"Chinchilla Approach 3 fit, {r2['points']} points, {r2['starts']} starts, reps={reps} (medians); "
          f"scipy {r2['scipy']}, numpy {r2['numpy']}; ratio = scipy time / scalinglab time")
    for k, (t, o), r in runs:
        rel = abs(r["objective"] - o["objective"]) / o["objective"]
        print(f"(a) full grid, {k} thread(s)/process(es): scalinglab {t:.3f} s (whole command) | scipy {r['seconds']:.2f} s "
              f"| ratio x{r['seconds'] / t:.1f}  [target {fit_target}: {verdict(t < 2)}]")
        print(f"    optimum: {optimum('scalinglab', o)}\n             {optimum('scipy     ', r)}\n"
              f"             relative difference of objectives {rel:.1e}; starts ending at the best "
              f"(1e-6 rel.): scalinglab {o['starts_at_best']}, scipy {r['starts_at_best']}")
    t2 = runs[0][1][0]
    rel = abs(sd["objective"] - runs[0][1][1]["objective"]) / runs[0][1][1]["objective"]
    print(f"(a') same, scipy with its default stopping rules (gtol 1e-5, ftol 2.2e-9), 2 processes: scipy {sd['seconds']:.2f} s "
          f"| ratio x{sd['seconds'] / t2:.1f}\n    optimum: {optimum('scipy     ', sd)}; relative difference {rel:.1e}")
    b = r2["bootstrap"]
    t_ref = b["seconds"] * 1000 / b["replicates"]
    print(f"(b) 1000 bootstrap refits ({b['starts_per_refit']} starts each), 2 threads/processes: scalinglab {t_boot:.2f} s "
          f"(its bootstrap.seconds) | scipy {t_ref:.1f} s ({b['replicates']} replicates measured once in "
          f"{b['seconds']:.1f} s, x{1000 / b['replicates']:g}) | ratio x{t_ref / t_boot:.1f}  "
          f"[target 1000 bootstrap refits < 60 s on 2 cores: {verdict(t_boot < 60)}]")
    print(f"    bootstrap SE (different resamples): scalinglab alpha {o_boot['alpha_se']:.4f}, beta {o_boot['beta_se']:.4f} "
          f"| scipy alpha {b['alpha_se']:.4f}, beta {b['beta_se']:.4f}")

def big_section():
    import os, resource, tempfile
    import numpy as np
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "big.csv")
        n, rng = 10 ** 6, np.random.default_rng(0)
        logC = rng.uniform(np.log(1e17), np.log(1e22), n)
        N = 0.1 * (np.exp(logC) / 6) ** 0.45 * 10 ** rng.uniform(-1, 1, n)
        D = np.exp(logC) / (6 * N)
        L = (1.8 + 400 / N ** 0.34 + 2000 / D ** 0.28) * np.exp(0.01 * rng.standard_normal(n))
        np.savetxt(path, np.column_stack([N, D, np.exp(logC), L]), fmt="%.17g", delimiter=",",
                   header="N,D,C,loss", comments="")
        print(f"(e) {n} rows, {os.path.getsize(path) / 1e6:.0f} MB")
        # Reading alone: a loss column that does not exist is refused once the table is read.
        before = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
        t0 = time.perf_counter()
        subprocess.run([ours_bin, "fit", path, "--N", "N", "--D", "D", "--loss", "nosuch"], capture_output=True)
        peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
        print(f"    read: {time.perf_counter() - t0:.2f} s, peak memory {max(peak, before) / 1024:.0f} MB")
        for polish in (64, 8):
            t0 = time.perf_counter()
            out = json.loads(subprocess.run([ours_bin, "fit", path, "--N", "N", "--D", "D", "--bootstrap", "0",
                                             "--threads", "2", "--polish", str(polish), "--json"],
                                            check=True, stdout=subprocess.PIPE, text=True).stdout)
            print(f"    fit, 4500 starts screened on 10^4 rows, --polish {polish}: {time.perf_counter() - t0:.0f} s; "
                  f"alpha {out['alpha']:.5f} (0.34), beta {out['beta']:.5f} (0.28), E {out['E']:.4f} (1.8)")

if only == "big":
    big_section()
else:
    if only != "expression":
        scipy_sections()
    expression_sections()
PY
