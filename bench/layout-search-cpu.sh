#!/usr/bin/env bash
# The layout search against the machine at hand (issue #42): for 13 layouts
# of gpt-pipe-8l (8 layers) over 4 rank threads, mtc's prediction on this
# machine (--gpu=cpu: sgemm, copies and thread hand-offs measured at start;
# --explain) beside mt-run's measured tokens/s; then the rank correlation of
# the two orders and how far the predicted best is from the measured best.
# Usage: bench/layout-search-cpu.sh [STEPS]
source "$(dirname "$0")/gpt-pipe-8l-setup.sh"
steps="${1:-12}"
# One OpenBLAS thread per rank thread, for the prediction (its sgemm
# calibration) and the runs alike: the rank threads share the cores.
export OPENBLAS_NUM_THREADS=1
batch="--global-batch-size=16 --seq-length=128"
layouts=(
  "--tp=1 --pp=1 --dp=4 --micro-batch-size=4"
  "--tp=1 --pp=1 --dp=4 --micro-batch-size=1"
  "--tp=1 --pp=1 --dp=4 --micro-batch-size=2 --recompute-granularity=full"
  "--tp=1 --pp=2 --dp=2 --micro-batch-size=8"
  "--tp=1 --pp=2 --dp=2 --micro-batch-size=2"
  "--tp=1 --pp=4 --dp=1 --micro-batch-size=4"
  "--tp=1 --pp=4 --dp=1 --micro-batch-size=1"
  "--tp=1 --pp=4 --dp=1 --micro-batch-size=2 --virtual-stages=2 --schedule=interleaved"
  "--tp=2 --pp=1 --dp=2 --micro-batch-size=8"
  "--tp=2 --pp=2 --dp=1 --micro-batch-size=4"
  "--tp=2 --pp=2 --dp=1 --micro-batch-size=1"
  "--tp=4 --pp=1 --dp=1 --micro-batch-size=16"
  "--tp=4 --pp=1 --dp=1 --micro-batch-size=2"
)
: > "$work/results.txt"
for layout in "${layouts[@]}"; do
  predicted=$("$build/bin/mtc" "$work/gpt-pipe-8l.mlir" --explain --gpu=cpu --gpus=4 $layout $batch \
    | sed -n 's/.*step: \([0-9.]*\) ms; \([0-9]*\) tokens\/s.*/\2/p')
  "$build/bin/mtc" "$work/gpt-pipe-8l.mlir" $layout $batch --train-iters="$steps" --lr=1e-3 \
    -o "$work/plan" > /dev/null
  "$build/bin/mt-run" "$work/plan" --data "$work/random.tokens" --split 100,0,0 --log-interval 1 \
    --metrics-file "$work/m.jsonl" > "$work/run.log"
  measured=$(python3 "$root/bench/metrics.py" tokens-per-s "$work/m.jsonl" --skip 2 --stat median)
  echo "$predicted $measured $layout" | tee -a "$work/results.txt"
done
python3 - "$work/results.txt" <<'PY'
import sys
rows = [line.split(None, 2) for line in open(sys.argv[1]) if line.strip()]
pred = [float(r[0]) for r in rows]
meas = [float(r[1]) for r in rows]
def ranks(v):
    order = sorted(range(len(v)), key=lambda i: -v[i])
    r = [0] * len(v)
    for position, i in enumerate(order):
        r[i] = position + 1
    return r
rp, rm = ranks(pred), ranks(meas)
n = len(rows)
rho = 1 - 6 * sum((a - b) ** 2 for a, b in zip(rp, rm)) / (n * (n * n - 1))
best_pred = max(range(n), key=lambda i: pred[i])
best_meas = max(meas)
print(f"{n} layouts: Spearman rank correlation {rho:.3f}; the predicted best "
      f"({rows[best_pred][2].strip()}) measures {meas[best_pred]:.0f} tokens/s, "
      f"{100 * meas[best_pred] / best_meas:.1f}% of the measured best {best_meas:.0f}")
PY
