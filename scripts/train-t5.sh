#!/usr/bin/env bash
# T5 trained on the CPU on the demo's text (issue #23): set up and build,
# train a 412-piece SentencePiece model on the license texts of
# /usr/share/common-licenses (Debian's spm_train), tokenize them into a
# Megatron indexed dataset (mt-data --tokenizer-type SentencePieceTokenizer),
# then compile t5-tiny (encoder and decoder, relative position buckets,
# vocabulary 512 = 412 pieces + 100 sentinels) and train it on span-corrupted
# samples (15% noise in spans of mean length 3; encoder 128, decoder 32
# tokens). Log and loss curve in build/t5. MT_T5_ITERS sets the steps (600).
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
bash "$root/scripts/build.sh"
build="${MT_BUILD_DIR:-$root/build}"
out="$build/t5"
iters="${MT_T5_ITERS:-600}"
mkdir -p "$out"

echo "== t5-small, as the compiler sees it"
"$build/bin/mtc" "$root/examples/t5-small.mlir" --summary | tail -n 1

echo "== corpus and tokenizer: the license texts, a SentencePiece model trained on them"
bash "$root/scripts/licenses-corpus.sh" "$out/licenses.txt"
spm_train --input="$out/licenses.txt" --model_prefix="$out/spm" --vocab_size=412 \
  --model_type=bpe --character_coverage=1.0 > "$out/spm.log" 2>&1
"$build/bin/mt-data" --input "$out/licenses.txt" --output-prefix "$out/licenses" \
  --tokenizer-type SentencePieceTokenizer --tokenizer-model "$out/spm.model" --append-eod

echo "== compile t5-tiny into a plan"
python3 "$root/examples/gen_t5.py" "$out" t5-tiny
"$build/bin/mtc" "$out/t5-tiny.mlir" --micro-batch-size=8 --encoder-seq-length=128 \
  --decoder-seq-length=32 --train-iters="$iters" --lr=2e-3 --min-lr=2e-4 --lr-warmup-iters=30 \
  --seed=1234 -o "$out/t5-tiny.plan"

echo "== train"
"$build/bin/mt-run" "$out/t5-tiny.plan" --data "$out/licenses_text_document" \
  --tokenizer-model "$out/spm.model" --vocab-extra-ids 100 --eval-interval=50 --eval-iters=4 \
  --log-interval=10 --log-dir "$out"
echo "log: $out/train.log, loss curve: $out/loss.svg"
