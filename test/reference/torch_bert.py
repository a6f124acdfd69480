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

With --log TRAIN_LOG, also compares the first step's lm loss, sop loss and
masked-LM accuracy that mt-run printed with PyTorch's.

Usage: torch_bert.py DIR LAYERS HEADS [--megatron] [--log TRAIN_LOG [--metrics-only]]
                     [--tolerance 1e-5]
"""
import json
import math
import os
import re
import sys

import torch
import torch.nn.functional as F

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from replay import load, replay  # noqa: E402

INPUTS = ("token_types", "padding_mask", "sop_labels", "sop_mask")


def bert_loss(p, tokens, labels, mask, inputs, layers, heads, megatron, parts=None):
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
    if parts is not None:
        right = (logits.argmax(-1) == labels.long()).float()
        parts.update({"lm loss": lm_loss.item(), "sop loss": sop_loss.item(),
                      "lm accuracy": ((right * mask).sum() / mask.sum()).item()})
    return lm_loss + sop_loss


def first_step_metrics(d, layers, heads, megatron, log):
    """The first step's lm loss, sop loss and masked-LM accuracy, as mt-run
    printed them (its first log line) against PyTorch's on the same batches."""
    m = json.load(open(os.path.join(d, "manifest.json")))
    params = {p["name"]: load(f"{d}/init/{p['name']}.f32", p["shape"]) for p in m["parameters"]}
    shape = (m["micro_batch_size"], m["seq_length"])
    micro = m["global_batch_size"] // m["micro_batch_size"]
    sums = {"lm loss": 0.0, "sop loss": 0.0, "lm accuracy": 0.0}
    for i in range(micro):
        base = f"{d}/batches/{i}"
        tokens = load(base + ".tokens.i32", shape, torch.int32).long()
        labels = load(base + ".labels.i32", shape, torch.int32)
        mask = load(base + ".mask.f32", shape)
        inputs = {n: load(f"{base}.{n}.i32", shape, torch.int32).long() for n in INPUTS}
        parts = {}
        with torch.no_grad():
            bert_loss(params, tokens, labels, mask, inputs, layers, heads, megatron, parts)
        for k in sums:
            sums[k] += parts[k] / micro
    line = next(l for l in open(log) if l.startswith("iteration"))
    printed = {k: float(re.search(re.escape(k) + r" ([0-9.]+)", line).group(1)) for k in sums}
    for k in sums:
        diff = abs(printed[k] - sums[k]) / max(abs(sums[k]), 1e-30)
        print(f"step 1 {k}: torch {sums[k]:.6f}, mt-run {printed[k]:.6f} "
              f"{'ok' if diff <= 1e-5 else 'MISMATCH'}")


def main():
    megatron = "--megatron" in sys.argv
    if megatron:
        sys.argv.remove("--megatron")
    if "--log" in sys.argv:
        i = sys.argv.index("--log")
        log = sys.argv[i + 1]
        del sys.argv[i:i + 2]
        first_step_metrics(sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), megatron, log)
        if "--metrics-only" in sys.argv:  # a resumed run: its optimizer state is not replayed
            return
    replay(lambda p, tokens, labels, mask, inputs, a: bert_loss(p, tokens, labels, mask, inputs,
                                                                a.layers, a.heads, megatron),
           [("layers", int), ("heads", int)], batch_inputs=INPUTS)


if __name__ == "__main__":
    main()
