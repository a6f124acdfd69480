"""PyTorch side of bench/cpu-vs-torch.sh: the GPT of examples/gen_gpt.py
written the way a PyTorch user writes it (nn.Embedding, nn.Linear,
nn.LayerNorm, nn.Dropout, F.cross_entropy, torch.optim.AdamW, gradient
clipping; torch 1.13 has no scaled_dot_product_attention, so attention is
the usual masked softmax of q k^T), trained on random tokens.

Usage: torch_idiomatic_gpt.py LAYERS HIDDEN HEADS VOCAB SEQ MICRO STEPS THREADS [DROPOUT]
Prints one line per step: "step N: S s" (the caller takes the median).
"""
import math
import sys
import time

import torch
import torch.nn as nn
import torch.nn.functional as F


class Block(nn.Module):
    def __init__(self, hidden, heads, seq, dropout):
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
        self.register_buffer("causal", torch.tril(torch.ones(seq, seq, dtype=torch.bool)))

    def forward(self, x):
        b, s, h = x.shape
        q, k, v = self.qkv(self.ln_1(x)).split(h, dim=2)
        q, k, v = (t.view(b, s, self.heads, h // self.heads).transpose(1, 2) for t in (q, k, v))
        scores = (q @ k.transpose(-2, -1)) / math.sqrt(h // self.heads)
        scores = scores.masked_fill(~self.causal[:s, :s], float("-inf"))
        a = self.attn_drop(F.softmax(scores, dim=-1)) @ v
        x = x + self.resid_drop(self.proj(a.transpose(1, 2).reshape(b, s, h)))
        return x + self.resid_drop(self.fc_proj(F.gelu(self.fc(self.ln_2(x)), approximate="tanh")))


class GPT(nn.Module):
    def __init__(self, layers, hidden, heads, vocab, seq, dropout):
        super().__init__()
        self.wte = nn.Embedding(vocab, hidden)
        self.wpe = nn.Embedding(seq, hidden)
        self.drop = nn.Dropout(dropout)
        self.blocks = nn.ModuleList(Block(hidden, heads, seq, dropout) for _ in range(layers))
        self.ln_f = nn.LayerNorm(hidden)
        for m in self.modules():  # GPT-2's initialization, as the mtc model's
            if isinstance(m, (nn.Linear, nn.Embedding)):
                nn.init.normal_(m.weight, std=0.02)
            if isinstance(m, nn.Linear):
                nn.init.zeros_(m.bias)

    def forward(self, tokens, labels):
        pos = torch.arange(tokens.shape[1])
        x = self.drop(self.wte(tokens) + self.wpe(pos))
        for block in self.blocks:
            x = block(x)
        logits = self.ln_f(x) @ self.wte.weight.t()
        return F.cross_entropy(logits.reshape(-1, logits.shape[-1]), labels.reshape(-1))


def main():
    layers, hidden, heads, vocab, seq, micro, steps, threads = map(int, sys.argv[1:9])
    dropout = float(sys.argv[9]) if len(sys.argv) > 9 else 0.1
    torch.set_num_threads(threads)
    torch.manual_seed(0)
    model = GPT(layers, hidden, heads, vocab, seq, dropout)
    opt = torch.optim.AdamW(model.parameters(), lr=1e-3, weight_decay=0.01)
    for step in range(1, steps + 1):
        tokens = torch.randint(0, vocab, (micro, seq + 1))
        start = time.perf_counter()
        loss = model(tokens[:, :-1], tokens[:, 1:])
        opt.zero_grad(set_to_none=True)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        opt.step()
        print(f"step {step}: {time.perf_counter() - start:.6f} s loss {loss.item():.4f}", flush=True)


if __name__ == "__main__":
    main()
