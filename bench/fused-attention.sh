#!/usr/bin/env bash
# Fused attention (--fuse-attention) against the unfused ops on the CPU:
# training tokens/s of gpt-long-1k (2 layers, hidden 128, 4 heads of 32,
# vocab 1024) at seq 128, 512 and 1024 (1024 tokens a step: micro-batch
# 1024/seq), fused and unfused run round robin (this machine's speed
# drifts), median of the timed steps of each; then the activation bytes
# per micro-batch and the arena at seq 1024 from mtc --report-memory and
# mt-run --measure-arena.
# Usage: bench/fused-attention.sh [STEPS] [ROUNDS]
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
build="${MT_BUILD_DIR:-$root/build}"
steps="${1:-6}"
rounds="${2:-2}"
# MT_BENCH_SEQS: the sequence lengths (default 128 512 1024).
seqs="${MT_BENCH_SEQS:-128 512 1024}"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
export PATH="$build/bin:$PATH"

python3 "$root/examples/gen_gpt.py" "$work" gpt-long-1k > /dev/null
python3 -c "
import random
random.seed(0)
print(' '.join(str(random.randrange(1024)) for _ in range(100000)))" > "$work/random.tokens"
for seq in $seqs; do
  for fuse in false true; do
    mtc "$work/gpt-long-1k.mlir" --micro-batch-size=$((1024 / seq)) --seq-length=$seq \
      --global-batch-size=$((1024 / seq)) --train-iters="$steps" --fuse-attention=$fuse \
      -o "$work/plan-$seq-$fuse"
  done
done
for round in $(seq "$rounds"); do
  for seq in $seqs; do
    for fuse in false true; do
      mt-run "$work/plan-$seq-$fuse" --data "$work/random.tokens" --split 100,0,0 \
        --log-interval 1 --metrics-file "$work/metrics-$seq-$fuse-$round.jsonl" \
        >> "$work/log-$seq-$fuse"
    done
  done
done
PYTHONPATH="$root/bench" python3 - "$work" "$rounds" $seqs <<'PY'
import statistics, sys
import metrics  # bench/metrics.py: mt-run --metrics-file
work, rounds = sys.argv[1], int(sys.argv[2])
for seq in [int(x) for x in sys.argv[3:]]:
    med = {}
    for fuse in ("false", "true"):
        runs = [f"{work}/metrics-{seq}-{fuse}-{r}.jsonl" for r in range(1, rounds + 1)]
        # the first step of each run warms up
        rates = metrics.tokens_per_s(runs, skip_first=1)
        med[fuse] = statistics.median(rates)
    print(f"seq {seq:5d}: unfused {med['false']:7.0f} tokens/s, fused {med['true']:7.0f} "
          f"tokens/s ({med['true'] / med['false']:.2f}x)")
PY
for fuse in false true; do
  mtc "$work/gpt-long-1k.mlir" --micro-batch-size=1 --seq-length=1024 --global-batch-size=1 \
    --fuse-attention=$fuse --report-memory > "$work/report-$fuse"
  act=$(grep -o "activations the backward reads, per micro-batch: [0-9]*" "$work/report-$fuse" | grep -o "[0-9]*$")
  mt-run "$work/plan-1024-$fuse" --data "$work/random.tokens" --split 100,0,0 \
    --measure-arena --metrics-file "$work/arena-$fuse.jsonl" > /dev/null
  # The planned arena of rank 0 in bytes (memory.arena_mb is in 10^6 bytes).
  arena="$(PYTHONPATH="$root/bench" python3 -c 'import metrics, sys
print(round(metrics.values(sys.argv[1], "memory.arena_mb")[0] * 1e6))' "$work/arena-$fuse.jsonl") bytes"
  echo "seq 1024, fuse-attention=$fuse: activations per micro-batch $act bytes, arena $arena"
done
