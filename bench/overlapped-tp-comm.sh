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
      --split 100,0,0 --overlap-tp-comm="$mode" \
      --metrics-file "$work/metrics-threads-$mode-$r.jsonl" >> "$work/log-threads-$mode.txt"
    if [ -n "$mpi" ]; then
      $mpi -np 2 "$build/bin/mt-run" "$work/plan-$mode" --data "$work/random.tokens" \
        --split 100,0,0 --overlap-tp-comm="$mode" \
        --metrics-file "$work/metrics-mpi-$mode-$r.jsonl" >> "$work/log-mpi-$mode.txt" 2>&1
    fi
  done
done
PYTHONPATH="$root/bench" python3 - "$work" "$rounds" <<'PY'
import os, statistics, sys
import metrics  # bench/metrics.py: mt-run --metrics-file
work, rounds = sys.argv[1], int(sys.argv[2])
for ranks in ("threads", "mpi"):
    for mode, name in (("true", "collectives beside the GEMMs"), ("false", "collectives in place")):
        runs = [f"{work}/metrics-{ranks}-{mode}-{r}.jsonl" for r in range(1, rounds + 1)]
        if not runs or not os.path.exists(runs[0]):
            continue
        rate, comm = metrics.columns(runs, ("tokens_per_s", "in_step_comm_ms"), from_step=3)
        # The log printed in-step comm only when above 0: those steps, as before.
        rate, comm = [x for x, c in zip(rate, comm) if c > 0], [c for c in comm if c > 0]
        print(f"{ranks:8s} {name:30s} {statistics.median(rate):6.0f} tokens/s, in-step comm "
              f"{statistics.median(comm):6.1f} ms (median of {len(rate)} steps)")
PY
