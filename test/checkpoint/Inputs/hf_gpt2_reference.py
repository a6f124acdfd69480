"""An independent check of an exported Hugging Face GPT-2 directory.

Reads model.safetensors with its own parser (the published format: an 8-byte
little-endian header length, a JSON header, then the tensors) and
config.json, builds GPT2LMHeadModel's forward pass as Hugging Face defines it
(Conv1D layers computing x @ W + b with W stored [in, out], gelu_new, a
causal mask, lm_head tied to wte), and computes the loss of the first step
an `mt-run --load ... --record DIR` run recorded, from its own micro-batches.
That step ran on the checkpoint's parameters, so the two losses must agree.

Usage: hf_gpt2_reference.py HF_DIR RECORD_DIR [--tolerance 1e-5]
"""
import argparse
import json
import math
import struct
import sys

import torch
import torch.nn.functional as F


def read_safetensors(path):
    data = open(path, "rb").read()
    (n,) = struct.unpack("<Q", data[:8])
    header = json.loads(data[8:8 + n].decode("utf-8"))
    header.pop("__metadata__", None)
    base = 8 + n
    tensors = {}
    for name, info in header.items():
        assert info["dtype"] == "F32", (name, info["dtype"])
        begin, end = info["data_offsets"]
        raw = bytearray(data[base + begin:base + end])
        tensors[name] = torch.frombuffer(raw, dtype=torch.float32).reshape(info["shape"]).clone()
    return tensors


def gelu_new(x):
    return 0.5 * x * (1.0 + torch.tanh(math.sqrt(2.0 / math.pi) * (x + 0.044715 * torch.pow(x, 3.0))))


def gpt2_logits(t, cfg, tokens):
    b, s = tokens.shape
    hidden, heads = cfg["n_embd"], cfg["n_head"]
    hd = hidden // heads
    eps = cfg["layer_norm_epsilon"]
    act = gelu_new if cfg["activation_function"] == "gelu_new" else F.gelu
    h = t["transformer.wte.weight"][tokens] + t["transformer.wpe.weight"][:s]
    causal = torch.ones(s, s, dtype=torch.bool).tril()
    for l in range(cfg["n_layer"]):
        p = lambda name: t[f"transformer.h.{l}.{name}"]
        a = F.layer_norm(h, (hidden,), p("ln_1.weight"), p("ln_1.bias"), eps)
        qkv = a @ p("attn.c_attn.weight") + p("attn.c_attn.bias")
        q, k, v = qkv.split(hidden, dim=-1)
        q, k, v = (x.reshape(b, s, heads, hd).transpose(1, 2) for x in (q, k, v))
        scores = (q @ k.transpose(-1, -2)) / math.sqrt(hd)
        probs = scores.masked_fill(~causal, float("-inf")).softmax(-1)
        ctx = (probs @ v).transpose(1, 2).reshape(b, s, hidden)
        h = h + ctx @ p("attn.c_proj.weight") + p("attn.c_proj.bias")
        m = F.layer_norm(h, (hidden,), p("ln_2.weight"), p("ln_2.bias"), eps)
        h = h + act(m @ p("mlp.c_fc.weight") + p("mlp.c_fc.bias")) @ p("mlp.c_proj.weight") + p("mlp.c_proj.bias")
    y = F.layer_norm(h, (hidden,), t["transformer.ln_f.weight"], t["transformer.ln_f.bias"], eps)
    return y @ t["transformer.wte.weight"].T


def load(path, shape, dtype):
    return torch.frombuffer(bytearray(open(path, "rb").read()), dtype=dtype).reshape(shape).clone()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("hf_dir")
    ap.add_argument("record")
    ap.add_argument("--tolerance", type=float, default=1e-5)
    args = ap.parse_args()
    torch.set_num_threads(1)
    tensors = read_safetensors(f"{args.hf_dir}/model.safetensors")
    cfg = json.load(open(f"{args.hf_dir}/config.json"))
    assert tensors["transformer.wte.weight"].shape[0] == cfg["vocab_size"], "vocabulary padding left in"
    m = json.load(open(f"{args.record}/manifest.json"))
    shape = (m["micro_batch_size"], m["seq_length"])
    micro = m["global_batch_size"] // m["micro_batch_size"]
    total = 0.0
    with torch.no_grad():
        for k in range(micro):
            base = f"{args.record}/batches/{k}"
            tokens = load(base + ".tokens.i32", shape, torch.int32).long()
            labels = load(base + ".labels.i32", shape, torch.int32).long()
            mask = load(base + ".mask.f32", shape, torch.float32)
            logits = gpt2_logits(tensors, cfg, tokens)
            nll = F.cross_entropy(logits.reshape(-1, logits.shape[-1]), labels.reshape(-1), reduction="none")
            total += float((nll * mask.reshape(-1)).sum() / mask.sum())
    ours = float(open(f"{args.record}/losses.txt").readline().split()[0])
    theirs = total / micro
    rel = abs(theirs - ours) / abs(theirs)
    print(f"loss from the exported files: {theirs:.9f}, mt-run: {ours:.9f}, relative difference {rel:.2e}")
    if rel > args.tolerance:
        print("MISMATCH")
        sys.exit(1)
    print("the exported model computes what mt-run trained")


if __name__ == "__main__":
    main()
