#!/usr/bin/env bash
# Installs every Debian package the project needs. Idempotent: does nothing when all are present.
set -euo pipefail

packages=(
  cmake ninja-build g++ python3
  llvm-22-dev llvm-22-tools libmlir-22-dev mlir-22-tools
  libprotobuf-dev protobuf-compiler
  libopenmpi-dev openmpi-bin
  libopenblas-dev
  zlib1g-dev libzstd-dev zstd   # mt-data reads .gz and .zst inputs
  libgtest-dev
  libsentencepiece-dev
  sentencepiece
  python3-torch
  clang-22 libclang-rt-22-dev   # libFuzzer targets (fuzz/, bench/fuzz.sh)
)

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
  exit 0
fi

echo "setup: installing ${missing[*]}"
SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
$SUDO apt-get update -qq
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
