"""Replays an `mt-run --record DIR` run of a BERT model (gen_bert.py's layout)
in PyTorch, written as the BERT paper and Hugging Face's BertForPreTraining
define it: word + position + token-type embeddings and a layer norm over
them, post-LN encoder layers (attention over the keys the padding mask
keeps, exact GeLU MLP), the masked-LM head (dense, GeLU, layer norm, the
word embeddings tied, a bias) and the sentence-order head on the pooled
FIRST token (dense + tanh on hidden[:, 0], then Linear(hidden, 2)). The loss
is Megatron's: mean cross-entropy over the masked positions plus the
sentence-order cross-entropy. With --megatron, Megatron-LM's pre-LN layers,
a final layer norm and no embedding layer norm (eps 1e-5 instead of 1e-12).

Usage: torch_bert.py DIR LAYERS HEADS [--megatron] [--tolerance 1e-5]
"""
import math
import os
import sys

import torch
import torch.nn.functional as F

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from replay import replay  # noqa: E402

INPUTS = ("token_types", "padding_mask", "sop_labels", "sop_mask")


def bert_loss(p, tokens, labels, mask, inputs, layers, heads, megatron):
    eps = 1e-5 if megatron else 1e-12
    b, s = tokens.shape
    ln = lambda x, name: F.layer_norm(x, x.shape[-1:], p[name + ".weight"], p[name + ".bias"], eps)
    h = (p["bert.embeddings.word_embeddings.weight"][tokens]
         + p["bert.embeddings.position_embeddings.weight"][:s]
         + p["bert.embeddings.token_type_embeddings.weight"][inputs["token_types"]])
    if not megatron:
        h = ln(h, "bert.embeddings.LayerNorm")
    hidden = h.shape[-1]
    hd = hidden // heads
    keep = inputs["padding_mask"].bool()[:, None, None, :]
    names = {"ln1": "attention.output.LayerNorm", "ln2": "output.LayerNorm"}
    if megatron:
        names = {"ln1": "input_layernorm", "ln2": "post_attention_layernorm"}
    for l in range(layers):
        w = lambda name: p["bert.encoder.layer." + name][l]
        lin = lambda x, name: x @ w(name + ".weight").T + w(name + ".bias")
        norm = lambda x, which: F.layer_norm(x, x.shape[-1:], w(names[which] + ".weight"),
                                             w(names[which] + ".bias"), eps)
        x = norm(h, "ln1") if megatron else h
        split = lambda t: t.reshape(b, s, heads, hd).transpose(1, 2)
        q, k, v = (split(lin(x, f"attention.self.{n}")) for n in ("query", "key", "value"))
        scores = (q @ k.transpose(-1, -2)) / math.sqrt(hd)
        probs = scores.masked_fill(~keep, float("-inf")).softmax(-1)
        ctx = (probs @ v).transpose(1, 2).reshape(b, s, hidden)
        a = h + lin(ctx, "attention.output.dense")
        if megatron:
            m = norm(a, "ln2")
        else:
            a = norm(a, "ln1")
            m = a
        out = lin(F.gelu(lin(m, "intermediate.dense")), "output.dense")
        h = a + out if megatron else norm(a + out, "ln2")
    if megatron:
        h = ln(h, "bert.encoder.final_layernorm")
    t = F.gelu(h @ p["cls.predictions.transform.dense.weight"].T + p["cls.predictions.transform.dense.bias"])
    t = ln(t, "cls.predictions.transform.LayerNorm")
    logits = t @ p["bert.embeddings.word_embeddings.weight"].T + p["cls.predictions.bias"]
    nll = F.cross_entropy(logits.reshape(-1, logits.shape[-1]), labels.reshape(-1).long(), reduction="none")
    lm_loss = (nll * mask.reshape(-1)).sum() / mask.sum()
    pooled = torch.tanh(h[:, 0] @ p["bert.pooler.dense.weight"].T + p["bert.pooler.dense.bias"])
    sop_logits = pooled @ p["cls.seq_relationship.weight"].T + p["cls.seq_relationship.bias"]
    sop_loss = F.cross_entropy(sop_logits, inputs["sop_labels"][:, 0])
    return lm_loss + sop_loss


def main():
    megatron = "--megatron" in sys.argv
    if megatron:
        sys.argv.remove("--megatron")
    replay(lambda p, tokens, labels, mask, inputs, a: bert_loss(p, tokens, labels, mask, inputs,
                                                                a.layers, a.heads, megatron),
           [("layers", int), ("heads", int)], batch_inputs=INPUTS)


if __name__ == "__main__":
    main()
