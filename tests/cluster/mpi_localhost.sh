#!/usr/bin/env bash
# `mpirun -np K scalinglab run` on localhost against a single-process run of the same sweep:
#   1. K = 1..4 (oversubscribed): every record bit-identical to the single process's, each task once,
#      and the same summary.csv;
#   2. a worker rank SIGKILLed mid-run: the job ends with an error naming the tasks lost; the
#      results file holds only whole, distinct records; `--resume` with another rank count and then
#      with none finishes: 0 lost, 0 duplicated, every record bit-identical.
# The kill test runs its own sweep: 120 skills.peel tasks of ~50 ms.
# Skips (exit 77) when mpirun is missing or this scalinglab was built without MPI.
#   tests/cluster/mpi_localhost.sh SCALINGLAB_CLI SOURCE_DIR
set -uo pipefail
cli=$1
src=$2
skip() { echo "SKIP: $*"; exit 77; }
fail() { echo "FAIL: $*"; exit 1; }
command -v mpirun >/dev/null || skip "mpirun is not installed (Debian: openmpi-bin libopenmpi-dev)"
# OpenMPI refuses root unless told; CI machines and containers often run as root.
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
# A small shared-memory transport only: no network interfaces are probed.
export OMPI_MCA_btl=self,vader OMPI_MCA_btl_vader_single_copy_mechanism=none

work=$(mktemp -d /tmp/scalinglab-mpi-XXXXXX)
mpirun_pid=
cleanup() {
  [ -n "$mpirun_pid" ] && kill "$mpirun_pid" 2>/dev/null
  rm -rf "$work"
}
trap cleanup EXIT
cd "$work" || exit 1

sweep=$src/experiments/cabannes2023/fig1-left.toml  # 500 tasks of ~10 ms in its quick profile
run=(run "$sweep" --profile quick --threads 1 --quiet --no-cache)

"$cli" "${run[@]}" --out single >/dev/null || fail "the single-process run failed"
total=$(wc -l <single/results.jsonl)

# records.py A B [--partial]: B's records equal A's bit for bit (every double's text, which round-trips
# exactly) with each task once; --partial allows B to miss tasks. Prints "N tasks" for B.
cat >records.py <<'EOF'
import json, sys
def load(path):
    out, lines = {}, open(path).read().split("\n")
    for n, line in enumerate(lines):
        if not line:
            continue
        r = json.loads(line)
        r.pop("seconds")
        task = (r["key"], r["run"])
        if task in out:
            sys.exit(f"{path}: task {task} recorded twice (line {n + 1})")
        out[task] = json.dumps(r, sort_keys=True)
    return out
a, b = load(sys.argv[1]), load(sys.argv[2])
if set(b) - set(a):
    sys.exit(f"{sys.argv[2]}: tasks the single run does not have")
if len(sys.argv) < 4 and set(b) != set(a):
    sys.exit(f"{sys.argv[2]}: {len(set(a) - set(b))} tasks missing")
for t in b:
    if a[t] != b[t]:
        sys.exit(f"{sys.argv[2]}: task {t} differs:\n  {a[t][:300]}\n  {b[t][:300]}")
print(f"{len(b)} tasks")
EOF
[ -x "$(command -v python3)" ] || skip "python3 is needed to compare records"

# An environment where mpirun itself cannot start processes (no shared memory, no usable host
# name) says so and skips; anything after this is scalinglab's.
if ! out=$(timeout 60 mpirun --oversubscribe -np 2 true 2>&1); then
  skip "mpirun cannot start processes here: $(head -c 400 <<<"$out")"
fi

# A build without MPI refuses to run as a rank; then there is nothing to test.
if ! out=$(mpirun --oversubscribe -np 2 "$cli" "${run[@]}" --out probe 2>&1); then
  grep -q "built without MPI" <<<"$out" && skip "this scalinglab was built without MPI"
  fail "mpirun -np 2 failed: $out"
fi

for np in 1 2 3 4; do
  mpirun --oversubscribe -np $np "$cli" "${run[@]}" --out np$np >np$np.log 2>&1 || fail "mpirun -np $np: $(tail -5 np$np.log)"
  got=$(python3 records.py single/results.jsonl np$np/results.jsonl) || fail "mpirun -np $np: $got"
  cmp -s single/summary.csv np$np/summary.csv || fail "mpirun -np $np: summary.csv differs from the single run's"
  echo "np=$np: $got of $total bit-identical to the single process, each once; summary.csv identical"
done

# A worker killed mid-run, on tasks long enough (~50 ms) that the run is far from done when mpirun,
# about a second after the death, stops the job.
printf '%s\n' 'measure = "skills.peel"' 'runs = 120' 'seed = 3' '[params]' 'ensemble = "poisson"' \
  'R = 200000' 'texts_per_concept = 2' 'd_t = 3' >slow.toml
slow=(run slow.toml --threads 1 --quiet --no-cache)
"$cli" "${slow[@]}" --out slow_single >/dev/null || fail "the single-process run of slow.toml failed"
total=$(wc -l <slow_single/results.jsonl)
mpirun --oversubscribe -np 3 "$cli" "${slow[@]}" --out killed >killed.log 2>&1 &
mpirun_pid=$!
worker=
for _ in $(seq 1 1500); do
  if [ -z "$worker" ]; then
    for p in $(pgrep -f -- "--out killed"); do
      [ "$p" = "$mpirun_pid" ] && continue
      tr '\0' '\n' <"/proc/$p/environ" 2>/dev/null | grep -qx "OMPI_COMM_WORLD_RANK=1" && worker=$p
    done
  fi
  lines=$(cat killed/results.jsonl 2>/dev/null | wc -l)
  [ -n "$worker" ] && [ "$lines" -ge 6 ] && break
  sleep 0.02
done
[ -n "$worker" ] || fail "rank 1 of the run to kill was not found"
[ "$lines" -lt "$total" ] || fail "the run finished before a worker could be killed"
kill -9 "$worker"
wait "$mpirun_pid"
status=$?
mpirun_pid=
[ $status -ne 0 ] || fail "the run went on as if nothing had happened after its rank 1 was killed"
grep -q "not recorded" killed.log || fail "no error naming the lost tasks: $(tail -20 killed.log)"
lost=$(grep -cE '^  .* run [0-9]+ \(rank [0-9]+\)$' killed.log)
[ "$lost" -ge 1 ] || fail "the error names no lost task: $(tail -20 killed.log)"
partial=$(python3 records.py slow_single/results.jsonl killed/results.jsonl --partial) || fail "after the kill: $partial"
# The tasks named lost are indeed not in results.jsonl.
named=$(python3 - killed/results.jsonl killed.log <<'EOF'
import json, re, sys
done = {(r["key"], r["run"]) for r in map(json.loads, filter(None, open(sys.argv[1]).read().split("\n")))}
named = [(m[1], int(m[2])) for m in re.finditer(r"^  (.*) run (\d+) \(rank \d+\)$", open(sys.argv[2]).read(), re.M)]
recorded = [t for t in named if t in done]
print(f"{len(recorded)} of the {len(named)} tasks named lost are recorded")
sys.exit(1 if recorded or not named else 0)
EOF
) || fail "$named"
echo "killed rank 1 (pid $worker) after $lines records: exit $status, $lost tasks named lost ($named), $partial recorded (whole, distinct, bit-identical)"
grep -A3 "not recorded" killed.log | sed 's/^/  | /'

# Resume with another rank count, then with none: nothing lost, nothing twice.
mpirun --oversubscribe -np 2 "$cli" "${slow[@]}" --out killed --resume >resume.log 2>&1 || fail "--resume under mpirun -np 2: $(tail -5 resume.log)"
got=$(python3 records.py slow_single/results.jsonl killed/results.jsonl) || fail "after --resume: $got"
cmp -s slow_single/summary.csv killed/summary.csv || fail "after --resume: summary.csv differs"
"$cli" "${slow[@]}" --out killed --resume >resume2.log 2>&1 || fail "--resume without mpirun: $(tail -5 resume2.log)"
got2=$(python3 records.py slow_single/results.jsonl killed/results.jsonl) || fail "after a second --resume: $got2"
echo "resumed with -np 2: $got of $total, 0 lost, 0 duplicated, bit-identical; a further plain --resume: $got2"

# 3. A plugin's measure that throws on a worker rank fails its task alone, as in one process: the
# other tasks are recorded, the failures are in failures.jsonl, the run exits 1 (not the end of the job).
toy=$(dirname "$cli")/test-plugins/libtoy_plugin.so
if [ -f "$toy" ]; then
  printf 'measure = "toy.draw"\nruns = 4\n[grid]\nscale = [1, 13, 20, 30]\n' >throws.toml
  mpirun --oversubscribe -np 2 "$cli" --plugin "$toy" run throws.toml --out throws --threads 1 --quiet >throws.log 2>&1
  status=$?
  [ "$status" = 1 ] || fail "a throwing task under mpirun: exit $status, expected 1: $(tail -5 throws.log)"
  [ "$(wc -l <throws/results.jsonl)" = 12 ] || fail "a throwing task under mpirun: $(wc -l <throws/results.jsonl) records, expected 12"
  [ "$(grep -c 'thirteen is unlucky' throws/failures.jsonl)" = 4 ] || fail "failures.jsonl: $(cat throws/failures.jsonl)"
  echo "a plugin throwing on 4 of 16 tasks under -np 2: 12 recorded, 4 in failures.jsonl, exit 1"
fi
echo "PASS"
