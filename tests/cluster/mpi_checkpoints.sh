#!/usr/bin/env bash
# Checkpoints under `mpirun -np 2`: two factor.train tasks of about 10 s (one per rank), the whole
# job SIGKILLed at three points mid-task and resumed each time; a last --resume finishes. Every
# record is bit-identical to a single process's uninterrupted run, and the resumed tasks went on
# from their saved states.
# Skips (exit 77) when mpirun is missing, cannot start processes, or scalinglab has no MPI.
#   tests/cluster/mpi_checkpoints.sh SCALINGLAB_CLI SOURCE_DIR
set -uo pipefail
cli=$1
src=$2
skip() { echo "SKIP: $*"; exit 77; }
fail() {
  echo "FAIL: $*"
  for f in job.log last.log; do [ -f "$f" ] && { echo "--- $f"; grep -v "^\s*$" "$f" | tail -15; }; done
  exit 1
}
command -v mpirun >/dev/null || skip "mpirun is not installed (Debian: openmpi-bin libopenmpi-dev)"
command -v setsid >/dev/null || skip "setsid is needed to stop a whole job"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_btl=self,vader OMPI_MCA_btl_vader_single_copy_mechanism=none

work=$(mktemp -d /tmp/scalinglab-mpi-ckpt-XXXXXX)
job=
cleanup() {
  [ -n "$job" ] && kill_job
  [ -n "${KEEP_WORK:-}" ] && echo "kept $work" || rm -rf "$work"
}
trap cleanup EXIT
cd "$work" || exit 1
if ! out=$(timeout 60 mpirun --oversubscribe -np 2 true 2>&1); then
  skip "mpirun cannot start processes here: $(head -c 400 <<<"$out")"
fi

printf '%s\n' 'measure = "factor.train"' 'runs = 2' 'seed = 11' '[params]' 'setting = "compression"' \
  'input_factors = "4x4"' 'output_factors = "4x2"' 'd = 16' 'h = 32' 'epochs = 100000' 'evals = 8' >long.toml
run=(run long.toml --threads 1 --quiet --no-cache)
"$cli" run long.toml --threads 2 --quiet --no-cache --out single >/dev/null || fail "the single-process run failed"
if ! out=$(mpirun --oversubscribe -np 2 "$cli" "${run[@]}" --out probe 2>&1); then
  grep -q "built without MPI" <<<"$out" && skip "this scalinglab was built without MPI"
  fail "mpirun -np 2 failed: $out"
fi

# kill_job: SIGKILL to mpirun's session and to its ranks (which Open MPI may put in groups of their
# own), then waits until none is left: a rank left alive would keep o/ locked.
kill_job() {
  kill -9 -- -"$job" 2>/dev/null
  wait "$job" 2>/dev/null
  job=
  for _ in $(seq 1 500); do
    pkill -9 -f -- "--out o( |$)" 2>/dev/null || break
    sleep 0.02
  done
}
# states: the newest modification time in o/checkpoints (0 when none), and how many files it holds.
newest() { find o/checkpoints -name '*.state' -printf '%T@\n' 2>/dev/null | sort -n | tail -1; }
count() { find o/checkpoints -name '*.state' 2>/dev/null | wc -l; }
# interrupt EXTRA_SECONDS [run options...]: starts the job in its own session, waits (120 s at most)
# for a state newer than any before, waits EXTRA_SECONDS, then kills the whole job.
interrupt() {
  local extra=$1
  shift
  local before
  before=$(newest)
  setsid mpirun --oversubscribe -np 2 "$cli" "${run[@]}" --out o "$@" >>job.log 2>&1 &
  job=$!
  for _ in $(seq 1 2400); do
    now=$(newest)
    [ -n "$now" ] && [ "$now" != "$before" ] && break
    sleep 0.02
  done
  sleep "$extra"
  kill_job
}

interrupt 0.3 --checkpoint-every 0.1s
[ "$(count)" -ge 1 ] || fail "no state saved before the first kill: $(tail -5 job.log)"
for extra in 0.8 0.5; do
  interrupt "$extra" --checkpoint-every 0.1s --resume
  [ "$(count)" -ge 1 ] || fail "no state left after a kill: $(tail -5 job.log)"
done

mpirun --oversubscribe -np 2 "$cli" "${run[@]}" --out o --resume >last.log 2>&1 || fail "the last --resume: $(tail -5 last.log)"
grep -q "went on from" last.log || fail "the last --resume did not use the saved states: $(tail -5 last.log)"
python3 - single/results.jsonl o/results.jsonl <<'PY' || fail "records differ"
import json, sys
def load(p):
    out = {}
    for line in filter(None, open(p).read().split("\n")):
        r = json.loads(line); r.pop("seconds"); out[(r["key"], r["run"])] = json.dumps(r, sort_keys=True)
    return out
a, b = load(sys.argv[1]), load(sys.argv[2])
sys.exit(0 if a == b and len(a) == 2 else 1)
PY
[ ! -e o/checkpoints ] || fail "o/checkpoints is left after the run ended"
echo "3 kills, then --resume under mpirun -np 2: both records bit-identical to the single process's"
echo "PASS"
