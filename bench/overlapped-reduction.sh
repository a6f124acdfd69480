#!/usr/bin/env bash
# Exposed communication with and without the overlapped data-parallel
# gradient reduction (issue #24 item 3): gpt-pipe-8l (8 layers, hidden 128)
# at dp 4 on rank threads, 2 micro-batches of 2 x 64 tokens per rank and
# step, OpenBLAS at one thread; the plain all-reduce and the distributed
# optimizer's reduce-scatter; and at pp 2 x dp 2 (1F1B, 4 micro-batches per
# rank) the all-reduce beside each stage's last backward; and dp 4 as MPI
# processes (mpirun -np 4, when Open MPI is installed). mt-run prints per
# step the time communication held the rank after its backward ("exposed
# comm"); the median over steps 3 on, and the median tokens/s, for each
# setting, all run round robin ROUNDS times.
# Usage: bench/overlapped-reduction.sh [STEPS] [ROUNDS]
set -euo pipefail
steps="${1:-12}"
rounds="${2:-3}"
source "$(dirname "$0")/gpt-pipe-8l-setup.sh"
for setting in plain zero pipe; do
  layout="--dp=4"
  [ "$setting" = zero ] && layout="--dp=4 --distributed-optimizer"
  [ "$setting" = pipe ] && layout="--dp=2 --pp=2"
  "$build/bin/mtc" "$work/gpt-pipe-8l.mlir" --micro-batch-size=2 --seq-length=64 \
    --global-batch-size=16 $layout --train-iters="$steps" -o "$work/plan-$setting"
done
for r in $(seq "$rounds"); do
  for setting in plain zero pipe; do
    for mode in true false; do
      OPENBLAS_NUM_THREADS=1 "$build/bin/mt-run" "$work/plan-$setting" --data "$work/random.tokens" \
        --split 100,0,0 --overlap-grad-reduce="$mode" \
        --metrics-file "$work/metrics-$setting-$mode-$r.jsonl" >> "$work/log-$setting-$mode.txt"
    done
  done
  if [ -n "$mpi" ]; then
    for mode in true false; do
      $mpi -np 4 "$build/bin/mt-run" "$work/plan-plain" --data "$work/random.tokens" \
        --split 100,0,0 --overlap-grad-reduce="$mode" \
        --metrics-file "$work/metrics-mpi-$mode-$r.jsonl" >> "$work/log-mpi-$mode.txt" 2>&1
    done
  fi
done
PYTHONPATH="$root/bench" python3 - "$work" "$rounds" <<'PY'
import os, statistics, sys
import metrics  # bench/metrics.py: mt-run --metrics-file
work, rounds = sys.argv[1], int(sys.argv[2])
for setting, reduction in (("plain", "all-reduce"), ("zero", "distributed optimizer"),
                           ("pipe", "pp 2 x dp 2 all-reduce"), ("mpi", "MPI dp 4 all-reduce")):
    for mode, name in (("true", "overlapped"), ("false", "after the backward")):
        runs = [f"{work}/metrics-{setting}-{mode}-{r}.jsonl" for r in range(1, rounds + 1)]
        if not runs or not os.path.exists(runs[0]):
            continue
        rate, comm = metrics.columns(runs, ("tokens_per_s", "exposed_comm_ms"), from_step=3)
        print(f"{reduction:24s} {name:20s} exposed comm {statistics.median(comm):7.2f} ms/step, "
              f"{statistics.median(rate):6.0f} tokens/s (median of {len(comm)} steps)")
PY
