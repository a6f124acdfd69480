#!/usr/bin/env bash
# Runs a bundle made by bench/gpu/bundle.sh on a GPU machine; prints what it
# measured and copies it to $OUT (when set) for docs/benchmarks.md.
# Usage: bench/gpu/run.sh BUNDLE
set -uo pipefail
bundle="$(cd "${1:?usage: run.sh BUNDLE}" && pwd)"
results="${OUT:-$bundle/results}"
mkdir -p "$results"
log="$results/gpu-run.log"
exec > >(tee "$log") 2>&1

nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader
# cuBLAS: the CUDA toolkit's, else PyTorch's wheel.
cublas="$(dirname "$(ldconfig -p | awk '/libcublas.so.13 / {print $NF; exit}')" 2>/dev/null)"
for d in /usr/local/cuda/lib64 /usr/local/cuda/targets/x86_64-linux/lib \
         $(python3 -c 'import nvidia, os; print(os.path.dirname(nvidia.__path__[0]))' 2>/dev/null)/nvidia/cu13/lib \
         $(python3 -c 'import nvidia, os; print(nvidia.__path__[0])' 2>/dev/null)/cublas/lib; do
  [ -e "$d/libcublas.so.13" ] && cublas="$d" && break
done
echo "cuBLAS from: ${cublas:-not found}"
libs="$bundle/lib:${cublas}"
mtrun() {
  "$bundle/lib/ld-linux-x86-64.so.2" --library-path "$libs" "$bundle/bin/mt-run" "$@"
}
export MT_CUDA_RUNTIME="$bundle/lib/libmt-cuda-runtime.so"
# The --profile report of a log, or how the run ended when it has none.
profile_or_error() {
  if grep -q '^profile of' "$1"; then sed -n '/^profile of/,$p' "$1"; else tail -3 "$1"; fi
}

echo "== tiny GPT, 100 steps: CUDA fp32 against the CPU"
mtrun "$bundle/plans/micro-cuda" --data "$bundle/data/micro.tokens" --record "$results/micro-cuda" \
  > "$results/micro-cuda.log" 2>&1; echo "exit $?"; tail -3 "$results/micro-cuda.log"
python3 "$bundle/bin/compare_runs.py" "$bundle/cpu/micro" "$results/micro-cuda" --rtol 1e-2 --param-tol 1e-2

echo "== tiny GPT, tp=2 pp=2 on one GPU, against the CPU"
mtrun "$bundle/plans/micro-cuda-tp2pp2" --data "$bundle/data/micro.tokens" \
  --record "$results/micro-cuda-tp2pp2" > "$results/micro-cuda-tp2pp2.log" 2>&1; echo "exit $?"
tail -3 "$results/micro-cuda-tp2pp2.log"
python3 "$bundle/bin/compare_runs.py" "$bundle/cpu/micro" "$results/micro-cuda-tp2pp2" --rtol 1e-2 --param-tol 1e-2

echo "== tiny GPT, 100 steps: CUDA bf16 against the CPU fp32 (1% per step)"
mtrun "$bundle/plans/micro-cuda-bf16" --data "$bundle/data/micro.tokens" \
  --record "$results/micro-cuda-bf16" > "$results/micro-cuda-bf16.log" 2>&1; echo "exit $?"
tail -3 "$results/micro-cuda-bf16.log"
python3 "$bundle/bin/compare_runs.py" "$bundle/cpu/micro" "$results/micro-cuda-bf16" --rtol 1e-2 --param-tol 1

peak="${MT_PEAK_TFLOPS:-989}"   # dense bf16 of H100 SXM and H200
echo "== GPT-2 124M, micro-batch 4, seq 1024, bf16, 10 steps"
mtrun "$bundle/plans/gpt2-124m-cuda-bf16" --data "$bundle/data/random.tokens" \
  > "$results/gpt2-124m-bf16.log" 2>&1; echo "exit $?"
tail -4 "$results/gpt2-124m-bf16.log"
python3 "$bundle/bin/mfu.py" "$results/gpt2-124m-bf16.log" --layers 12 --hidden 768 --peak-tflops "$peak"

echo "== GPT-2 350M, micro-batch 4, seq 1024, bf16, 10 steps"
mtrun "$bundle/plans/gpt2-350m-cuda-bf16" --data "$bundle/data/random.tokens" \
  > "$results/gpt2-350m-bf16.log" 2>&1; echo "exit $?"
tail -4 "$results/gpt2-350m-bf16.log"
python3 "$bundle/bin/mfu.py" "$results/gpt2-350m-bf16.log" --layers 24 --hidden 1024 --peak-tflops "$peak"

echo "== where the 124M bf16 step's time goes: each kernel's bandwidth, each GEMM's TFLOP/s"
mtrun "$bundle/plans/gpt2-124m-cuda-bf16" --data "$bundle/data/random.tokens" --train-iters 4 \
  --profile > "$results/gpt2-124m-bf16-profile.log" 2>&1; echo "exit $?"
profile_or_error "$results/gpt2-124m-bf16-profile.log"

echo "== GPT-2 124M, micro-batch 4, seq 1024, fp32, 10 steps"
mtrun "$bundle/plans/gpt2-124m-cuda" --data "$bundle/data/random.tokens" \
  > "$results/gpt2-124m.log" 2>&1; echo "exit $?"
tail -4 "$results/gpt2-124m.log"

echo "== kernel bandwidth far beyond L2: one GPT-2 small layer, micro-batch 64, bf16"
mtrun "$bundle/plans/gpt2-1layer-mb64-bf16" --data "$bundle/data/random.tokens" --profile \
  > "$results/gpt2-1layer-profile.log" 2>&1; echo "exit $?"
profile_or_error "$results/gpt2-1layer-profile.log"

echo "== PyTorch side by side (GPT-2 124M, micro-batch 4, seq 1024)"
here="$(cd "$(dirname "$0")" && pwd)"
python3 "$here/torch_gpt2.py" --dtype fp32
python3 "$here/torch_gpt2.py" --dtype bf16
python3 "$here/torch_gpt2.py" --dtype bf16 --compile --peak-tflops "$peak"
python3 "$here/torch_gpt2.py" --dtype bf16 --compile --peak-tflops "$peak" --layers 24 --hidden 1024 --heads 16
