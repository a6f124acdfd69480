#!/usr/bin/env bash
# Sequence-parallel collectives beside the GEMMs (issue #24 item 3):
# gpt-pipe-8l (8 layers, hidden 128, 4 heads, vocabulary 1024) at tp 2 with
# sequence parallelism on rank threads, 4 micro-batches of 4 x 128 tokens per
# step, OpenBLAS at one thread, with and without mtc --overlap-tp-comm, on
# rank threads (mt-run --overlap-tp-comm=true) and as MPI processes (mpirun
# -np 2, when Open MPI is installed); the median tokens/s and time the step
# stood still in collectives ("in-step comm") over steps 3 on of ROUNDS runs
# each, round robin.
# Usage: bench/overlapped-tp-comm.sh [STEPS] [ROUNDS]
set -euo pipefail
steps="${1:-12}"
rounds="${2:-3}"
source "$(dirname "$0")/gpt-pipe-8l-setup.sh"
for mode in true false; do
  "$build/bin/mtc" "$work/gpt-pipe-8l.mlir" --micro-batch-size=4 --seq-length=128 \
    --global-batch-size=16 --tp=2 --overlap-tp-comm="$mode" --train-iters="$steps" \
    -o "$work/plan-$mode"
done
for r in $(seq "$rounds"); do
  for mode in true false; do
    OPENBLAS_NUM_THREADS=1 "$build/bin/mt-run" "$work/plan-$mode" --data "$work/random.tokens" \
      --split 100,0,0 --overlap-tp-comm="$mode" >> "$work/log-threads-$mode.txt"
    if [ -n "$mpi" ]; then
      $mpi -np 2 "$build/bin/mt-run" "$work/plan-$mode" --data "$work/random.tokens" \
        --split 100,0,0 --overlap-tp-comm="$mode" >> "$work/log-mpi-$mode.txt" 2>&1
    fi
  done
done
python3 - "$work" <<'PY'
import os, re, statistics, sys
for ranks in ("threads", "mpi"):
    for mode, name in (("true", "collectives beside the GEMMs"), ("false", "collectives in place")):
        path = f"{sys.argv[1]}/log-{ranks}-{mode}.txt"
        if not os.path.exists(path):
            continue
        rate, comm = [], []
        # MPI's output carries the progress bar's carriage returns.
        for line in open(path, errors="replace").read().replace("\r", "\n").split("\n"):
            m = re.search(r"iteration +(\d+)/\d+ .*\| (\d+) tokens/s .*in-step comm ([0-9.]+) ms", line)
            if m and int(m.group(1)) >= 3:
                rate.append(int(m.group(2)))
                comm.append(float(m.group(3)))
        print(f"{ranks:8s} {name:30s} {statistics.median(rate):6.0f} tokens/s, in-step comm "
              f"{statistics.median(comm):6.1f} ms (median of {len(rate)} steps)")
PY
