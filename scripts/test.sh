#!/usr/bin/env bash
# The whole test suite: set-up, build, then every lit and GoogleTest test through ctest.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
bash "$root/scripts/build.sh"
build="${MT_BUILD_DIR:-$root/build}"
cd "$build"
ctest --output-on-failure
