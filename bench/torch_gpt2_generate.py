"""PyTorch side of bench/generate.sh: GPT-2 written as a PyTorch user writes
it (nn.Embedding, nn.LayerNorm, nn.Linear, F.gelu(approximate="tanh"), the
head tied to the embedding as F.linear, a
per-layer KV cache grown with torch.cat as Hugging Face's past_key_values
is), random weights, dropout off; a prompt of CONTEXT tokens, then NEW greedy
decode steps. Prints prompt and decode tokens/s.

Usage: torch_gpt2_generate.py LAYERS HIDDEN HEADS VOCAB POSITIONS CONTEXT NEW THREADS
"""
import math
import sys
import time

import torch
import torch.nn as nn
import torch.nn.functional as F


class Block(nn.Module):
    def __init__(self, hidden, heads):
        super().__init__()
        self.heads = heads
        self.ln_1 = nn.LayerNorm(hidden)
        self.qkv = nn.Linear(hidden, 3 * hidden)
        self.proj = nn.Linear(hidden, hidden)
        self.ln_2 = nn.LayerNorm(hidden)
        self.fc = nn.Linear(hidden, 4 * hidden)
        self.out = nn.Linear(4 * hidden, hidden)

    def forward(self, x, past):
        b, s, h = x.shape
        hd = h // self.heads
        q, k, v = self.qkv(self.ln_1(x)).split(h, dim=-1)
        q, k, v = (t.view(b, s, self.heads, hd).transpose(1, 2) for t in (q, k, v))
        if past is not None:
            k = torch.cat([past[0], k], dim=2)
            v = torch.cat([past[1], v], dim=2)
        total = k.shape[2]
        scores = q @ k.transpose(-1, -2) / math.sqrt(hd)
        if s > 1:
            mask = torch.ones(s, total, dtype=torch.bool).tril(total - s)
            scores = scores.masked_fill(~mask, float("-inf"))
        ctx = (scores.softmax(-1) @ v).transpose(1, 2).reshape(b, s, h)
        x = x + self.proj(ctx)
        x = x + self.out(F.gelu(self.fc(self.ln_2(x)), approximate="tanh"))
        return x, (k, v)


class Gpt2(nn.Module):
    def __init__(self, layers, hidden, heads, vocab, positions):
        super().__init__()
        self.wte = nn.Embedding(vocab, hidden)
        self.wpe = nn.Embedding(positions, hidden)
        self.blocks = nn.ModuleList(Block(hidden, heads) for _ in range(layers))
        self.ln_f = nn.LayerNorm(hidden)

    def forward(self, tokens, past=None):
        start = 0 if past is None else past[0][0].shape[2]
        pos = torch.arange(start, start + tokens.shape[1])
        x = self.wte(tokens) + self.wpe(pos)
        cache = []
        for i, block in enumerate(self.blocks):
            x, kv = block(x, None if past is None else past[i])
            cache.append(kv)
        # The tied head as transformers' lm_head computes it (nn.Linear sharing wte's weight).
        return F.linear(self.ln_f(x), self.wte.weight), cache


def main():
    layers, hidden, heads, vocab, positions, context, new, threads = map(int, sys.argv[1:9])
    torch.set_num_threads(threads)
    torch.manual_seed(0)
    model = Gpt2(layers, hidden, heads, vocab, positions).eval()
    prompt = torch.randint(0, vocab, (1, context))
    with torch.no_grad():
        start = time.perf_counter()
        logits, past = model(prompt)
        prompt_s = time.perf_counter() - start
        token = logits[:, -1:].argmax(-1)
        start = time.perf_counter()
        for _ in range(new):
            logits, past = model(token, past)
            token = logits[:, -1:].argmax(-1)
        decode_s = time.perf_counter() - start
    print(f"torch: prompt {context} tokens {context / prompt_s:.1f} tokens/s; "
          f"decode {new} steps {new / decode_s:.2f} tokens/s ({1e3 * decode_s / new:.1f} ms a step)")


if __name__ == "__main__":
    main()
