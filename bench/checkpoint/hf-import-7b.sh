#!/usr/bin/env bash
# Peak memory of `mt-ckpt import` of a 7B-shaped Llama (issue #40): synthetic
# bf16 files of Llama-2 7B's shape (examples/llama-2-7b.mlir: 32 layers,
# hidden 4096, ffn 11008, vocabulary 32000; 13.5 GB in 3 shards with an
# index) imported into the plan of that model at tp 8. The target is a peak
# RSS within 1.2x the files' size; import streams a layer's tensor at a
# time, so it should need far less. Needs about 45 GB of disk under WORK
# (files 13.5 GB, the weights-only checkpoint 27 GB) and a built tree.
#
# Usage: bash bench/checkpoint/hf-import-7b.sh [WORK]   (default /tmp/mt-hf-7b)
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
bin="$root/build/bin"
work="${1:-/tmp/mt-hf-7b}"
mkdir -p "$work" && rm -rf "$work/plan" "$work/ck"
"$bin/mtc" "$root/examples/llama-2-7b.mlir" -O1 --tp=8 --micro-batch-size=1 --seq-length=4096 \
  --global-batch-size=8 -o "$work/plan" > /dev/null
if [ ! -f "$work/hf/model.safetensors.index.json" ]; then # written once, reused
  /usr/bin/python3 "$root/bench/checkpoint/synthetic_llama.py" "$work/hf" 32 4096 32 32 11008 32000
fi
files=$(du -cb "$work"/hf/*.safetensors | tail -1 | cut -f1)
/usr/bin/time -v "$bin/mt-ckpt" import "$work/hf" --plan "$work/plan" -o "$work/ck" 2> "$work/time.txt"
rss_kb=$(awk -F': ' '/Maximum resident set size/ {print $2}' "$work/time.txt")
wall=$(awk -F': ' '/Elapsed \(wall clock\)/ {print $2}' "$work/time.txt")
written=$(du -sb "$work/ck" | cut -f1)
awk -v f="$files" -v r="$rss_kb" -v w="$wall" -v c="$written" 'BEGIN {
  printf "files %.2f GB; mt-ckpt import into tp8: peak RSS %.2f GB (%.3fx the files), %s wall; checkpoint %.2f GB\n",
         f / 1e9, r * 1024 / 1e9, r * 1024 / f, w, c / 1e9 }'
"$bin/mt-ckpt" verify "$work/ck" | cut -c1-200
