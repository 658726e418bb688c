#!/usr/bin/env python3
"""Every registered measure at the edges of every parameter, through the command line and Python.

Each parameter takes, one at a time at a cheap base point, 17 hostile values: its declared minimum
and maximum, 0, -1, 1, 0.5, -0, 1e308, -1e308, inf, -inf, nan, 1e-320, 2^31, 9.3e18, the empty
text and a word. A case passes when it exits 0 (computed) or 2 (refused with a sentence): never a
signal, never a failure (exit 1, or a Python exception other than ValueError), never over the time
limit. Limits are tightened (memory 1 GB, work 3e9 operations) so that a legitimate but huge
request is refused rather than run.

    domain_edges.py CLI PYTHONPATH [--timeout 20] [--jobs 2] [--only MEASURE]
                    [--world FILE.py] [--plugin LIB.so] [--loaded-only]

With --world / --plugin (repeatable) the worlds of a user's own are loaded in both interfaces, and
--loaded-only keeps the cases of their measures alone.
"""
import argparse
import concurrent.futures as cf
import json
import os
import queue
import subprocess
import sys
import threading
import time

HOSTILE = ["MIN", "MAX", "0", "-1", "1", "0.5", "-0", "1e308", "-1e308", "inf", "-inf", "nan", "1e-320",
           "2147483648", "9.3e18", "", "x"]
# Points where one run of the measure takes a fraction of a second, so that what is timed is the
# parameter under test (factor.train's defaults train for a minute and a half).
BASE = {"factor.train": {"input_factors": "2x4", "output_factors": "4x2", "d": "8", "epochs": "20", "evals": "3"}}
LIMITS = ["--max-memory", "1e9", "--max-work", "3e9"]

PY_DRIVER = r"""
import json, os, sys, signal
import scalinglab as sl
sl.set_limits(max_memory=1e9, max_work=3e9)
for path in json.loads(os.environ.get("EDGE_PLUGINS", "[]")):
    sl.load_plugin(path)
for path in json.loads(os.environ.get("EDGE_WORLDS", "[]")):
    sl.load_world(path)
for line in sys.stdin:
    case = json.loads(line)
    print(json.dumps({"start": case["id"]}), flush=True)
    try:
        sl.eval(case["measure"], threads=1, **case["params"])
        status = 0
    except ValueError:
        status = 2
    except Exception as e:  # anything else is a failure of ours
        status = 1
        print(json.dumps({"error": case["id"], "what": f"{type(e).__name__}: {e}"[:300]}), flush=True)
    print(json.dumps({"done": case["id"], "status": status}), flush=True)
"""


WORLD_ARGS = []  # --plugin LIB / --world FILE, before the command


def measure_names(cli, extra):
    out = subprocess.run([cli] + extra + ["list"], capture_output=True, text=True, check=True).stdout
    return [l.split()[0] for l in out.splitlines() if l.strip()]


def cases(cli, loaded_only=False):
    out = []
    names = measure_names(cli, WORLD_ARGS)
    if loaded_only:
        builtin = set(measure_names(cli, []))
        names = [n for n in names if n not in builtin]
    for m in names:
        d = json.loads(subprocess.run([cli] + WORLD_ARGS + ["describe", m, "--json"], capture_output=True, text=True,
                                      check=True).stdout)
        for p in d["params"]:
            for v in HOSTILE:
                value = {"MIN": str(p.get("min", "0")), "MAX": str(p.get("max", "1e308"))}.get(v, v)
                params = dict(BASE.get(m, {}))
                params[p["name"]] = value
                out.append({"id": len(out), "measure": m, "param": p["name"], "value": value, "params": params})
    return out


def run_cli(cli, case, timeout):
    args = [cli] + WORLD_ARGS + LIMITS + ["eval", case["measure"], "--threads", "1"] + [f"{k}={v}" for k, v in case["params"].items()]
    start = time.time()
    try:
        r = subprocess.run(args, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return "timeout", time.time() - start, ""
    status = r.returncode
    if status < 0:
        return f"signal {-status}", time.time() - start, r.stderr[-300:]
    if status not in (0, 2):
        return f"exit {status}", time.time() - start, r.stderr.strip()[-300:]
    if status == 2 and ("json.exception" in r.stderr or "boost::" in r.stderr):
        return "library text", time.time() - start, r.stderr.strip()[-300:]
    return ("refused" if status == 2 else "ok"), time.time() - start, ""


def run_python(pythonpath, chunk, timeout):
    """One interpreter per chunk of cases; a crash or a hang is charged to the case it was in."""
    bad, pending = [], list(chunk)
    refused = [0]
    while pending:
        env = dict(os.environ, PYTHONPATH=pythonpath,
                   EDGE_PLUGINS=json.dumps([WORLD_ARGS[i + 1] for i in range(0, len(WORLD_ARGS), 2) if WORLD_ARGS[i] == "--plugin"]),
                   EDGE_WORLDS=json.dumps([WORLD_ARGS[i + 1] for i in range(0, len(WORLD_ARGS), 2) if WORLD_ARGS[i] == "--world"]))
        p = subprocess.Popen([sys.executable, "-c", PY_DRIVER], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                             stderr=subprocess.DEVNULL, text=True, env=env)
        p.stdin.write("".join(json.dumps(c) + "\n" for c in pending))
        p.stdin.close()
        lines = queue.Queue()  # read by a thread: a buffered reader would hide lines from select()
        threading.Thread(target=lambda: [lines.put(l) for l in p.stdout] + [lines.put(None)], daemon=True).start()
        current, finished = None, set()
        while True:
            try:
                line = lines.get(timeout=timeout)
            except queue.Empty:
                p.kill()
                if current is None:
                    raise SystemExit(f"the Python driver starts no case in {timeout} s (PYTHONPATH {pythonpath})")
                bad.append((current, "timeout", ""))
                finished.add(current["id"])
                break
            if line is None:
                p.wait()
                if current is None and pending:  # died before its first case: the module does not load
                    raise SystemExit(f"the Python driver exits with {p.returncode} before any case (PYTHONPATH {pythonpath})")
                if current["id"] not in finished:
                    bad.append((current, f"signal {-p.returncode}" if p.returncode < 0 else f"died {p.returncode}", ""))
                    finished.add(current["id"])
                break
            msg = json.loads(line)
            if "start" in msg:
                current = next(c for c in pending if c["id"] == msg["start"])
            elif "error" in msg:
                bad.append((current, "exception", msg["what"]))
            elif "done" in msg:
                finished.add(msg["done"])
                refused[0] += msg["status"] == 2
        pending = [c for c in pending if c["id"] not in finished]
    return bad, refused[0]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("cli")
    ap.add_argument("pythonpath")
    ap.add_argument("--timeout", type=float, default=20)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--only")
    ap.add_argument("--no-python", action="store_true")
    ap.add_argument("--world", action="append", default=[])
    ap.add_argument("--plugin", action="append", default=[])
    ap.add_argument("--loaded-only", action="store_true")
    a = ap.parse_args()
    for p in a.plugin:
        WORLD_ARGS.extend(["--plugin", os.path.abspath(p)])
    for w in a.world:
        WORLD_ARGS.extend(["--world", os.path.abspath(w)])
    all_cases = [c for c in cases(a.cli, a.loaded_only) if not a.only or c["measure"] == a.only]
    bad, cli_refused, slow = [], 0, []
    t0 = time.time()
    with cf.ThreadPoolExecutor(a.jobs) as ex:
        for c, (verdict, seconds, text) in zip(all_cases, ex.map(lambda c: run_cli(a.cli, c, a.timeout), all_cases)):
            cli_refused += verdict == "refused"
            if seconds > 20:
                slow.append((c, seconds))
            if verdict not in ("ok", "refused"):
                bad.append(("cli", c, verdict, text))
    cli_seconds = time.time() - t0
    py_seconds, py_refused = 0, 0
    if not a.no_python:
        t0 = time.time()
        by_measure = {}
        for c in all_cases:
            by_measure.setdefault(c["measure"], []).append(c)
        with cf.ThreadPoolExecutor(a.jobs) as ex:
            for result, refused in ex.map(lambda chunk: run_python(a.pythonpath, chunk, a.timeout), by_measure.values()):
                py_refused += refused
                for c, verdict, text in result:
                    bad.append(("python", c, verdict, text))
        py_seconds = time.time() - t0
    for where, c, verdict, text in bad:
        print(f"FAIL [{where}] {c['measure']} {c['param']}={c['value']!r}: {verdict} {text}")
    for c, seconds in slow:
        print(f"slow [cli] {c['measure']} {c['param']}={c['value']!r}: {seconds:.1f} s")
    print(f"domain edges: {len(all_cases)} cases x 2 interfaces; refused with a sentence: {cli_refused} on the command "
          f"line ({cli_seconds:.0f} s), {py_refused} in Python ({py_seconds:.0f} s); {len(bad)} failures; "
          f"{len(slow)} command-line cases over 20 s")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
