#!/usr/bin/env bash
# Decode speed as the context grows (issue #22): GPT-2 124M, greedy, batch 1,
# 2 threads, random weights; mt-generate on mtc's inference plan (KV caches of
# 1024 positions, prefill chunks of 64) beside PyTorch with its own cache
# (bench/torch_gpt2_generate.py), at prompt lengths 64 and 512.
# Usage: bench/generate.sh [NEW_TOKENS]   (run after a build; ~5 minutes)
set -euo pipefail
cd "$(dirname "$0")/.."
new=${1:-32}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
export OMP_NUM_THREADS=2 OPENBLAS_NUM_THREADS=2
build/bin/mtc examples/gpt2.mlir --inference --seq-length=64 -o "$out/gen.plan" --report-memory
for context in 64 512; do
  ids=$(python3 -c "import random; random.seed($context); print(','.join(str(random.randrange(50257)) for _ in range($context)))")
  echo "== context $context, $new new tokens"
  build/bin/mt-generate "$out/gen.plan" --prompt-ids "$ids" --max-new-tokens "$new" \
      --ignore-eos --ids > /dev/null
  /usr/bin/python3 bench/torch_gpt2_generate.py 12 768 12 50257 1024 "$context" "$new" 2
done
