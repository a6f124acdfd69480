#!/usr/bin/env bash
# Kill safety by hand, on a model whose saves take longer than the CI test's:
# mt-run (gpt-wide, tp 2) killed with SIGKILL at random moments until KILLS
# kills have landed in the middle of a save; every checkpoint left must
# verify and the newest resume (test/checkpoint/Inputs/kill_saves.py).
# Usage: bench/checkpoint/kill-saves.sh [KILLS] [SEED]
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
build="${MT_BUILD_DIR:-$root/build}"
kills="${1:-20}"
seed="${2:-1}"
work="$(mktemp -d "${TMPDIR:-/tmp}/mt-kill-saves.XXXXXX")"
trap 'rm -rf "$work"' EXIT
export PATH="$build/bin:$PATH"
python3 "$root/examples/gen_gpt.py" "$work" gpt-wide > /dev/null
python3 "$root/test/mt-run/Inputs/make_tokens.py" "$work/data.tokens" 512
mtc "$work/gpt-wide.mlir" --micro-batch-size=1 --seq-length=16 --global-batch-size=2 \
  --train-iters=1000000 --tp=2 -o "$work/plan"
python3 "$root/test/checkpoint/Inputs/kill_saves.py" "$work/plan" "$work/data.tokens" \
  "$work/saves" --kills "$kills" --seed "$seed" --max-wait 1.5
