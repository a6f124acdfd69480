"""The PyTorch GPT-2 of the benchmarks (bench/torch_idiomatic_gpt.py,
bench/torch_gpt2_generate.py, bench/gpu/torch_gpt2.py), written the way a
PyTorch user writes it: nn.Embedding, nn.LayerNorm, nn.Linear, nn.Dropout,
pre-norm blocks, F.gelu(approximate="tanh"), the head tied to the token
embedding, GPT-2's initialization. It is examples/gen_gpt.py's layout, the
model mtc compiles.

model(tokens, labels) is the training loss; model(tokens) and then
model(new_tokens, past=cache) generate with a per-layer KV cache grown by
torch.cat, as transformers' past_key_values.
"""
import math

import torch
import torch.nn as nn
import torch.nn.functional as F

# Fused attention where torch has it (2.0 on: the GPU machine's); Debian's
# torch 1.13, which runs the CPU benchmarks, has not, and gets the usual
# masked softmax of q k^T.
HAS_SDPA = hasattr(F, "scaled_dot_product_attention")


class Block(nn.Module):
    def __init__(self, hidden, heads, positions, dropout):
        super().__init__()
        self.heads = heads
        self.ln_1 = nn.LayerNorm(hidden)
        self.qkv = nn.Linear(hidden, 3 * hidden)
        self.proj = nn.Linear(hidden, hidden)
        self.ln_2 = nn.LayerNorm(hidden)
        self.fc = nn.Linear(hidden, 4 * hidden)
        self.fc_proj = nn.Linear(4 * hidden, hidden)
        self.attn_drop = nn.Dropout(dropout)
        self.resid_drop = nn.Dropout(dropout)
        causal = torch.ones(positions, positions, dtype=torch.bool).tril()
        self.register_buffer("causal", causal, persistent=False)

    def attention(self, q, k, v):
        s, t = q.shape[2], k.shape[2]  # this call's queries; keys, the cached ones too
        if HAS_SDPA and (s == t or s == 1):
            # is_causal rather than a mask, so that the flash kernel takes it;
            # a single new token sees every key.
            p = self.attn_drop.p if self.training else 0.0
            return F.scaled_dot_product_attention(q, k, v, dropout_p=p, is_causal=s > 1)
        scores = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])
        if s > 1:  # query i sits at position t - s + i and sees the keys up to it
            scores = scores.masked_fill(~self.causal[t - s:t, :t], float("-inf"))
        return self.attn_drop(scores.softmax(-1)) @ v

    def forward(self, x, past=None):
        b, s, h = x.shape
        q, k, v = self.qkv(self.ln_1(x)).split(h, dim=2)
        q, k, v = (t.view(b, s, self.heads, h // self.heads).transpose(1, 2) for t in (q, k, v))
        if past is not None:
            k, v = torch.cat([past[0], k], dim=2), torch.cat([past[1], v], dim=2)
        a = self.attention(q, k, v).transpose(1, 2).reshape(b, s, h)
        x = x + self.resid_drop(self.proj(a))
        x = x + self.resid_drop(self.fc_proj(F.gelu(self.fc(self.ln_2(x)), approximate="tanh")))
        return x, (k, v)


class GPT(nn.Module):
    def __init__(self, layers, hidden, heads, vocab, positions, dropout=0.0):
        super().__init__()
        self.wte = nn.Embedding(vocab, hidden)
        self.wpe = nn.Embedding(positions, hidden)
        self.drop = nn.Dropout(dropout)
        self.blocks = nn.ModuleList(Block(hidden, heads, positions, dropout) for _ in range(layers))
        self.ln_f = nn.LayerNorm(hidden)
        for m in self.modules():  # GPT-2's initialization, as the mtc model's
            if isinstance(m, (nn.Linear, nn.Embedding)):
                nn.init.normal_(m.weight, std=0.02)
            if isinstance(m, nn.Linear):
                nn.init.zeros_(m.bias)

    def forward(self, tokens, labels=None, past=None):
        """With labels: the mean cross-entropy. Without: the logits and each
        layer's (keys, values), which the next call takes as past."""
        start = 0 if past is None else past[0][0].shape[2]
        pos = torch.arange(start, start + tokens.shape[1], device=tokens.device)
        x = self.drop(self.wte(tokens) + self.wpe(pos))
        cache = []
        for i, block in enumerate(self.blocks):
            x, kv = block(x, None if past is None else past[i])
            cache.append(kv)
        # The tied head as transformers' lm_head computes it.
        logits = F.linear(self.ln_f(x), self.wte.weight)
        if labels is None:
            return logits, cache
        # float(): under bf16 autocast the loss is still taken in fp32.
        return F.cross_entropy(logits.float().reshape(-1, logits.shape[-1]), labels.reshape(-1))
