"""An independent check of exported Hugging Face BERT, MegatronBert and T5
files: read with hf_files.py's own safetensors code, each layer's tensors
stacked by transformers' names (MegatronBert's attention.ln, ln and
encoder.ln named as the pre-LN layers they are), and the loss of the first
step an `mt-run --load ... --record DIR` run recorded computed from its own
micro-batches by the PyTorch models of test/reference (written from the
papers' and transformers' definitions). That step ran on the checkpoint's
parameters, so the two losses must agree.

  check FAMILY HF_DIR RECORD LAYERS HEADS   FAMILY: bert, megatron-bert, t5, t5-v1_1
  reshard SRC DST --dtype f16 --shards 3    the files rewritten by this
        writer: another dtype, shards with an index, state_dict order
"""
import argparse
import json
import os
import re
import shutil
import sys

import torch

here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, here)
sys.path.insert(0, os.path.join(here, "..", "..", "reference"))
from hf_files import read_model, write_model  # noqa: E402
from replay import load  # noqa: E402
import torch_bert  # noqa: E402
import torch_t5  # noqa: E402

STACKS = r"^(bert\.encoder\.layer|encoder\.block|decoder\.block)\.(\d+)\.(.*)$"
MEGATRON = [(r"^attention\.ln\.", "input_layernorm."), (r"^ln\.", "post_attention_layernorm.")]


def stacked(tensors, megatron):
    """name -> tensor, each stack's layers as one tensor [layers, ...]."""
    layers, out = {}, {}
    for name, t in tensors.items():
        m = re.match(STACKS, name)
        if not m:
            out[name] = t
            continue
        rest = m.group(3)
        for pattern, ours in MEGATRON if megatron else []:
            rest = re.sub(pattern, ours, rest)
        layers.setdefault(f"{m.group(1)}.{rest}", {})[int(m.group(2))] = t
        if "relative_attention_bias" in rest:
            out[name] = t  # each stack's block 0 holds it
    for name, by_layer in layers.items():
        out[name] = torch.stack([by_layer[i] for i in sorted(by_layer)])
    if megatron:
        for part in ("weight", "bias"):
            out[f"bert.encoder.final_layernorm.{part}"] = out.pop(f"bert.encoder.ln.{part}")
    return out


def check(args):
    tensors = read_model(args.hf_dir)
    bert = args.family in ("bert", "megatron-bert")
    assert not any(n.startswith("cls.predictions.decoder") or n.endswith("embed_tokens.weight")
                   for n in tensors), "tied copies written"
    p = stacked(tensors, args.family == "megatron-bert")
    m = json.load(open(f"{args.record}/manifest.json"))
    shape = (m["micro_batch_size"], m["seq_length"])
    target = (m["micro_batch_size"], m.get("decoder_seq_length") or m["seq_length"])
    micro = m["global_batch_size"] // m["micro_batch_size"]
    inputs_of = torch_bert.INPUTS if bert else torch_t5.INPUTS
    total = 0.0
    with torch.no_grad():
        for k in range(micro):
            base = f"{args.record}/batches/{k}"
            tokens = load(base + ".tokens.i32", shape, torch.int32).long()
            labels = load(base + ".labels.i32", target, torch.int32)
            mask = load(base + ".mask.f32", target)
            inputs = {n: load(f"{base}.{n}.i32", target if n == "decoder_tokens" else shape,
                              torch.int32).long() for n in inputs_of}
            if bert:
                loss = torch_bert.bert_loss(p, tokens, labels, mask, inputs, args.layers, args.heads,
                                            args.family == "megatron-bert")
            else:
                loss = torch_t5.t5_loss(p, tokens, labels, mask, inputs, args.layers, args.heads,
                                        args.family == "t5-v1_1")
            total += float(loss)
    ours = float(open(f"{args.record}/losses.txt").readline().split()[0])
    theirs = total / micro
    rel = abs(theirs - ours) / abs(theirs)
    print(f"loss from the exported files: {theirs:.9f}, mt-run: {ours:.9f}, relative difference {rel:.2e}")
    if rel > args.tolerance:
        print("MISMATCH")
        sys.exit(1)
    print("the exported model computes what mt-run trained")


def reshard(args):
    tensors = read_model(args.src)
    os.makedirs(args.dst, exist_ok=True)
    shutil.copy(os.path.join(args.src, "config.json"), os.path.join(args.dst, "config.json"))
    n = write_model(args.dst, tensors, args.dtype, args.shards)
    print(f"wrote {len(tensors)} tensors in {n} shards")


def main():
    torch.set_num_threads(1)
    ap = argparse.ArgumentParser()
    sub = ap.add_subparsers(dest="cmd", required=True)
    c = sub.add_parser("check")
    c.add_argument("family", choices=["bert", "megatron-bert", "t5", "t5-v1_1"])
    c.add_argument("hf_dir")
    c.add_argument("record")
    c.add_argument("layers", type=int)
    c.add_argument("heads", type=int)
    c.add_argument("--tolerance", type=float, default=1e-5)
    r = sub.add_parser("reshard")
    r.add_argument("src")
    r.add_argument("dst")
    r.add_argument("--dtype", default="F16", type=str.upper)
    r.add_argument("--shards", type=int, default=3)
    args = ap.parse_args()
    check(args) if args.cmd == "check" else reshard(args)


if __name__ == "__main__":
    main()
