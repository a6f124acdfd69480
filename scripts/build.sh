#!/usr/bin/env bash
# Configures (once) and builds the project in ./build with Ninja.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
bash "$root/scripts/setup.sh"
build="${MT_BUILD_DIR:-$root/build}"
if [ ! -f "$build/build.ninja" ]; then
  cmake -G Ninja -S "$root" -B "$build" -DCMAKE_BUILD_TYPE="${MT_BUILD_TYPE:-Release}"
fi
cmake --build "$build" -j "$(nproc)"
