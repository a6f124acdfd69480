#!/usr/bin/env bash
# BERT trained on the CPU on the demo's text (issue #23): set up and build,
# build a 2048-token WordPiece vocabulary from the license texts of
# /usr/share/common-licenses (scripts/build-wordpiece-vocab.py), split them
# into sentences and tokenize them into a Megatron indexed dataset
# (mt-data --split-sentences --tokenizer-type BertWordPieceLowerCase), then
# compile bert-tiny (post-LN, padding mask, masked-LM and sentence-order
# heads) and train it on BERT samples (two segments, 15% whole-word masking).
# Log and loss curve in build/bert. MT_BERT_ITERS sets the steps (600).
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
bash "$root/scripts/build.sh"
build="${MT_BUILD_DIR:-$root/build}"
out="$build/bert"
iters="${MT_BERT_ITERS:-600}"
mkdir -p "$out"

echo "== bert-base-uncased, as the compiler sees it"
"$build/bin/mtc" "$root/examples/bert-base.mlir" --summary | tail -n 1

echo "== corpus and vocabulary: the license texts, a WordPiece vocabulary built from them"
bash "$root/scripts/licenses-corpus.sh" "$out/licenses.txt"
python3 "$root/scripts/build-wordpiece-vocab.py" "$out/licenses.txt" 2048 "$out/vocab.txt"
"$build/bin/mt-data" --input "$out/licenses.txt" --output-prefix "$out/licenses" \
  --split-sentences --tokenizer-type BertWordPieceLowerCase --vocab-file "$out/vocab.txt"

echo "== compile bert-tiny into a plan"
python3 "$root/examples/gen_bert.py" "$out" bert-tiny
"$build/bin/mtc" "$out/bert-tiny.mlir" --micro-batch-size=8 --seq-length=128 \
  --train-iters="$iters" --lr=2e-3 --min-lr=2e-4 --lr-warmup-iters=30 --seed=1234 \
  -o "$out/bert-tiny.plan"

echo "== train"
"$build/bin/mt-run" "$out/bert-tiny.plan" --data "$out/licenses_text_document" \
  --vocab-file "$out/vocab.txt" --eval-interval=50 --eval-iters=4 --log-interval=10 \
  --log-dir "$out"
echo "log: $out/train.log, loss curve: $out/loss.svg"
