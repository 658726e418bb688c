#!/usr/bin/env bash
# Runs the memory.train benchmark and its PyTorch reference in the same run (one thread each)
# and prints, per case, the median time per step of each, their ratio and the final errors (5) of
# every repetition. Needs a build (scripts/build.sh) and python3-torch (scripts/install-deps.sh --bench).
#   bench/run_memory_train.sh [reps=5] [build dir=build]
# Environment: CASES (default a,b,c,d,e,f), TORCH_DTYPE (default float32; scalinglab computes in double).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
reps=${1:-5}
build=${2:-$here/../build}
cases=${CASES:-a,b,c,d,e,f}
dtype=${TORCH_DTYPE:-float32}
py=/usr/bin/python3
threads=1
# Case by case, ours then the reference, so that both see about the same load on a busy machine.
ours=() ref=()
for c in ${cases//,/ }; do
  ours_cases=$c
  [[ $c == a || $c == b ]] && ours_cases="$c,${c}_dense"
  [[ $c == f ]] && ours_cases="f,f_definition"
  ours+=("$("$build/bench/bench_memory_train" "$reps" "$threads" "$ours_cases")")
  ref+=("$("$py" "$here/reference/memory_train_torch.py" "$reps" "$threads" "$c" "$dtype")")
done
"$py" - "${#ours[@]}" "${ours[@]}" "${ref[@]}" <<'PY'
import json, statistics, sys
n = int(sys.argv[1])
parts = [json.loads(a) for a in sys.argv[2:]]
ours, ref = parts[0], parts[n]
for o in parts[1:n]:
    ours["cases"].update(o["cases"])
for r in parts[n + 1:]:
    ref["cases"].update(r["cases"])
desc = {"a": "matrix, SGD lr=1, batch 1, T=1e4",
        "b": "matrix, SGD lr=1, batch 1024, T=204800",
        "c": "matrix, Adam(0,0) lr=1 (W: lr/d), batch 1, T=1e4",
        "d": "learnable+layernorm, SGD lr=1, batch 16, T=32000",
        "e": "matrix+layernorm, SGD lr=1, batch 16, T=8000, d=1000",
        "f": "learnable, Adam(0,0) lr=1, batch 16, T=8000, d=1000"}
target = {"a": 30.0, "b": 3.0, "f": 10.0}
print(f"memory.train, N=100 M=5 alpha=2 d=100 (unless stated), threads={ours['threads']}, reps={ours['reps']} (medians); "
      f"torch {ref['torch']} {ref['dtype']}, scalinglab double, kernels built for {ours['instruction_set']}")
fmt = lambda es: " ".join(f"{e:.4f}" for e in es)
for name, r in ref["cases"].items():
    for ours_name in (name, name + "_dense", name + "_definition"):
        o = ours["cases"].get(ours_name)
        if o is None:
            continue
        ratio = r["seconds_per_step"] / o["seconds_per_step"]
        loop_ratio = r["seconds_per_step"] / o["loop_seconds_per_step"] if o["loop_seconds_per_step"] > 0 else float("inf")
        if ours_name == name:
            label = f"({name}) {desc[name]}"
        elif ours_name.endswith("_dense"):
            label = f"({name}) same, scalinglab dense path (span_update=false)"
        else:
            label = f"({name}) same, the Adam step by its definition (full d x d gradient; fused_adaptive=false)"
        print(label + f", {o['steps']} steps, scalinglab {o['path']} update:")
        verdict = ""
        if ours_name == name and name in target:
            verdict = f"  [target >= {target[name]:g}x: {'met' if ratio >= target[name] else 'NOT met'}]"
        print(f"    scalinglab {o['seconds_per_step']*1e6:9.2f} us/step (loop only {o['loop_seconds_per_step']*1e6:.2f}, "
              f"fixed cost {o['setup_seconds']*1e3:.2f} ms) | torch {r['seconds_per_step']*1e6:9.2f} us/step "
              f"| ratio x{ratio:.1f} (loop only x{loop_ratio:.1f}){verdict}")
        conc = o["concurrent"]
        print(f"    {conc['copies']} copies at once (one per thread, as a sweep runs): {conc['seconds_per_step']*1e6:.2f} us/step each, "
              f"parallel efficiency {conc['efficiency']:.2f}")
        if ours_name.endswith("_definition"):
            same = o["errors"] == ours["cases"][name]["errors"]
            print(f"    error (5): [{fmt(o['errors'])}]: {'equal to' if same else 'DIFFERENT from'} the two-pass step's, run by run")
        if ours_name == name:
            print(f"    error (5): scalinglab mean {statistics.mean(o['errors']):.4f} [{fmt(o['errors'])}]")
            print(f"               torch      mean {statistics.mean(r['errors']):.4f} [{fmt(r['errors'])}]")
PY
