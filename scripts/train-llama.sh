#!/usr/bin/env bash
# A Llama-style model trained on the CPU on the demo's text (issue #23): set
# up and build, train a SentencePiece model of 1024 pieces on the license
# texts of /usr/share/common-licenses (spm_train), tokenize them into a
# Megatron indexed dataset with it (mt-data --tokenizer-type
# SentencePieceTokenizer), then compile llama-tiny (RMS norms, rotary
# positions, 4 query heads over 2 key/value heads, SwiGLU, untied head) and
# train it. Log and loss curve in build/llama. MT_LLAMA_ITERS sets the steps (300).
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
bash "$root/scripts/build.sh"
build="${MT_BUILD_DIR:-$root/build}"
out="$build/llama"
iters="${MT_LLAMA_ITERS:-300}"
mkdir -p "$out"

echo "== Llama-2 7B, as the compiler sees it"
"$build/bin/mtc" "$root/examples/llama-2-7b.mlir" --summary | tail -n 1

echo "== corpus and tokenizer: the license texts, a SentencePiece model trained on them"
bash "$root/scripts/licenses-corpus.sh" "$out/licenses.txt"
spm_train --input="$out/licenses.txt" --model_prefix="$out/spm" --vocab_size=1024 \
  --model_type=bpe --character_coverage=1.0 > "$out/spm_train.log" 2>&1
"$build/bin/mt-data" --input "$out/licenses.txt" --output-prefix "$out/licenses" --append-eod \
  --tokenizer-type SentencePieceTokenizer --tokenizer-model "$out/spm.model"

echo "== compile llama-tiny into a plan"
python3 "$root/examples/gen_llama.py" "$out" llama-tiny
"$build/bin/mtc" "$out/llama-tiny.mlir" --micro-batch-size=8 --seq-length=128 \
  --train-iters="$iters" --lr=2e-3 --min-lr=2e-4 --lr-warmup-iters=30 --seed=1234 \
  -o "$out/llama-tiny.plan"

echo "== train"
"$build/bin/mt-run" "$out/llama-tiny.plan" --data "$out/licenses_text_document" \
  --eval-interval=50 --eval-iters=4 --log-interval=10 --log-dir "$out"
echo "log: $out/train.log, loss curve: $out/loss.svg"
