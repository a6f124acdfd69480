#!/usr/bin/env bash
# CPU training throughput, mtc beside PyTorch written the way its users write
# it (bench/torch_idiomatic_gpt.py), in one run (issue #24): gpt2-tiny and a
# wider GPT (gpt-wide-256: 4 layers, hidden 256, 8 heads, vocabulary 8192,
# seq 256, micro-batch 4), dropout 0.1 on both sides, the same thread count,
# the two run round robin ROUNDS times (this machine's speed drifts); the
# median step of each (first step of each run left out). Also the machine's
# sgemm rate at that thread count (OpenBLAS, 1024^3), and the wide model's
# model FLOP/s against it (6N + 6 L s h a token, as bench/gpu/mfu.py).
# Also prints each model's median step time.
# Usage: [MT_BENCH_MODELS="gpt2-tiny gpt-wide-256 gpt2-124m"] bench/cpu-vs-torch.sh [ROUNDS] [STEPS] [THREADS]
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
build="${MT_BUILD_DIR:-$root/build}"
rounds="${1:-3}"
steps="${2:-8}"
threads="${3:-2}"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

gcc -O2 -o "$work/sgemm_rate" "$root/bench/sgemm_rate.c" -lopenblas
python3 "$root/examples/gen_gpt.py" "$work" gpt-wide-256
python3 -c "
import random
random.seed(0)
print(' '.join(str(random.randrange(8192)) for _ in range(300000)))" > "$work/random.tokens"
# name model-file layers hidden heads vocab seq micro
all_models=(
  "gpt2-tiny $root/examples/gpt2-tiny.mlir 2 64 4 50257 128 8"
  "gpt-wide-256 $work/gpt-wide-256.mlir 4 256 8 8192 256 4"
  "gpt2-124m $root/examples/gpt2.mlir 12 768 12 50257 1024 1"
)
# MT_BENCH_MODELS picks (default: the two small ones; gpt2-124m, GPT-2 small
# at seq 1024, takes seconds a step).
models=()
for m in "${all_models[@]}"; do
  for pick in ${MT_BENCH_MODELS:-gpt2-tiny gpt-wide-256}; do
    [[ "${m%% *}" == "$pick" ]] && models+=("$m")
  done
done
for m in "${models[@]}"; do
  read -r name file layers hidden heads vocab seq micro <<< "$m"
  "$build/bin/mtc" "$file" --micro-batch-size="$micro" --seq-length="$seq" \
    --global-batch-size="$micro" --train-iters="$steps" --lr=1e-3 -o "$work/$name.plan"
done

for r in $(seq "$rounds"); do
  for m in "${models[@]}"; do
    read -r name file layers hidden heads vocab seq micro <<< "$m"
    OPENBLAS_NUM_THREADS=$threads "$build/bin/mt-run" "$work/$name.plan" \
      --data "$work/random.tokens" --split 100,0,0 --log-interval 1 \
      --metrics-file "$work/mt-$name-$r.jsonl" > "$work/mt-$name-$r.log"
    /usr/bin/python3 "$root/bench/torch_idiomatic_gpt.py" "$layers" "$hidden" "$heads" "$vocab" \
      "$seq" "$micro" "$steps" "$threads" > "$work/torch-$name-$r.log"
  done
  OPENBLAS_NUM_THREADS=$threads "$work/sgemm_rate" 1024 15 >> "$work/sgemm.txt"
done

PYTHONPATH="$root/bench" python3 - "$work" "$rounds" "$threads" "${models[@]}" <<'PY'
import re, statistics, sys
import metrics  # bench/metrics.py: mt-run --metrics-file
work, rounds, threads = sys.argv[1], int(sys.argv[2]), sys.argv[3]
sgemm = statistics.median(float(x) for x in open(f"{work}/sgemm.txt").read().split())
print(f"sgemm (OpenBLAS, {threads} threads, 1024^3): {sgemm:.1f} GFLOP/s (median of {rounds} runs)")
for spec in sys.argv[4:]:
    name, _, layers, hidden, heads, vocab, seq, micro = spec.split()
    layers, hidden, vocab, seq, micro = map(int, (layers, hidden, vocab, seq, micro))
    mt, pt = [], []
    for r in range(1, rounds + 1):
        # mt-run's per-step seconds from its tokens/s, the first step left out
        rates = metrics.tokens_per_s(f"{work}/mt-{name}-{r}.jsonl")
        mt += [micro * seq / x for x in rates[1:]]
        # PyTorch's per-step seconds from its own output (torch_idiomatic_gpt.py)
        pt += [float(x) for x in re.findall(r"step \d+: ([0-9.]+) s", open(f"{work}/torch-{name}-{r}.log").read())][1:]
    mt_rate, pt_rate = micro * seq / statistics.median(mt), micro * seq / statistics.median(pt)
    params = (vocab + seq) * hidden + layers * (12 * hidden * hidden + 13 * hidden) + 2 * hidden
    flops = 6 * params + 6 * layers * seq * hidden
    print(f"{name}: step {statistics.median(mt):.3f} s (PyTorch {statistics.median(pt):.3f} s); "
          f"mtc {mt_rate:.0f} tokens/s, PyTorch {pt_rate:.0f} tokens/s, "
          f"mtc/PyTorch {mt_rate / pt_rate:.2f}x; model GFLOP/s mtc {mt_rate * flops / 1e9:.1f} "
          f"({100 * mt_rate * flops / 1e9 / sgemm:.0f}% of sgemm), PyTorch {pt_rate * flops / 1e9:.1f} "
          f"({100 * pt_rate * flops / 1e9 / sgemm:.0f}%)")
PY
