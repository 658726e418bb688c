#!/usr/bin/env bash
# One training step of the two-layer ReLU network (teacher.train) against the same step in PyTorch,
# one thread each, same run; prints the time per step of each, the ratio, and the step's FLOP rate
# against one core's sgemm rate (OpenBLAS, square 1024 float matrices, measured next to the steps).
# Needs a build and python3-torch (scripts/install-deps.sh --bench).
#   bench/run_teacher.sh [reps=5] [build dir=build]
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
reps=${1:-5}
build=${2:-$here/../build}
export OPENBLAS_NUM_THREADS=1
ours=$("$build/bench/bench_teacher_train" "$reps")
ref=$(/usr/bin/python3 "$here/reference/teacher_train_torch.py" "$reps" 1)
/usr/bin/python3 - "$ours" "$ref" <<'PY'
import json, sys
ours, ref = json.loads(sys.argv[1]), json.loads(sys.argv[2])
# Targets: (minimum ratio to PyTorch, minimum fraction of one core's sgemm rate).
target = {"a": (5.0, None), "b": (5.0, 0.5)}
sgemm = ours["sgemm_rate"]
print(f"two-layer ReLU network, one Adam step, float32, threads=1, reps={ours['reps']} (medians); torch {ref['torch']}; "
      f"kernels built for {ours['instruction_set']} ({ours['kernel_lanes']} float lanes)")
print(f"one core's sgemm (OpenBLAS, 1024^3, float32): {sgemm/1e9:.1f} GFLOP/s")
print("FLOPs per step: 4 B n d (the two products) + 4 B n (f += ReLU(h) a, grad_a += ReLU(h) delta)")
for name, o in ours["cases"].items():
    r = ref["cases"][name]
    ratio = r["seconds_per_step"] / o["seconds_per_step"]
    need_ratio, need_frac = target[name]
    ok = ratio >= need_ratio and (need_frac is None or o["sgemm_fraction"] >= need_frac)
    words = f">= {need_ratio:g}x torch" + (f", >= {need_frac:.0%} of sgemm" if need_frac is not None else "")
    print(f"({name}) n={o['n']} d={o['d']} batch={o['batch']}: scalinglab {o['seconds_per_step']*1e6:.1f} us/step, "
          f"{o['flop_rate']/1e9:.1f} GFLOP/s = {o['sgemm_fraction']:.1%} of sgemm | torch {r['seconds_per_step']*1e6:.1f} us/step | "
          f"ratio x{ratio:.2f}  [target {words}: {'met' if ok else 'NOT met'}]")
    conc = o["concurrent"]
    print(f"    {conc['copies']} copies at once (one per thread, as a sweep runs): {conc['seconds_per_step']*1e6:.1f} us/step each, "
          f"parallel efficiency {conc['efficiency']:.2f}")
PY
