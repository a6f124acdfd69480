#!/usr/bin/env bash
# The main job: set up, build, then compile a small GPT-2 (examples/gpt2-tiny.mlir)
# into a training plan and train it on the CPU on real English text that every
# Debian machine has: the free-software licenses in /usr/share/common-licenses
# (package base-files; about 240 KB, 60k GPT-2 tokens). Writes the log and a
# loss curve (loss.svg) to build/demo. MT_DEMO_ITERS sets the steps (300).
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
bash "$root/scripts/build.sh"
build="${MT_BUILD_DIR:-$root/build}"
demo="$build/demo"
iters="${MT_DEMO_ITERS:-300}"
mkdir -p "$demo"

echo "== GPT-2 124M, as the compiler sees it"
"$build/bin/mtc" "$root/examples/gpt2.mlir" --summary | tail -n 1

echo "== corpus: the license texts of /usr/share/common-licenses"
bash "$root/scripts/licenses-corpus.sh" "$demo/licenses.txt"
"$build/bin/mt-data" --input "$demo/licenses.txt" --output-prefix "$demo/licenses" --append-eod

echo "== compile gpt2-tiny into a plan"
"$build/bin/mtc" "$root/examples/gpt2-tiny.mlir" --micro-batch-size=8 --seq-length=128 \
  --train-iters="$iters" --lr=2e-3 --min-lr=2e-4 --lr-warmup-iters=30 --seed=1234 \
  -o "$demo/gpt2-tiny.plan"

echo "== train"
"$build/bin/mt-run" "$demo/gpt2-tiny.plan" --data "$demo/licenses_text_document" \
  --eval-interval=50 --eval-iters=4 --log-interval=10 --log-dir "$demo"
echo "log: $demo/train.log, loss curve: $demo/loss.svg"
