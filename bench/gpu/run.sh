#!/usr/bin/env bash
# Runs a bundle made by bench/gpu/bundle.sh on a GPU machine; prints what it
# measured and leaves it in $OUT (when set) for docs/benchmarks.md.
# Usage: bench/gpu/run.sh BUNDLE [STEP ...]
# STEPs (default: all, in this order, most telling first): env micro tp2pp2
# nccl bf16 124m-bf16 mma 124m-bf16-fused profile torch 350m 124m-bf16-mb16 124m-fp32 1layer
# torch-compile torch-dropout torch-attn; and, when named, sanitize (compute-sanitizer
# over two steps of the tiny GPT), nccl-sanitize (the same through NCCL) and
# ncu-attention (Nsight Compute on the
# tensor-core attention's first forward, dq and dk/dv kernels of a step).
# Every step runs under its own time limit (a device lease is short and a
# kernel that is far too slow must not eat it); MT_GPU_TIME_SCALE multiplies
# them. $OUT gets gpu-run.log and results.tar.gz (a device run brings back
# at most 8 files).
set -uo pipefail
bundle="$(cd "${1:?usage: run.sh BUNDLE [STEP ...]}" && pwd)"
shift
steps="${*:-env micro tp2pp2 nccl bf16 124m-bf16 mma 124m-bf16-fused profile torch 350m 124m-bf16-mb16 124m-fp32 1layer torch-compile torch-dropout torch-attn}"
results="$(mktemp -d)/results"
mkdir -p "$results"
log="$results/gpu-run.log"
exec > >(tee "$log") 2>&1
scale="${MT_GPU_TIME_SCALE:-1}"
here="$(cd "$(dirname "$0")" && pwd)"
peak="${MT_PEAK_TFLOPS:-989}"   # dense bf16 of H100 SXM and H200

# cuBLAS: the CUDA toolkit's, else PyTorch's wheel.
cublas="$(dirname "$(ldconfig -p | awk '/libcublas.so.13 / {print $NF; exit}')" 2>/dev/null)"
for d in /usr/local/cuda/lib64 /usr/local/cuda/targets/x86_64-linux/lib \
         $(python3 -c 'import nvidia, os; print(os.path.dirname(nvidia.__path__[0]))' 2>/dev/null)/nvidia/cu13/lib \
         $(python3 -c 'import nvidia, os; print(nvidia.__path__[0])' 2>/dev/null)/cublas/lib; do
  [ -e "$d/libcublas.so.13" ] && cublas="$d" && break
done
# The driver's libcuda, wherever this machine keeps it.
cuda_driver="$(dirname "$(ldconfig -p | awk '/libcuda.so.1 / {print $NF; exit}')" 2>/dev/null)"
libs="$bundle/lib:${cublas}:${cuda_driver}"
export MT_CUDA_RUNTIME="$bundle/lib/libmt-cuda-runtime.so"
# NCCL (2.18 or later): the toolkit's, else PyTorch's wheel's, else the loader's.
nccl="${MT_NCCL_LIBRARY:-}"
for d in /usr/local/cuda/lib64 /usr/local/cuda/targets/x86_64-linux/lib \
         $(python3 -c 'import nvidia.nccl as n; print(list(n.__path__)[0] + "/lib")' 2>/dev/null); do
  [ -z "$nccl" ] && [ -e "$d/libnccl.so.2" ] && nccl="$d/libnccl.so.2"
done
[ -z "$nccl" ] && nccl="$(ldconfig -p | awk '/libnccl.so.2 / {print $NF; exit}')"
export MT_NCCL_LIBRARY="$nccl"

# limited SECONDS CMD...: CMD under a time limit (scaled), saying how it ended.
limited() {
  local seconds
  seconds=$(python3 -c "print(int($1 * $scale))")
  shift
  local start=$SECONDS
  timeout -k 5 "$seconds" "$@"
  local rc=$?
  if [ $rc -eq 124 ] || [ $rc -eq 137 ]; then
    echo "TIMED OUT after ${seconds} s"
  else
    echo "exit $rc after $((SECONDS - start)) s"
  fi
}
# The --profile report of a log, or how the run ended when it has none.
profile_or_error() {
  if grep -q '^profile of' "$1"; then sed -n '/^profile of/,$p' "$1"; else tail -5 "$1"; fi
}
# micro NAME PLAN PARAM_TOL: the tiny GPT, 100 steps, against the CPU's run.
micro() {
  mtrun_limited 60 "$results/$1.log" "$bundle/plans/$2" --data "$bundle/data/micro.tokens" \
    --record "$results/$1"
  tail -3 "$results/$1.log"
  python3 "$bundle/bin/compare_runs.py" "$bundle/cpu/micro" "$results/$1" --rtol 1e-2 --param-tol "$3"
}
# gpt NAME PLAN SECONDS LAYERS HIDDEN [ARGS]: 10 training steps, tokens/s, MFU
# (mfu.py reads the run's --metrics-file, NAME.jsonl).
gpt() {
  local name=$1 plan=$2 seconds=$3 layers=$4 hidden=$5
  shift 5
  mtrun_limited "$seconds" "$results/$name.log" "$bundle/plans/$plan" \
    --data "$bundle/data/random.tokens" --metrics-file "$results/$name.jsonl" "$@"
  tail -4 "$results/$name.log"
  python3 "$bundle/bin/mfu.py" "$results/$name.jsonl" --layers "$layers" --hidden "$hidden" \
    --peak-tflops "$peak"
}
mtrun_limited() {
  local seconds=$1 out=$2
  shift 2
  limited "$seconds" "$bundle/lib/ld-linux-x86-64.so.2" --library-path "$libs" \
    "$bundle/bin/mt-run" "$@" > "$out" 2>&1
}

save() {
  if [ -n "${OUT:-}" ]; then
    cp "$log" "$OUT/"
    tar -C "$(dirname "$results")" -czf "$OUT/results.tar.gz" results
  fi
}

for step in $steps; do
  echo "== $step ($(date +%T))"
  case $step in
    env)
      nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader
      echo "cuBLAS from: ${cublas:-not found}; libcuda from: ${cuda_driver:-not found}"
      python3 -c 'import torch; print("torch", torch.__version__, torch.cuda.get_device_name())' ;;
    micro)   # fp32, 100 steps, against the CPU
      micro micro-cuda micro-cuda 1e-2 ;;
    tp2pp2)  # tp=2 pp=2, ranks on threads of one GPU, against the CPU
      micro micro-cuda-tp2pp2 micro-cuda-tp2pp2 1e-2 ;;
    bf16)    # bf16 against the CPU's fp32 (1% a step)
      micro micro-cuda-bf16 micro-cuda-bf16 1 ;;
    124m-bf16)
      gpt gpt2-124m-bf16 gpt2-124m-cuda-bf16 90 12 768 ;;
    mma)     # tensor-core attention: gpt-wide bf16 against the CPU's bf16, then the 124M step
      mtrun_limited 90 "$results/wide-mma.log" "$bundle/plans/wide-cuda-bf16-mma" \
        --data "$bundle/data/wide.tokens" --record "$results/wide-mma"
      tail -3 "$results/wide-mma.log"
      python3 "$bundle/bin/compare_runs.py" "$bundle/cpu/wide-bf16" "$results/wide-mma" \
        --rtol 1e-2 --param-tol 100
      gpt gpt2-124m-bf16-mma gpt2-124m-cuda-bf16-mma 90 12 768
      mtrun_limited 60 "$results/gpt2-124m-bf16-mma-profile.log" \
        "$bundle/plans/gpt2-124m-cuda-bf16-mma" --data "$bundle/data/random.tokens" \
        --train-iters 3 --profile
      profile_or_error "$results/gpt2-124m-bf16-mma-profile.log" ;;
    124m-bf16-fused)
      gpt gpt2-124m-bf16-fused gpt2-124m-cuda-bf16-fused 90 12 768 ;;
    profile) # where the 124M bf16 step's time goes
      mtrun_limited 60 "$results/gpt2-124m-bf16-profile.log" "$bundle/plans/gpt2-124m-cuda-bf16" \
        --data "$bundle/data/random.tokens" --train-iters 3 --profile
      profile_or_error "$results/gpt2-124m-bf16-profile.log" ;;
    torch)
      limited 60 python3 "$here/torch_gpt2.py" --dtype bf16
      limited 60 python3 "$here/torch_gpt2.py" --dtype fp32 ;;
    350m)
      gpt gpt2-350m-bf16 gpt2-350m-cuda-bf16 90 24 1024 ;;
    124m-bf16-mb16)
      gpt gpt2-124m-bf16-mb16 gpt2-124m-cuda-bf16-mb16 90 12 768 ;;
    124m-fp32)
      gpt gpt2-124m-fp32 gpt2-124m-cuda 60 12 768 ;;
    1layer)  # kernel bandwidth far beyond L2: one GPT-2 small layer at micro-batch 64
      mtrun_limited 60 "$results/gpt2-1layer-profile.log" "$bundle/plans/gpt2-1layer-mb64-bf16" \
        --data "$bundle/data/random.tokens" --profile
      profile_or_error "$results/gpt2-1layer-profile.log" ;;
    nccl) # one rank through the real NCCL (issue #39): every sum and gather a one-GPU plan
      # makes (the distributed optimizer's too), against the host path's run and the CPU's
      echo "NCCL: $MT_NCCL_LIBRARY"
      mtrun_limited 60 "$results/micro-host-collectives.log" "$bundle/plans/micro-cuda-distopt" \
        --data "$bundle/data/micro.tokens" --record "$results/micro-host-collectives"
      mtrun_limited 60 "$results/micro-nccl.log" "$bundle/plans/micro-cuda-distopt" \
        --data "$bundle/data/micro.tokens" --collectives=nccl --record "$results/micro-nccl"
      grep -a "collectives:" "$results/micro-nccl.log"
      tail -3 "$results/micro-nccl.log"
      python3 "$bundle/bin/compare_runs.py" "$bundle/cpu/micro" "$results/micro-nccl" --rtol 1e-2 \
        --param-tol 1e-2
      python3 "$bundle/bin/compare_runs.py" "$results/micro-host-collectives" "$results/micro-nccl" \
        --rtol 1e-7 --param-tol 1e-6 ;;
    nccl-sanitize) # the same, two steps, under compute-sanitizer
      limited 120 compute-sanitizer --tool memcheck --print-limit 20 \
        "$bundle/lib/ld-linux-x86-64.so.2" --library-path "$libs" "$bundle/bin/mt-run" \
        "$bundle/plans/micro-cuda-distopt" --data "$bundle/data/micro.tokens" --train-iters 2 \
        --collectives=nccl > "$results/sanitize-nccl.log" 2>&1
      tail -30 "$results/sanitize-nccl.log" ;;
    sanitize) # out-of-bounds accesses and races in 2 steps of the tiny GPT
      limited 90 compute-sanitizer --tool memcheck --print-limit 20 \
        "$bundle/lib/ld-linux-x86-64.so.2" --library-path "$libs" "$bundle/bin/mt-run" \
        "$bundle/plans/micro-cuda" --data "$bundle/data/micro.tokens" --train-iters 2 \
        > "$results/sanitize.log" 2>&1
      tail -30 "$results/sanitize.log" ;;
    torch-compile)
      limited 120 python3 "$here/torch_gpt2.py" --dtype bf16 --compile --peak-tflops "$peak"
      limited 120 python3 "$here/torch_gpt2.py" --dtype bf16 --compile --peak-tflops "$peak" \
        --layers 24 --hidden 1024 --heads 16
      # The 40% MFU target's batch (issue #38): micro-batch 16.
      limited 120 python3 "$here/torch_gpt2.py" --dtype bf16 --compile --peak-tflops "$peak" --micro 16 ;;
    torch-dropout) # mtc's model as it is: examples/gpt2.mlir drops out at 0.1
      limited 60 python3 "$here/torch_gpt2.py" --dtype bf16 --dropout 0.1 --peak-tflops "$peak"
      limited 120 python3 "$here/torch_gpt2.py" --dtype bf16 --dropout 0.1 --compile \
        --peak-tflops "$peak" ;;
    ncu-attention) # why the tensor-core attention takes its time: occupancy, stalls, caches
      ncu="$(command -v ncu || ls /usr/local/cuda/bin/ncu 2>/dev/null)"
      if [ -z "$ncu" ]; then echo "no ncu on this machine"; else
        for k in "fused_attention_grad 2" "fused_attention 1"; do
          set -- $k
          limited 90 "$ncu" --section SpeedOfLight --section MemoryWorkloadAnalysis \
            --section WarpStateStats --section Occupancy --section LaunchStats -k "regex:$1" \
            --launch-count "$2" "$bundle/lib/ld-linux-x86-64.so.2" --library-path "$libs" \
            "$bundle/bin/mt-run" "$bundle/plans/gpt2-124m-cuda-bf16-mma" \
            --data "$bundle/data/random.tokens" --train-iters 1 > "$results/ncu-$1.log" 2>&1
          grep -E 'Duration|Registers Per|Achieved Occupancy|Cycles Per Issued|stalled|Hit Rate' \
            "$results/ncu-$1.log"
        done
      fi ;;
    torch-attn) # the attention kernel target: PyTorch's fused attention, fwd + bwd
      limited 60 python3 "$here/torch_attention.py"
      limited 60 python3 "$here/torch_attention.py" --batch 16 ;;
    *) echo "unknown step $step" ;;
  esac
  save   # after every step: a run cut off by the lease keeps what it measured
done
echo "== done ($(date +%T))"
save
