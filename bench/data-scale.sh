#!/usr/bin/env bash
# Issue #41's corpus-scale figures (docs/benchmarks.md, "Data at corpus
# scale"): mt-data over about 1 GB of JSON lines (WikiText-2 paragraphs,
# ../shared/data) with 1 and 2 workers (rate, peak memory, and the same at
# 100 MB to show memory does not grow with the corpus), then mt-run's
# start-up on an indexed dataset of 1.1 billion tokens, without and with its
# index cache. Usage: bench/data-scale.sh [WORKDIR]  (needs ~5 GB of disk)
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
bin="$root/build/bin"
work="${1:-$(mktemp -d)}"
mkdir -p "$work"
texts=("$root/../shared/data/wikitext2-test.txt" "$root/../shared/data/wikitext2-valid.txt")

python3 "$root/bench/data/make_jsonl_corpus.py" "$work/corpus-1g.jsonl" 1000 "${texts[@]}"
head -c 100000000 "$work/corpus-1g.jsonl" | sed '$d' > "$work/corpus-100m.jsonl"
for input in corpus-100m corpus-1g; do
  for workers in 1 2; do
    echo "== mt-data $input.jsonl --workers $workers"
    /usr/bin/time -f "peak RSS %M KB, %e s wall, %U s user" \
      "$bin/mt-data" --input "$work/$input.jsonl" --output-prefix "$work/out-$input-w$workers" \
      --append-eod --workers "$workers" 2>&1 | grep -v '^\s*$'
    rm -f "$work/out-$input-w$workers"_text_document.*
  done
done

python3 "$root/bench/data/make_token_dataset.py" "$work/tokens" 1.1e9
"$bin/mtc" "$root/examples/gpt2-tiny.mlir" -O1 --micro-batch-size=1 --seq-length=128 \
  --global-batch-size=8 --train-iters=100000 -o "$work/plan" > /dev/null
rm -rf "$work/cache"
for run in "no cache" "cache" "cache"; do
  echo "== mt-run start-up, $run"
  /usr/bin/time -f "%e s wall, peak RSS %M KB" "$bin/mt-run" "$work/plan" --data "$work/tokens" \
    --data-cache-path "$work/cache" --train-iters 1 --eval-iters 1 2>&1 | grep -E "data|wall"
done
# The same plan on a 15 KB dataset: what a start costs besides the data.
cp /usr/share/common-licenses/GPL-3 "$work/gpl.txt"
"$bin/mt-data" --input "$work/gpl.txt" --output-prefix "$work/small" > /dev/null
for run in 1 2; do
  echo "== mt-run start-up, 15 KB dataset ($run)"
  /usr/bin/time -f "%e s wall, peak RSS %M KB" "$bin/mt-run" "$work/plan" \
    --data "$work/small_text_document" --data-cache-path "$work/cache-small" --train-iters 1 \
    --eval-iters 1 2>&1 | grep -E "wall"
done
