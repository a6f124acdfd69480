#!/usr/bin/env bash
# Regenerates the fuzzers' seed corpora in fuzz/corpus from small real
# inputs made by this checkout's tools (build/: scripts/build.sh first).
# The seeds are committed; this records how they were made.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
bin="$root/build/bin"
corpus="$root/fuzz/corpus"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

# pack A B OUT: one input holding two files (FuzzFiles.h, splitInTwo).
pack() { python3 -c "
import struct, sys
a, b = open(sys.argv[1], 'rb').read(), open(sys.argv[2], 'rb').read()
open(sys.argv[3], 'wb').write(struct.pack('<I', len(a)) + a + b)" "$@"; }

# Indexed datasets: uint16 from GPT-2 ids, and the text of a license.
mkdir -p "$corpus/indexed_dataset"
"$bin/mt-data" --input "$root/test/data/Inputs/small.jsonl" --output-prefix "$work/small" --append-eod > /dev/null
pack "$work/small_text_document.idx" "$work/small_text_document.bin" "$corpus/indexed_dataset/small"
head -c 3000 /usr/share/common-licenses/GPL-3 > "$work/gpl.txt"
"$bin/mt-data" --input "$work/gpl.txt" --output-prefix "$work/gpl" > /dev/null
pack "$work/gpl_text_document.idx" "$work/gpl_text_document.bin" "$corpus/indexed_dataset/gpl"

# Plans: a tiny GPT's plan payload with its native code dropped (the
# verifier checks everything else), unsharded and tp=2 pp=2.
mkdir -p "$corpus/plan"
python3 "$root/examples/gen_gpt.py" "$work" gpt-micro > /dev/null
for layout in "1 1" "2 2"; do
  read -r tp pp <<< "$layout"
  "$bin/mtc" "$work/gpt-micro.mlir" -O0 --micro-batch-size=2 --seq-length=8 --global-batch-size=4 \
    --train-iters=2 --tp="$tp" --pp="$pp" -o "$work/plan"
  tail -c +33 "$work/plan" | protoc -I"$root/lib/Plan" --decode=mt.plan.Plan "$root/lib/Plan/plan.proto" |
    sed 's/^\( *data: \).*/\1""/' |
    protoc -I"$root/lib/Plan" --encode=mt.plan.Plan "$root/lib/Plan/plan.proto" > "$corpus/plan/tp${tp}pp${pp}"
done
# ... and a whole plan file (the 'R' mode: header checks), truncated.
{ printf R; head -c 4096 "$work/plan"; } > "$corpus/plan/raw-truncated"

# A checkpoint of that GPT: manifest payload and rank file.
mkdir -p "$corpus/checkpoint"
python3 "$root/test/mt-run/Inputs/make_tokens.py" "$work/data.tokens" 64
"$bin/mtc" "$work/gpt-micro.mlir" -O0 --micro-batch-size=2 --seq-length=8 --global-batch-size=4 \
  --train-iters=1 -o "$work/plan1"
"$bin/mt-run" "$work/plan1" --data "$work/data.tokens" --save "$work/ckpt" > /dev/null
tail -c +33 "$work/ckpt/iter_0000001/manifest.pb" > "$work/manifest"
pack "$work/manifest" "$work/ckpt/iter_0000001/rank_00000.bin" "$corpus/checkpoint/gpt-micro"

# safetensors: one tensor of each dtype the reader widens.
mkdir -p "$corpus/safetensors"
python3 - "$corpus/safetensors" <<'PY'
import json, struct, sys
def write(path, tensors, meta=None):
    header, data = {}, b""
    for name, (dtype, shape, raw) in tensors.items():
        header[name] = {"dtype": dtype, "shape": shape, "data_offsets": [len(data), len(data) + len(raw)]}
        data += raw
    if meta:
        header["__metadata__"] = meta
    h = json.dumps(header).encode()
    open(path, "wb").write(struct.pack("<Q", len(h)) + h + data)
write(sys.argv[1] + "/f32", {"wte.weight": ("F32", [2, 3], struct.pack("<6f", *range(6)))}, {"format": "pt"})
write(sys.argv[1] + "/mixed", {"a": ("F16", [4], struct.pack("<4e", 1, -2, 0.5, 65504)),
                               "b": ("BF16", [2], b"\x80\x3f\x00\xc0"),
                               "c": ("F64", [1, 1], struct.pack("<d", 3.25)),
                               "d": ("I64", [2], struct.pack("<2q", 7, -7))})
PY

# Text for GPT-2's tokenizer.
mkdir -p "$corpus/gpt2_tokenizer"
head -c 600 /usr/share/common-licenses/GPL-3 > "$corpus/gpt2_tokenizer/english"
printf "  Hello,\tworld!\n\n's 're 123 4.5e6 日本語 émigré 😀 \xff\xfe bad bytes" > "$corpus/gpt2_tokenizer/mixed"

# Models in the mt dialect.
mkdir -p "$corpus/mt_dialect"
cp "$work/gpt-micro.mlir" "$corpus/mt_dialect/gpt-micro.mlir"
cp "$root/test/gradcheck/tensor-ops.mlir" "$root/test/gradcheck/add-layer-norm.mlir" "$corpus/mt_dialect/"
ls "$corpus"/* | head -50
