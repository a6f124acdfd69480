"""Replays an `mt-run --record DIR` run of a GPT-2-style model in PyTorch and
compares: the first step's loss and every parameter gradient, then the loss of
every AdamW step. The model is rebuilt from its definition (gen_gpt.py's
layout), not from mtc's output, so this is an independent check.

Usage: torch_gpt.py DIR LAYERS HEADS [--tolerance 1e-5]
"""
import math
import os
import sys

import torch
import torch.nn.functional as F

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from replay import load, replay  # noqa: E402


def gpt_loss(p, tokens, labels, mask, layers, heads):
    b, s = tokens.shape
    h = p["wte"][tokens] + p["wpe"][:s]
    hidden = h.shape[-1]
    hd = hidden // heads
    causal = torch.ones(s, s, dtype=torch.bool).tril()
    for l in range(layers):
        a = F.layer_norm(h, (hidden,), p["h.ln_1.weight"][l], p["h.ln_1.bias"][l], 1e-5)
        qkv = a @ p["h.attn.qkv.weight"][l].T + p["h.attn.qkv.bias"][l]
        q, k, v = qkv.split(hidden, dim=-1)
        q, k, v = (t.reshape(b, s, heads, hd).transpose(1, 2) for t in (q, k, v))
        scores = (q @ k.transpose(-1, -2)) * (1.0 / math.sqrt(hd))
        probs = scores.masked_fill(~causal, float("-inf")).softmax(-1)
        ctx = (probs @ v).transpose(1, 2).reshape(b, s, hidden)
        h = h + ctx @ p["h.attn.proj.weight"][l].T + p["h.attn.proj.bias"][l]
        m = F.layer_norm(h, (hidden,), p["h.ln_2.weight"][l], p["h.ln_2.bias"][l], 1e-5)
        f = F.gelu(m @ p["h.mlp.fc.weight"][l].T + p["h.mlp.fc.bias"][l], approximate="tanh")
        h = h + f @ p["h.mlp.proj.weight"][l].T + p["h.mlp.proj.bias"][l]
    y = F.layer_norm(h, (hidden,), p["ln_f.weight"], p["ln_f.bias"], 1e-5)
    logits = y @ p["wte"].T
    nll = F.cross_entropy(logits.reshape(-1, logits.shape[-1]), labels.reshape(-1).long(), reduction="none")
    return (nll * mask.reshape(-1)).sum() / mask.sum()


def main():
    replay(lambda p, tokens, labels, mask, a: gpt_loss(p, tokens, labels, mask, a.layers, a.heads),
           [("layers", int), ("heads", int)])


if __name__ == "__main__":
    main()
