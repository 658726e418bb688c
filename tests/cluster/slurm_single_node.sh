#!/usr/bin/env bash
# `scalinglab slurm --submit` against a real single-node Slurm: munged, slurmctld and slurmd are
# started here on this machine with a configuration in a scratch directory, the sweep is submitted
# as a job array plus a merge job (afterok), and the merged summary must equal a single-process
# run's byte for byte. Skips (exit 77) when Slurm or munge is not installed or the daemons do not
# come up (e.g. without root in a container); everything it started is stopped by PID.
#   tests/cluster/slurm_single_node.sh SCALINGLAB_CLI SOURCE_DIR
set -uo pipefail
cli=$1
src=$2
skip() { echo "SKIP: $*"; exit 77; }
for b in munged slurmctld slurmd sbatch squeue sinfo; do
  command -v "$b" >/dev/null || [ -x "/usr/sbin/$b" ] || skip "$b is not installed (Debian: slurmctld slurmd slurm-client munge)"
done
PATH=$PATH:/usr/sbin
[ "$(id -u)" = 0 ] || skip "the daemons need root here"

work=$(mktemp -d /tmp/scalinglab-slurm-XXXXXX)
pids=()
cleanup() {
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null; done
  sleep 1
  for p in "${pids[@]}"; do kill -9 "$p" 2>/dev/null; done
  rm -rf "$work"
}
trap cleanup EXIT

# munge with its own key and socket.
mkdir -p "$work/munge"
chmod 700 "$work/munge"
dd if=/dev/urandom of="$work/munge/munge.key" bs=1024 count=1 status=none
chmod 400 "$work/munge/munge.key"
munged --force --socket="$work/munge/socket" --key-file="$work/munge/munge.key" \
  --pid-file="$work/munge/munged.pid" --log-file="$work/munge/munged.log" --seed-file="$work/munge/seed" \
  || skip "munged did not start: $(tail -3 "$work/munge/munged.log" 2>/dev/null)"
sleep 0.5
pids+=("$(cat "$work/munge/munged.pid")")

host=$(hostname -s)
cpus=$(nproc)
mem=$(awk '/MemTotal/ {print int($2 / 1024 / 2)}' /proc/meminfo)
port=$((20000 + RANDOM % 20000))
mkdir -p "$work/state" "$work/spool"
cat > "$work/slurm.conf" <<CONF
ClusterName=scalinglabtest
SlurmctldHost=$host
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$work/munge/socket
MpiDefault=none
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SwitchType=switch/none
SchedulerType=sched/backfill
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
ReturnToService=2
StateSaveLocation=$work/state
SlurmdSpoolDir=$work/spool
SlurmctldPidFile=$work/slurmctld.pid
SlurmdPidFile=$work/slurmd.pid
SlurmctldPort=$port
SlurmdPort=$((port + 1))
SlurmctldLogFile=$work/slurmctld.log
SlurmdLogFile=$work/slurmd.log
JobCompType=jobcomp/none
AccountingStorageType=accounting_storage/none
JobAcctGatherType=jobacct_gather/none
NodeName=$host CPUs=$cpus RealMemory=$mem State=UNKNOWN
PartitionName=test Nodes=$host Default=YES MaxTime=INFINITE State=UP
CONF
export SLURM_CONF=$work/slurm.conf
slurmctld -D -i > "$work/slurmctld.out" 2>&1 &
pids+=($!)
slurmd -D > "$work/slurmd.out" 2>&1 &
pids+=($!)
up=0
for _ in $(seq 1 30); do
  if sinfo -h -o '%t' 2>/dev/null | grep -qE '^(idle|mix|alloc)'; then up=1; break; fi
  sleep 1
done
[ $up = 1 ] || skip "the Slurm daemons did not come up: $(tail -2 "$work/slurmctld.log" "$work/slurmd.log" 2>/dev/null | tr '\n' ' ')"
echo "slurm: $(sinfo --version), node $host with $cpus CPUs up"

sweep=$src/experiments/cabannes2023/fig1-left.toml
out=$work/results
cd "$work"
"$cli" slurm "$sweep" --profile quick --out "$out" --array 3 --cpus 1 --time 10:00 --submit || { echo "FAIL: submit"; exit 1; }
for _ in $(seq 1 300); do
  [ -z "$(squeue -h 2>/dev/null)" ] && break
  sleep 1
done
squeue -h | grep -q . && { echo "FAIL: jobs still queued after 300 s"; squeue; exit 1; }
[ -f "$out/summary.csv" ] || { echo "FAIL: no merged summary"; cat "$out"/slurm/*.log 2>/dev/null | tail -20; exit 1; }
"$cli" run "$sweep" --profile quick --quiet --no-cache --out "$work/single" > /dev/null || { echo "FAIL: single run"; exit 1; }
cmp "$out/summary.csv" "$work/single/summary.csv" || { echo "FAIL: the merged summary differs from a single run"; exit 1; }
[ -f "$out/slurm/shard-0.log" ] || { echo "FAIL: the array's log is not in DIR/slurm"; exit 1; }
echo "PASS: 3 array tasks and the merge (afterok) ran on Slurm; the summary equals a single run's"
tail -1 "$out/slurm/merge.log" 2>/dev/null
