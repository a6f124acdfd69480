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
        --split 100,0,0 --overlap-grad-reduce="$mode" >> "$work/log-$setting-$mode.txt"
    done
  done
  if [ -n "$mpi" ]; then
    for mode in true false; do
      $mpi -np 4 "$build/bin/mt-run" "$work/plan-plain" --data "$work/random.tokens" \
        --split 100,0,0 --overlap-grad-reduce="$mode" >> "$work/log-mpi-$mode.txt" 2>&1
    done
  fi
done
python3 - "$work" <<'PY'
import os, re, statistics, sys
for setting, reduction in (("plain", "all-reduce"), ("zero", "distributed optimizer"),
                           ("pipe", "pp 2 x dp 2 all-reduce"), ("mpi", "MPI dp 4 all-reduce")):
    for mode, name in (("true", "overlapped"), ("false", "after the backward")):
        path = f"{sys.argv[1]}/log-{setting}-{mode}.txt"
        if not os.path.exists(path):
            continue
        comm, rate = [], []
        # MPI's output carries the progress bar's carriage returns.
        for line in open(path, errors="replace").read().replace("\r", "\n").split("\n"):
            m = re.search(r"iteration +(\d+)/\d+ .*\| (\d+) tokens/s .*exposed comm ([0-9.]+) ms", line)
            if m and int(m.group(1)) >= 3:
                rate.append(int(m.group(2)))
                comm.append(float(m.group(3)))
        print(f"{reduction:24s} {name:20s} exposed comm {statistics.median(comm):7.2f} ms/step, "
              f"{statistics.median(rate):6.0f} tokens/s (median of {len(comm)} steps)")
PY
