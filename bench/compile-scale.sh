#!/usr/bin/env bash
# The compiler at real scale (issue #24 item 5): GPT-3 175B (96 layers,
# hidden 12288, 96 heads, seq 2048) at tp 8, pp 16 interleaved over 6
# virtual stages, sequence parallel, the distributed optimizer over dp 8,
# bf16. Times `mtc --report-memory` and the full plan (-O3, the default),
# with peak RSS, and the same for 48 layers (3 virtual stages: one layer per
# model chunk, as at 96 layers with 6) and for 96 layers at 3 virtual stages
# (two layers per chunk), so growth with depth shows. Each compile runs
# REPEATS times; the best time and the largest RSS are printed.
# Usage: bench/compile-scale.sh [REPEATS]
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
build="${MT_BUILD_DIR:-$root/build}"
repeats="${1:-2}"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

python3 "$root/examples/gen_gpt.py" "$work" gpt3-175b gpt3-175b-48l > /dev/null
common=(--tp=8 --pp=16 --dp=8 --schedule=interleaved --distributed-optimizer --bf16
        --seq-length=2048 --micro-batch-size=1 --global-batch-size=1536)

# measure LABEL ARGS...: best wall seconds and largest peak RSS over REPEATS.
measure() {
  local label="$1" best="" rss=0
  shift
  for _ in $(seq "$repeats"); do
    /usr/bin/time -f "%e %M" -o "$work/time" "$build/bin/mtc" "$@" > /dev/null
    read -r seconds kb < "$work/time"
    if [[ -z "$best" ]] || awk "BEGIN{exit !($seconds < $best)}"; then best="$seconds"; fi
    (( kb > rss )) && rss="$kb"
  done
  printf "%-44s %8.2f s %8.0f MB\n" "$label" "$best" "$(awk "BEGIN{print $rss/1024}")"
}

for model in "gpt3-175b 6" "gpt3-175b-48l 3" "gpt3-175b 3"; do
  read -r name virtual <<< "$model"
  layers=$([[ "$name" == *48l ]] && echo 48 || echo 96)
  args=("$work/$name.mlir" "${common[@]}" --virtual-stages="$virtual")
  measure "$layers layers, v$virtual: --report-memory" "${args[@]}" --report-memory
  measure "$layers layers, v$virtual: plan (-o, -O3)" "${args[@]}" -o "$work/plan"
  functions=$("$build/bin/mt-run" "$work/plan" --dump | grep -c '^functions {')
  shared=$("$build/bin/mt-run" "$work/plan" --dump | grep -c '^  entry: ' || true)
  echo "  plan: $(stat -c %s "$work/plan") bytes; $functions functions, $((functions - shared)) compiled"
done
