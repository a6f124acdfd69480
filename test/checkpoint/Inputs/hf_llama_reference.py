"""An independent check of Hugging Face Llama files, written from
transformers' definitions, not from mt's code.

Reads and writes safetensors with its own code (an 8-byte little-endian
header length, a JSON header, the tensors), model.safetensors or the shards
model.safetensors.index.json maps, in F32, BF16 or F16. The forward pass is
LlamaForCausalLM's: RMSNorm, rotary embeddings applied with rotate_half
(pairs (i, i + d/2), inv_freq = rope_theta^(-2i/d)), key/value heads repeated
for grouped-query attention, a causal softmax, SwiGLU, lm_head (or the
embedding when tie_word_embeddings).

  write DIR --dtype bf16 --shards 3 [--tied]   random weights of a micro
        Llama (2 layers, hidden 16, 4 heads over 2 key/value heads, ffn 40,
        vocabulary 64) in transformers' layout, sharded with an index
  logits DIR LOGITS.f32 "IDS"                  the forward pass over the
        prompt against mt-generate --dump-logits (relative 1e-5)
"""
import argparse
import json
import math
import os
import sys

import torch
import torch.nn.functional as F

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from hf_files import read_model, write_model  # noqa: E402

def rms_norm(x, w, eps):
    return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + eps) * w


def rotate_half(x):
    half = x.shape[-1] // 2
    return torch.cat((-x[..., half:], x[..., :half]), dim=-1)


def forward(t, cfg, tokens):
    b, s = tokens.shape
    hidden, heads = cfg["hidden_size"], cfg["num_attention_heads"]
    kv = cfg.get("num_key_value_heads", heads)
    d = hidden // heads
    eps, theta = cfg["rms_norm_eps"], cfg.get("rope_theta", 10000.0)
    pre = "model." if "model.embed_tokens.weight" in t else ""
    inv_freq = 1.0 / (theta ** (torch.arange(0, d, 2, dtype=torch.float64) / d))
    angles = torch.outer(torch.arange(s, dtype=torch.float64), inv_freq)
    emb = torch.cat((angles, angles), dim=-1)
    cos, sin = emb.cos().float(), emb.sin().float()
    causal = torch.ones(s, s, dtype=torch.bool).tril()
    h = t[pre + "embed_tokens.weight"][tokens]
    for l in range(cfg["num_hidden_layers"]):
        p = lambda name: t[f"{pre}layers.{l}.{name}"]
        x = rms_norm(h, p("input_layernorm.weight"), eps)
        q = (x @ p("self_attn.q_proj.weight").T).reshape(b, s, heads, d).transpose(1, 2)
        k = (x @ p("self_attn.k_proj.weight").T).reshape(b, s, kv, d).transpose(1, 2)
        v = (x @ p("self_attn.v_proj.weight").T).reshape(b, s, kv, d).transpose(1, 2)
        q = q * cos + rotate_half(q) * sin
        k = k * cos + rotate_half(k) * sin
        k = k.repeat_interleave(heads // kv, dim=1)
        v = v.repeat_interleave(heads // kv, dim=1)
        scores = (q @ k.transpose(-1, -2)) / math.sqrt(d)
        probs = scores.masked_fill(~causal, float("-inf")).softmax(-1)
        ctx = (probs @ v).transpose(1, 2).reshape(b, s, hidden)
        h = h + ctx @ p("self_attn.o_proj.weight").T
        x = rms_norm(h, p("post_attention_layernorm.weight"), eps)
        gate = F.silu(x @ p("mlp.gate_proj.weight").T) * (x @ p("mlp.up_proj.weight").T)
        h = h + gate @ p("mlp.down_proj.weight").T
    y = rms_norm(h, t[pre + "norm.weight"], eps)
    head = t[pre + "embed_tokens.weight"] if cfg.get("tie_word_embeddings", False) else t["lm_head.weight"]
    return y @ head.T


def write(args):
    torch.manual_seed(args.seed)
    layers, hidden, heads, kv, ffn, vocab = 2, 16, 4, 2, 40, 64
    d = hidden // heads
    tensors = {"model.embed_tokens.weight": torch.randn(vocab, hidden) * 0.5}
    for l in range(layers):
        p = f"model.layers.{l}."
        tensors[p + "input_layernorm.weight"] = 1 + 0.1 * torch.randn(hidden)
        tensors[p + "self_attn.q_proj.weight"] = torch.randn(hidden, hidden) * 0.4
        tensors[p + "self_attn.k_proj.weight"] = torch.randn(kv * d, hidden) * 0.4
        tensors[p + "self_attn.v_proj.weight"] = torch.randn(kv * d, hidden) * 0.3
        tensors[p + "self_attn.o_proj.weight"] = torch.randn(hidden, hidden) * 0.3
        tensors[p + "post_attention_layernorm.weight"] = 1 + 0.1 * torch.randn(hidden)
        tensors[p + "mlp.gate_proj.weight"] = torch.randn(ffn, hidden) * 0.3
        tensors[p + "mlp.up_proj.weight"] = torch.randn(ffn, hidden) * 0.3
        tensors[p + "mlp.down_proj.weight"] = torch.randn(hidden, ffn) * 0.3
    tensors["model.norm.weight"] = 1 + 0.1 * torch.randn(hidden)
    if not args.tied:
        tensors["lm_head.weight"] = torch.randn(vocab, hidden) * 0.3
    cfg = {"architectures": ["LlamaForCausalLM"], "model_type": "llama", "hidden_size": hidden,
           "intermediate_size": ffn, "num_hidden_layers": layers, "num_attention_heads": heads,
           "num_key_value_heads": kv, "rms_norm_eps": 1e-05, "rope_theta": 10000.0,
           "hidden_act": "silu", "max_position_embeddings": 2048, "tie_word_embeddings": args.tied,
           "vocab_size": vocab, "torch_dtype": {"BF16": "bfloat16", "F16": "float16"}.get(args.dtype, "float32")}
    os.makedirs(args.dir, exist_ok=True)
    json.dump(cfg, open(os.path.join(args.dir, "config.json"), "w"), indent=2)
    groups = write_model(args.dir, tensors, args.dtype, args.shards)
    print(f"wrote {len(tensors)} tensors in {groups} shards")


def logits(args):
    cfg = json.load(open(os.path.join(args.dir, "config.json")))
    t = read_model(args.dir)
    ids = torch.tensor([[int(x) for x in args.ids.split()]])
    with torch.no_grad():
        theirs = forward(t, cfg, ids)[0]
    raw = bytearray(open(args.dump, "rb").read())
    ours = torch.frombuffer(raw, dtype=torch.float32).reshape(-1, theirs.shape[-1])
    assert ours.shape == theirs.shape, (ours.shape, theirs.shape)
    rel = float((ours - theirs).abs().max() / theirs.abs().max())
    print(f"logits of {ours.shape[0]} positions, relative difference {rel:.2e}")
    if rel > args.tolerance:
        print("MISMATCH")
        sys.exit(1)
    print("the files give mt's logits")


def main():
    torch.set_num_threads(1)
    ap = argparse.ArgumentParser()
    sub = ap.add_subparsers(dest="cmd", required=True)
    w = sub.add_parser("write")
    w.add_argument("dir")
    w.add_argument("--dtype", default="BF16", type=str.upper)
    w.add_argument("--shards", type=int, default=3)
    w.add_argument("--seed", type=int, default=0)
    w.add_argument("--tied", action="store_true")
    g = sub.add_parser("logits")
    g.add_argument("dir")
    g.add_argument("dump")
    g.add_argument("ids")
    g.add_argument("--tolerance", type=float, default=1e-5)
    args = ap.parse_args()
    write(args) if args.cmd == "write" else logits(args)


if __name__ == "__main__":
    main()
