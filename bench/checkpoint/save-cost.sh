#!/usr/bin/env bash
# What a checkpoint save costs GPT-2 124M (examples/gpt2.mlir) on this machine:
# the bytes a save writes, the time a foreground save holds training, the time
# a background save (--async-save) holds it, and the time the disk takes to
# write and fsync as many bytes with dd (the floor a foreground save can reach).
# Usage: bench/checkpoint/save-cost.sh [STEPS]   (saves every 2 steps)
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
build="${MT_BUILD_DIR:-$root/build}"
steps="${1:-8}"
work="$(mktemp -d "${TMPDIR:-/tmp}/mt-save-cost.XXXXXX")"
trap 'rm -rf "$work"' EXIT

python3 -c "
import random
random.seed(0)
print(' '.join(str(random.randrange(50257)) for _ in range(100000)))" > "$work/random.tokens"
"$build/bin/mtc" "$root/examples/gpt2.mlir" --micro-batch-size=1 --seq-length=128 \
  --global-batch-size=1 --train-iters="$steps" -o "$work/plan"
# run NAME ARGS...: the log in NAME.log, the metrics (mt-run --metrics-file) in NAME.jsonl.
run() {
  local name=$1
  shift
  "$build/bin/mt-run" "$work/plan" --data "$work/random.tokens" --split 100,0,0 \
    --metrics-file "$work/$name.jsonl" "$@" > "$work/$name.log"
}

run plain
run sync --save "$work/sync" --save-interval 2 --save-keep 1
run async --save "$work/async" --save-interval 2 --save-keep 1 --async-save
bytes=$(stat -c %s "$work/sync"/iter_*/rank_00000.bin)
dd_start=$(date +%s.%N)
dd if=/dev/zero of="$work/dd.bin" bs=16M count=$(( (bytes + 16777215) / 16777216 )) conv=fsync status=none
dd_end=$(date +%s.%N)
PYTHONPATH="$root/bench" python3 - "$work" "$bytes" "$dd_start" "$dd_end" <<'PY'
import re, sys
import metrics  # bench/metrics.py: mt-run --metrics-file
work, nbytes, t0, t1 = sys.argv[1], int(sys.argv[2]), float(sys.argv[3]), float(sys.argv[4])
def elapsed(name):  # the seconds of the log's "done: N steps in X s"
    return metrics.elapsed_s(f"{work}/{name}.jsonl")
plain, sync, asyn = elapsed("plain"), elapsed("sync"), elapsed("async")
# The saves' times are not in the metrics file: from the log.
saves = [float(x) for x in re.findall(r"saved checkpoint .* in ([0-9.]+) s", open(f"{work}/sync.log").read())]
holds = [float(x) for x in re.findall(r"training held ([0-9.]+) s", open(f"{work}/async.log").read())]
print(f"bytes per save: {nbytes / 1e6:.1f} MB (parameters + 2 AdamW moments, fp32)")
print(f"dd of as many bytes with fsync: {t1 - t0:.2f} s ({nbytes / 1e9 / (t1 - t0):.2f} GB/s)")
print(f"foreground saves: {len(saves)}, {sum(saves) / len(saves):.2f} s each (run {sync:.1f} s vs {plain:.1f} s without saves)")
print(f"background saves: {len(holds)}, training held {sum(holds) / len(holds):.2f} s each (run {asyn:.1f} s)")
PY
