#!/usr/bin/env bash
# Regenerates the ODS reference docs and copies them to docs/reference.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
build="${MT_BUILD_DIR:-$root/build}"
cmake --build "$build" --target mt-doc
cp "$build"/docs/reference/*.md "$root/docs/reference/"
