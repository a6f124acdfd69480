"""Replays an `mt-run --record DIR` run of a Llama-style model (gen_llama.py's
layout) in PyTorch, written as Meta's reference code defines the model:
RMSNorm (x * rsqrt(mean(x^2) + eps) * w), rotary embeddings applied to
consecutive pairs of each head's features as complex rotations by
position * theta^(-2i/d), key/value heads repeated for grouped-query
attention, the SwiGLU MLP w2(silu(w1 x) * w3 x), no biases, an untied output
layer; or ALiBi biases (Press et al.) instead of rotary embeddings.

Usage: torch_llama.py DIR LAYERS HEADS KV_HEADS [--alibi] [--tolerance 1e-5]
"""
import math
import os
import sys

import torch
import torch.nn.functional as F

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from replay import replay  # noqa: E402


def rms_norm(x, w, eps=1e-5):
    return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + eps) * w


def rotary(x, theta=10000.0):
    """x [b, heads, s, d]: pairs (x[2i], x[2i+1]) rotated as Meta's apply_rotary_emb."""
    b, h, s, d = x.shape
    freqs = 1.0 / (theta ** (torch.arange(0, d, 2)[: d // 2].float() / d))
    angles = torch.outer(torch.arange(s).float(), freqs)
    cis = torch.polar(torch.ones_like(angles), angles)
    xc = torch.view_as_complex(x.float().reshape(b, h, s, d // 2, 2))
    return torch.view_as_real(xc * cis).reshape(b, h, s, d)


def alibi_slopes(n):
    def power_of_2(n):
        start = 2 ** (-(2 ** -(math.log2(n) - 3)))
        return [start * start ** i for i in range(n)]
    if math.log2(n).is_integer():
        return power_of_2(n)
    closest = 2 ** math.floor(math.log2(n))
    return power_of_2(closest) + alibi_slopes(2 * closest)[0::2][: n - closest]


def llama_loss(p, tokens, labels, mask, layers, heads, kv_heads, alibi):
    b, s = tokens.shape
    h = p["embed_tokens.weight"][tokens]
    hidden = h.shape[-1]
    hd = hidden // heads
    rep = heads // kv_heads
    causal = torch.ones(s, s, dtype=torch.bool).tril()
    # Press et al. (and BLOOM, MPT): m_h * (j - i) added to q.k / sqrt(d).
    key_minus_query = (torch.arange(s)[None, :] - torch.arange(s)[:, None]).float()
    slopes = torch.tensor(alibi_slopes(heads))[:, None, None]
    for l in range(layers):
        w = lambda name: p[f"layers.{name}"][l]
        a = rms_norm(h, w("input_layernorm.weight"))
        q = (a @ w("self_attn.q_proj.weight").T).reshape(b, s, heads, hd).transpose(1, 2)
        k = (a @ w("self_attn.k_proj.weight").T).reshape(b, s, kv_heads, hd).transpose(1, 2)
        v = (a @ w("self_attn.v_proj.weight").T).reshape(b, s, kv_heads, hd).transpose(1, 2)
        if not alibi:
            q, k = rotary(q), rotary(k)
        k = k.repeat_interleave(rep, dim=1)
        v = v.repeat_interleave(rep, dim=1)
        scores = (q @ k.transpose(-1, -2)) / math.sqrt(hd)
        if alibi:
            scores = scores + slopes * key_minus_query
        probs = scores.masked_fill(~causal, float("-inf")).softmax(-1)
        ctx = (probs @ v).transpose(1, 2).reshape(b, s, hidden)
        h = h + ctx @ w("self_attn.o_proj.weight").T
        m = rms_norm(h, w("post_attention_layernorm.weight"))
        gate = F.silu(m @ w("mlp.gate_proj.weight").T) * (m @ w("mlp.up_proj.weight").T)
        h = h + gate @ w("mlp.down_proj.weight").T
    logits = rms_norm(h, p["norm.weight"]) @ p["lm_head.weight"].T
    nll = F.cross_entropy(logits.reshape(-1, logits.shape[-1]), labels.reshape(-1).long(), reduction="none")
    return (nll * mask.reshape(-1)).sum() / mask.sum()


def main():
    alibi = "--alibi" in sys.argv
    if alibi:
        sys.argv.remove("--alibi")
    replay(lambda p, tokens, labels, mask, a: llama_loss(p, tokens, labels, mask, a.layers,
                                                         a.heads, a.kv_heads, alibi),
           [("layers", int), ("heads", int), ("kv_heads", int)])


if __name__ == "__main__":
    main()
