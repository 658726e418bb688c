#!/usr/bin/env bash
# The factor world's training step at the paper's size (N = M = 4096, d = 64, h = 128, L = 1)
# against the same step in PyTorch, same thread count, same run: one full-batch compression epoch
# and one single-pass step on a batch of 8192. Prints the time per step of each, the ratio, the speed-up of
# the threads over one thread, the step's CPU time over its products alone at their shapes, and our
# FLOP rate as a fraction of the machine's sgemm rate (the paper's FLOP count), then where the CPU
# time of a step goes (products, loss head, target rows, elementwise, reduction, Adam) next to each
# phase's own bound measured in the same run (the products alone at their shapes, the exps alone). Needs a build and
# python3-torch (scripts/install-deps.sh --bench).
#   bench/run_factor.sh [reps=5] [threads=2] [build dir=build]
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
reps=${1:-5}
threads=${2:-2}
build=${3:-$here/../build}
ours=$("$build/bench/bench_factor_train" "$reps" "$threads")
ref=$(OMP_NUM_THREADS=$threads /usr/bin/python3 "$here/reference/factor_train_torch.py" "$reps" "$threads")
/usr/bin/python3 - "$ours" "$ref" <<'PY'
import json, sys
ours, ref = json.loads(sys.argv[1]), json.loads(sys.argv[2])
print(f"factor world, gated MLP N=M=4096 d=64 h=128 L=1, float32, threads={ours['threads']}, reps={ours['reps']} (medians); "
      f"torch {ref['torch']}; sgemm {ours['sgemm_rate']/1e9:.1f} GFLOP/s; kernels built for {ours['instruction_set']}")
for name, o in ours["cases"].items():
    r = ref["cases"][name]
    ratio = r["seconds_per_step"] / o["seconds_per_step"]
    frac = o["sgemm_fraction"]
    print(f"({name}) batch {o['batch']}: scalinglab {o['seconds_per_step']*1e3:.1f} ms/step "
          f"({o['flop_rate']/1e9:.1f} GFLOP/s, {100*frac:.0f}% of sgemm) | torch {r['seconds_per_step']*1e3:.1f} ms/step | "
          f"ratio x{ratio:.2f}  [targets >= 2x: {'met' if ratio >= 2 else 'NOT met'}; >= 50% of sgemm: {'met' if frac >= 0.5 else 'NOT met'}]")
    one, t = o["seconds_per_step_one_thread"], ours["threads"]
    speedup = one / o["seconds_per_step"]
    print(f"    1 thread {one*1e3:.1f} ms/step, {t} threads {o['seconds_per_step']*1e3:.1f}: speed-up x{speedup:.2f}, "
          f"parallel efficiency {speedup / t:.2f}" + (f"  [target >= 1.8x at 2 threads: {'met' if speedup >= 1.8 else 'NOT met'}]" if t == 2 else ""))
    ratio_alone = o["step_over_products_alone"]
    print(f"    step CPU time / the products alone at their shapes: {ratio_alone:.3f}  "
          f"[target <= 1.15: {'met' if ratio_alone <= 1.15 else 'NOT met'}]")
    # Where the CPU time goes, against each phase's own bound (CPU-milliseconds per step).
    cpu, bound = o["cpu_seconds"], o["bound_seconds"]
    total = sum(cpu.values())
    ms = lambda x: f"{x*1e3:.1f}"
    print(f"    CPU per step {ms(total)} ms: products {ms(cpu['products'])} ({100*cpu['products']/total:.0f}%; "
          f"bound at the sgemm rate {ms(bound['products'])}, the same products alone at their shapes {ms(bound['products_alone'])}), "
          f"loss head {ms(cpu['head'])} (its {o['batch']}x{o['M']} exps alone {ms(bound['head_exp'])} at {o['exp_rate']/1e9:.2f} Gexp/s; "
          f"Eigen's exp {o['exp_rate_eigen']/1e9:.2f}), "
          f"target rows {ms(cpu['targets'])}, elementwise {ms(cpu['elementwise'])} (gate exps alone {ms(bound['gate_exp'])}), "
          f"shard reduction {ms(cpu['reduction'])}, Adam {ms(cpu['adam'])} ({o['parameters']} parameters)")
PY
