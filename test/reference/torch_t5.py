"""Replays an `mt-run --record DIR` run of a T5 model (gen_t5.py's layout) in
PyTorch, written as the T5 paper and Hugging Face's T5ForConditionalGeneration
define it: one shared embedding; encoder and decoder stacks of pre-norm
layers with T5's RMS layer norm (eps 1e-6, no mean, no bias); attention
without biases or 1/sqrt(d) scaling, over the keys the encoder's padding mask
keeps (the decoder's self-attention is causal); a relative position bias of
each stack's first layer shared by all its layers (Hugging Face's
_relative_position_bucket, computed here in torch); ReLU feed-forward (v1.0:
the output tied to the embedding after scaling by d_model^-0.5) or gated GeLU
(v1.1, --v1_1: an untied lm_head). The loss is the mean cross-entropy over the
loss mask.

Usage: torch_t5.py DIR LAYERS HEADS [--v1_1] [--tolerance 1e-5]
"""
import math
import os
import sys

import torch
import torch.nn.functional as F

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from replay import replay  # noqa: E402

INPUTS = ("padding_mask", "decoder_tokens")
BUCKETS, MAX_DISTANCE = 32, 128


def relative_bucket(relative, bidirectional):
    """Hugging Face's T5Attention._relative_position_bucket."""
    buckets, n = torch.zeros_like(relative), BUCKETS
    if bidirectional:
        n //= 2
        buckets += (relative > 0).long() * n
        relative = relative.abs()
    else:
        relative = -torch.min(relative, torch.zeros_like(relative))
    exact = n // 2
    large = exact + (torch.log(relative.float() / exact) / math.log(MAX_DISTANCE / exact)
                     * (n - exact)).long()
    large = torch.min(large, torch.full_like(large, n - 1))
    return buckets + torch.where(relative < exact, relative, large)


def position_bias(table, queries, keys, bidirectional):
    context = torch.arange(queries)[:, None]
    memory = torch.arange(keys)[None, :]
    buckets = relative_bucket(memory - context, bidirectional)
    return table[buckets].permute(2, 0, 1)[None]  # [1, heads, q, k]


def rms(x, weight):
    return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + 1e-6) * weight


def attention(x, kv, w, prefix, heads, bias, hide):
    b, sq, _ = x.shape
    sk = kv.shape[1]
    q = x @ w(prefix + ".q.weight").T
    k = kv @ w(prefix + ".k.weight").T
    v = kv @ w(prefix + ".v.weight").T
    d_kv = q.shape[-1] // heads
    split = lambda t, s: t.reshape(b, s, heads, d_kv).transpose(1, 2)
    scores = split(q, sq) @ split(k, sk).transpose(-1, -2)
    if bias is not None:
        scores = scores + bias
    probs = scores.masked_fill(hide, float("-inf")).softmax(-1)
    ctx = (probs @ split(v, sk)).transpose(1, 2).reshape(b, sq, heads * d_kv)
    return ctx @ w(prefix + ".o.weight").T


def feed_forward(x, w, prefix, gated):
    if gated:
        g = F.gelu(x @ w(prefix + ".wi_0.weight").T, approximate="tanh")
        return (g * (x @ w(prefix + ".wi_1.weight").T)) @ w(prefix + ".wo.weight").T
    return F.relu(x @ w(prefix + ".wi.weight").T) @ w(prefix + ".wo.weight").T


def t5_logits(p, tokens, decoder_tokens, padding_mask, layers, heads, gated):
    """The decoder's logits [batch, decoder seq, vocab]."""
    keep = padding_mask.bool()[:, None, None, :]
    se, sd = tokens.shape[1], decoder_tokens.shape[1]
    h = p["shared.weight"][tokens]
    bias = position_bias(p["encoder.block.0.layer.0.SelfAttention.relative_attention_bias.weight"],
                         se, se, True)
    for l in range(layers):
        w = lambda name: p["encoder.block." + name][l]
        h = h + attention(rms(h, w("layer.0.layer_norm.weight")), rms(h, w("layer.0.layer_norm.weight")),
                          w, "layer.0.SelfAttention", heads, bias, ~keep)
        h = h + feed_forward(rms(h, w("layer.1.layer_norm.weight")), w, "layer.1.DenseReluDense", gated)
    encoded = rms(h, p["encoder.final_layer_norm.weight"])
    y = p["shared.weight"][decoder_tokens]
    bias = position_bias(p["decoder.block.0.layer.0.SelfAttention.relative_attention_bias.weight"],
                         sd, sd, False)
    causal = torch.ones(sd, sd, dtype=torch.bool).triu(1)[None, None]
    for l in range(layers):
        w = lambda name: p["decoder.block." + name][l]
        n = rms(y, w("layer.0.layer_norm.weight"))
        y = y + attention(n, n, w, "layer.0.SelfAttention", heads, bias, causal)
        y = y + attention(rms(y, w("layer.1.layer_norm.weight")), encoded, w,
                          "layer.1.EncDecAttention", heads, None, ~keep)
        y = y + feed_forward(rms(y, w("layer.2.layer_norm.weight")), w, "layer.2.DenseReluDense", gated)
    out = rms(y, p["decoder.final_layer_norm.weight"])
    if gated:
        logits = out @ p["lm_head.weight"].T
    else:
        logits = (out * out.shape[-1] ** -0.5) @ p["shared.weight"].T
    return logits


def t5_loss(p, tokens, labels, mask, inputs, layers, heads, gated):
    logits = t5_logits(p, tokens, inputs["decoder_tokens"], inputs["padding_mask"], layers, heads,
                       gated)
    nll = F.cross_entropy(logits.reshape(-1, logits.shape[-1]), labels.reshape(-1).long(),
                          reduction="none")
    return (nll * mask.reshape(-1)).sum() / mask.sum()


def main():
    gated = "--v1_1" in sys.argv
    if gated:
        sys.argv.remove("--v1_1")
    replay(lambda p, tokens, labels, mask, inputs, a: t5_loss(p, tokens, labels, mask, inputs,
                                                              a.layers, a.heads, gated),
           [("layers", int), ("heads", int)], batch_inputs=INPUTS,
           decoder_inputs=("decoder_tokens",))


if __name__ == "__main__":
    main()
