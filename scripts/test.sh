#!/usr/bin/env bash
# The whole test suite: set-up, build, then every lit and GoogleTest test through ctest,
# then each libFuzzer target for a few seconds from its seed corpus (they keep building
# and passing; the long runs are bench/fuzz.sh's, docs/reliability.md).
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
bash "$root/scripts/build.sh"
build="${MT_BUILD_DIR:-$root/build}"
cd "$build"
ctest --output-on-failure
bash "$root/bench/fuzz.sh" all "${MT_FUZZ_SMOKE_SECONDS:-5}"
