#!/usr/bin/env bash
# The main job: set-up, build, then compile the example GPT-2 model and print its summary.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
bash "$root/scripts/build.sh"
build="${MT_BUILD_DIR:-$root/build}"
"$build/bin/mtc" "$root/examples/gpt2.mlir" --summary
echo
"$build/bin/mtc" "$root/examples/gpt2.mlir" --summary --make-vocab-size-divisible-by=128 | tail -n 1
