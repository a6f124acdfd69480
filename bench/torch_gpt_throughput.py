"""PyTorch side of bench/cpu-throughput.sh: the same GPT (the model of
test/reference/torch_gpt.py, i.e. examples/gen_gpt.py's layout, dropout off)
trained with AdamW on random tokens; prints tokens/s over the timed steps.

Usage: torch_gpt_throughput.py LAYERS HIDDEN HEADS VOCAB POSITIONS MICRO SEQ STEPS THREADS
"""
import math
import os
import sys
import time

import torch

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "test", "reference"))
from torch_gpt import gpt_loss  # noqa: E402


def main():
    layers, hidden, heads, vocab, positions, micro, seq, steps, threads = map(int, sys.argv[1:10])
    torch.set_num_threads(threads)
    torch.manual_seed(0)
    f = 4 * hidden

    def normal(*shape):
        return (torch.randn(*shape) * 0.02).requires_grad_()

    p = {
        "wte": normal(vocab, hidden), "wpe": normal(positions, hidden),
        "h.ln_1.weight": torch.ones(layers, hidden, requires_grad=True),
        "h.ln_1.bias": torch.zeros(layers, hidden, requires_grad=True),
        "h.attn.qkv.weight": normal(layers, 3 * hidden, hidden),
        "h.attn.qkv.bias": torch.zeros(layers, 3 * hidden, requires_grad=True),
        "h.attn.proj.weight": normal(layers, hidden, hidden),
        "h.attn.proj.bias": torch.zeros(layers, hidden, requires_grad=True),
        "h.ln_2.weight": torch.ones(layers, hidden, requires_grad=True),
        "h.ln_2.bias": torch.zeros(layers, hidden, requires_grad=True),
        "h.mlp.fc.weight": normal(layers, f, hidden),
        "h.mlp.fc.bias": torch.zeros(layers, f, requires_grad=True),
        "h.mlp.proj.weight": normal(layers, hidden, f),
        "h.mlp.proj.bias": torch.zeros(layers, hidden, requires_grad=True),
        "ln_f.weight": torch.ones(hidden, requires_grad=True),
        "ln_f.bias": torch.zeros(hidden, requires_grad=True),
    }
    opt = torch.optim.AdamW(p.values(), lr=1e-3)
    mask = torch.ones(micro, seq)
    times = []
    for step in range(steps):
        tokens = torch.randint(0, vocab, (micro, seq))
        labels = torch.randint(0, vocab, (micro, seq), dtype=torch.int32)
        t0 = time.perf_counter()
        opt.zero_grad()
        loss = gpt_loss(p, tokens, labels, mask, layers, heads)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(p.values(), 1.0)
        opt.step()
        times.append(time.perf_counter() - t0)
    timed = times[1:] if len(times) > 1 else times
    print(f"torch {torch.__version__}: {micro * seq * len(timed) / sum(timed):.1f} tokens/s "
          f"({threads} threads, {len(timed)} timed steps, loss {loss.item():.3f})")


if __name__ == "__main__":
    main()
