#!/usr/bin/env bash
# Prepares what a GPU session runs (issue #6): the GPU machine has the CUDA
# driver and PyTorch but no LLVM/MLIR, so plans are compiled here and carried
# there with mt-run, the CUDA runtime library and every shared library they
# need (loaded through the carried dynamic loader, so the GPU machine's own
# glibc does not matter). Run the bundle there with bench/gpu/run.sh.
#
# Usage: bench/gpu/bundle.sh [OUT]   (default: build/gpu-bundle, git-ignored)
# It also writes OUT.tar.gz (about 31 MB; the bundle itself is about 70 MB,
# more than the 64 MiB a device run carries: carry the archive). Then, on the device:
#   carry build/gpu-bundle.tar.gz, run
#   tar -xzf build/gpu-bundle.tar.gz -C build && bash bench/gpu/run.sh build/gpu-bundle
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
build="${MT_BUILD_DIR:-$root/build}"
out="${1:-$build/gpu-bundle}"
arch="${MT_CUDA_ARCH:-sm_90}"   # H100 and H200; sm_80 for an A100
rm -rf "$out" && mkdir -p "$out/bin" "$out/lib" "$out/plans" "$out/data" "$out/cpu"

mtc="$build/bin/mtc"
# The tiny GPT of the tests: losses on the GPU against the CPU's.
python3 "$root/examples/gen_gpt.py" "$out/data" gpt-micro-4h
python3 "$root/test/mt-run/Inputs/make_tokens.py" "$out/data/micro.tokens" 64
micro="--micro-batch-size=2 --seq-length=8 --global-batch-size=4 --train-iters=100"
"$mtc" "$out/data/gpt-micro-4h.mlir" $micro --target=cpu -o "$out/plans/micro-cpu"
"$mtc" "$out/data/gpt-micro-4h.mlir" $micro --target=cuda --cuda-arch="$arch" -o "$out/plans/micro-cuda"
"$mtc" "$out/data/gpt-micro-4h.mlir" $micro --target=cuda --cuda-arch="$arch" --tp=2 --pp=2 \
  -o "$out/plans/micro-cuda-tp2pp2"
"$mtc" "$out/data/gpt-micro-4h.mlir" $micro --target=cuda --cuda-arch="$arch" --bf16 \
  -o "$out/plans/micro-cuda-bf16"
# One rank through NCCL (run.sh's nccl step): the distributed optimizer's
# reduce-scatter and gather run even at one rank.
"$mtc" "$out/data/gpt-micro-4h.mlir" $micro --target=cuda --cuda-arch="$arch" --distributed-optimizer \
  -o "$out/plans/micro-cuda-distopt"
"$build/bin/mt-run" "$out/plans/micro-cpu" --data "$out/data/micro.tokens" --record "$out/cpu/micro" \
  > "$out/cpu/micro.log"

# GPT-2 124M at seq 1024 for throughput, fp32 and bf16 (docs/precision.md),
# the vocabulary padded to 50304 as Megatron pads it (and as
# torch_gpt2.py's model has it): GEMM and row widths that are multiples of 128.
pad="--make-vocab-size-divisible-by=128"
python3 -c "
import random
random.seed(0)
print(' '.join(str(random.randrange(50257)) for _ in range(400000)))" > "$out/data/random.tokens"
"$mtc" "$root/examples/gpt2.mlir" $pad --micro-batch-size=4 --seq-length=1024 --global-batch-size=4 \
  --train-iters=10 --target=cuda --cuda-arch="$arch" -o "$out/plans/gpt2-124m-cuda"
"$mtc" "$root/examples/gpt2.mlir" $pad --micro-batch-size=4 --seq-length=1024 --global-batch-size=4 \
  --train-iters=10 --target=cuda --cuda-arch="$arch" --bf16 -o "$out/plans/gpt2-124m-cuda-bf16"
# The same with the fused attention kernels (not yet the default on CUDA).
"$mtc" "$root/examples/gpt2.mlir" $pad --micro-batch-size=4 --seq-length=1024 --global-batch-size=4 \
  --train-iters=10 --target=cuda --cuda-arch="$arch" --bf16 --fuse-attention=true \
  -o "$out/plans/gpt2-124m-cuda-bf16-fused"
# Attention on tensor cores (--gpu-attention=mma, docs/attention-gpu-design.md;
# not yet the default): the 124M step, and gpt-wide (head dim 64, 160
# positions: a partial key tile) against the CPU's bf16 losses.
"$mtc" "$root/examples/gpt2.mlir" $pad --micro-batch-size=4 --seq-length=1024 --global-batch-size=4 \
  --train-iters=10 --target=cuda --cuda-arch="$arch" --bf16 --gpu-attention=mma \
  -o "$out/plans/gpt2-124m-cuda-bf16-mma"
python3 "$root/examples/gen_gpt.py" "$out/data" gpt-wide
python3 "$root/test/mt-run/Inputs/make_tokens.py" "$out/data/wide.tokens" 512
wide="--micro-batch-size=2 --seq-length=160 --global-batch-size=4 --train-iters=50 --bf16"
"$mtc" "$out/data/gpt-wide.mlir" $wide --target=cpu -o "$out/plans/wide-cpu-bf16"
"$mtc" "$out/data/gpt-wide.mlir" $wide --target=cuda --cuda-arch="$arch" --gpu-attention=mma \
  -o "$out/plans/wide-cuda-bf16-mma"
"$build/bin/mt-run" "$out/plans/wide-cpu-bf16" --data "$out/data/wide.tokens" \
  --record "$out/cpu/wide-bf16" > "$out/cpu/wide-bf16.log"
# The 40% MFU target's batch (issue #38): 124M bf16 at micro-batch 16.
"$mtc" "$root/examples/gpt2.mlir" $pad --micro-batch-size=16 --seq-length=1024 --global-batch-size=16 \
  --train-iters=10 --target=cuda --cuda-arch="$arch" --bf16 -o "$out/plans/gpt2-124m-cuda-bf16-mb16"
# GPT-2 medium (350M), bf16, the same batch.
"$mtc" "$root/examples/gpt2-medium.mlir" $pad --micro-batch-size=4 --seq-length=1024 --global-batch-size=4 \
  --train-iters=10 --target=cuda --cuda-arch="$arch" --bf16 -o "$out/plans/gpt2-350m-cuda-bf16"

# Kernel bandwidth on tensors far larger than L2 (50 MB on H100): one GPT-2
# small layer at micro-batch 64 (its [65536, 768] activations are 100 MB
# in bf16, attention's scores 1.6 GB).
python3 "$root/examples/gen_gpt.py" "$out/data" gpt2-1layer
"$mtc" "$out/data/gpt2-1layer.mlir" $pad --micro-batch-size=64 --seq-length=1024 --global-batch-size=64 \
  --train-iters=3 --target=cuda --cuda-arch="$arch" --bf16 -o "$out/plans/gpt2-1layer-mb64-bf16"

# mt-run and what it loads.
cp "$build/bin/mt-run" "$out/bin/"
cp "$build/lib/libmt-cuda-runtime.so" "$out/lib/"
for f in $(ldd "$build/bin/mt-run" | awk '/=>/ {print $3}') /lib64/ld-linux-x86-64.so.2; do
  cp -L "$f" "$out/lib/"
done
# mfu.py imports bench/metrics.py (the --metrics-file reader) from beside it.
# (run.sh runs the PyTorch scripts from the checkout, not the bundle:
# torch_gpt2.py finds bench/torch_gpt_model.py one directory up there.)
cp "$root/test/parallel/Inputs/compare_runs.py" "$root/bench/gpu/mfu.py" "$root/bench/metrics.py" \
  "$out/bin/"
tar -C "$(dirname "$out")" -czf "$out.tar.gz" "$(basename "$out")"
du -sh "$out" "$out.tar.gz"
