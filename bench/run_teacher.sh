#!/usr/bin/env bash
# One training step of the two-layer ReLU network (teacher.train) against the same step in PyTorch,
# one thread each, same run; prints the time per step of each and the ratio. Needs a build and
# python3-torch (scripts/install-deps.sh --bench).
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
target = {"a": ("at least 5x faster", 5.0), "b": ("not slower", 1.0)}
print(f"two-layer ReLU network, one Adam step, float32, threads=1, reps={ours['reps']} (medians); torch {ref['torch']}")
for name, o in ours["cases"].items():
    r = ref["cases"][name]
    ratio = r["seconds_per_step"] / o["seconds_per_step"]
    words, need = target[name]
    print(f"({name}) n={o['n']} d={o['d']} batch={o['batch']}: scalinglab {o['seconds_per_step']*1e6:.1f} us/step | "
          f"torch {r['seconds_per_step']*1e6:.1f} us/step | ratio x{ratio:.2f}  [target {words}: {'met' if ratio >= need else 'NOT met'}]")
PY
