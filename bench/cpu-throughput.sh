#!/usr/bin/env bash
# CPU training throughput of gpt2-tiny (examples/gpt2-tiny.mlir) in mtc/mt-run
# and in PyTorch (Debian's python3-torch; bench/torch_idiomatic_gpt.py with
# dropout off), same model, batch and thread count.
# Usage: bench/cpu-throughput.sh [STEPS] [THREADS]
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
build="${MT_BUILD_DIR:-$root/build}"
steps="${1:-20}"
threads="${2:-$(nproc)}"
micro=8
seq=128
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

# gpt2-tiny: 2 layers, hidden 64, 4 heads, GPT-2 vocabulary, 128 positions.
python3 -c "
import random
random.seed(0)
print(' '.join(str(random.randrange(50257)) for _ in range(200000)))" > "$work/random.tokens"
"$build/bin/mtc" "$root/examples/gpt2-tiny.mlir" --micro-batch-size=$micro --seq-length=$seq \
  --train-iters="$steps" --lr=1e-3 -o "$work/plan"
OPENBLAS_NUM_THREADS=$threads "$build/bin/mt-run" "$work/plan" --data "$work/random.tokens" \
  --split 100,0,0 --log-interval 1 --metrics-file "$work/mt.jsonl" > "$work/mt.log"
PYTHONPATH="$root/bench" python3 - "$work/mt.jsonl" "$threads" <<'PY'
import sys
import metrics  # bench/metrics.py: mt-run --metrics-file
rates = metrics.tokens_per_s(sys.argv[1])
timed = rates[1:] if len(rates) > 1 else rates
print(f"mtc: {sum(timed) / len(timed):.1f} tokens/s ({sys.argv[2]} threads, {len(timed)} timed steps)")
PY
/usr/bin/python3 "$root/bench/torch_idiomatic_gpt.py" 2 64 4 50257 $seq $micro "$steps" "$threads" 0 \
  > "$work/torch.log"
/usr/bin/python3 - "$work/torch.log" $micro $seq "$threads" <<'PY'
import importlib.metadata, re, sys
log, micro, seq, threads = open(sys.argv[1]).read(), int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
times = [float(x) for x in re.findall(r"step \d+: ([0-9.]+) s", log)]
timed = times[1:] if len(times) > 1 else times
loss = float(re.findall(r"loss ([0-9.]+)", log)[-1])
print(f"torch {importlib.metadata.version('torch')}: {micro * seq * len(timed) / sum(timed):.1f} tokens/s "
      f"({threads} threads, {len(timed)} timed steps, loss {loss:.3f})")
PY
