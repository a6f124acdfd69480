#!/usr/bin/env bash
# Pipeline stages do the same work as one rank: the CPU time of every thread
# of mt-run per step (all pipeline ranks together; `mt-run --record` writes it
# to cpu_seconds.txt) for gpt-pipe-8l (8 layers, hidden 128, 4 heads) at pp 1,
# 2 and 4 with 1F1B, and pp 2 interleaved (2 virtual stages). OpenBLAS runs at
# one thread and the process on one core, so threads never contend for a
# core and CPU time is work, not waiting. Each layout runs REPEATS times; the
# median of the per-run means (steps 3 on) is reported.
# Usage: bench/pipeline-work.sh [STEPS] [REPEATS]
set -euo pipefail
steps="${1:-10}"
repeats="${2:-3}"
source "$(dirname "$0")/gpt-pipe-8l-setup.sh"
common=(--micro-batch-size=2 --seq-length=64 --global-batch-size=16 --train-iters="$steps")
"$build/bin/mtc" "$work/gpt-pipe-8l.mlir" "${common[@]}" -o "$work/pp1"
"$build/bin/mtc" "$work/gpt-pipe-8l.mlir" "${common[@]}" --pp=2 -o "$work/pp2"
"$build/bin/mtc" "$work/gpt-pipe-8l.mlir" "${common[@]}" --pp=4 -o "$work/pp4"
"$build/bin/mtc" "$work/gpt-pipe-8l.mlir" "${common[@]}" --pp=2 --schedule=interleaved \
  --virtual-stages=2 -o "$work/pp2-v2"
# Round robin, so a machine that speeds up or slows down over the minutes
# this takes (shared cores do) weighs on every layout alike.
for r in $(seq "$repeats"); do
  for layout in pp1 pp2 pp4 pp2-v2; do
    OPENBLAS_NUM_THREADS=1 taskset -c 0 "$build/bin/mt-run" "$work/$layout" \
      --data "$work/random.tokens" --split 100,0,0 --record "$work/rec-$layout-$r" > /dev/null
  done
done
"$build/bin/mtc" "$work/gpt-pipe-8l.mlir" "${common[@]}" --pp=2 --report-memory |
  grep -E "recomputed in the backward|keeps what its backward reads"
python3 - "$work" "$repeats" <<'PY'
import statistics, sys
work, repeats = sys.argv[1], int(sys.argv[2])
def per_step(layout):
    means = []
    for r in range(1, repeats + 1):
        rows = [line.split() for line in open(f"{work}/rec-{layout}-{r}/cpu_seconds.txt")]
        timed = [float(s) for _, s in rows[2:]]
        means.append(sum(timed) / len(timed))
    return statistics.median(means), means
base, _ = per_step("pp1")
for layout in ["pp1", "pp2", "pp4", "pp2-v2"]:
    median, means = per_step(layout)
    runs = ", ".join(f"{m:.4f}" for m in means)
    print(f"{layout}: {median:.4f} CPU s/step ({median / base:.3f}x pp1; runs {runs})")
PY
