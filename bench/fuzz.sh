#!/usr/bin/env bash
# Runs a libFuzzer target (issue #25) from its seed corpus in fuzz/corpus:
# configures build-fuzz with clang-22 and -DMT_FUZZ=ON once, builds the
# target, fuzzes for SECONDS (or RUNS executions when given), and prints
# executions, coverage and crashes. New inputs go to build-fuzz/corpus/T,
# crashes to build-fuzz/crashes/T (turn each into a regression seed).
# Usage: bench/fuzz.sh TARGET|all SECONDS [RUNS]
#   TARGET: json_lines indexed_dataset gpt2_tokenizer plan checkpoint safetensors mt_dialect
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
all="json_lines indexed_dataset gpt2_tokenizer plan checkpoint safetensors mt_dialect"
targets="${1:?usage: bench/fuzz.sh TARGET|all SECONDS [RUNS]}"
[ "$targets" = all ] && targets="$all"
seconds="${2:?usage: bench/fuzz.sh TARGET|all SECONDS [RUNS]}"
runs="${3:--1}"
build="${MT_FUZZ_BUILD_DIR:-$root/build-fuzz}"
if [ ! -f "$build/build.ninja" ]; then
  cmake -G Ninja -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release \
    -DCMAKE_C_COMPILER=clang-22 -DCMAKE_CXX_COMPILER=clang++-22 -DMT_FUZZ=ON > /dev/null
fi
cmake --build "$build" -j "$(nproc)" --target $(for t in $targets; do printf 'fuzz_%s ' "$t"; done)
# The GPT-2 tokenizer's vocabulary ships with the normal build, or here.
export MT_GPT2_VOCAB_DIR="${MT_GPT2_VOCAB_DIR:-$root/data/gpt2}"
# allow_user_poisoning=0: LLVM's allocators poison from inline code here but
# allocate from libMLIR, which is not instrumented (false use-after-poison).
export ASAN_OPTIONS="detect_leaks=1:abort_on_error=0:allow_user_poisoning=0"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1"
status=0
for t in $targets; do
  work="$build/corpus/$t" crashes="$build/crashes/$t"
  mkdir -p "$work" "$crashes"
  log="$build/fuzz-$t.log"
  set +e
  "$build/bin/fuzz_$t" -max_total_time="$seconds" -runs="$runs" -timeout=20 -rss_limit_mb=4096 \
    -print_final_stats=1 -artifact_prefix="$crashes/" "$work" "$root/fuzz/corpus/$t" > "$log" 2>&1
  rc=$?
  set -e
  execs=$(awk '/stat::number_of_executed_units/ {print $2}' "$log" || true)
  cov=$( (grep -o 'cov: [0-9]*' "$log" || true) | tail -1 | awk '{print $2}')
  found=$(find "$crashes" -type f | wc -l)
  printf '%-16s %10s executions  coverage %5s edges  %s\n' "$t" "${execs:-?}" "${cov:-?}" \
    "$([ $rc -eq 0 ] && echo 'no crash' || echo "CRASH (exit $rc, $found artifact(s) in $crashes; log $log)")"
  [ $rc -eq 0 ] || { status=1; grep -m 5 -E 'ERROR|SUMMARY|runtime error' "$log" || true; }
done
exit $status
