"""PyTorch side of bench/cpu-vs-torch.sh and bench/cpu-throughput.sh: the GPT
of examples/gen_gpt.py written the way a PyTorch user writes it
(bench/torch_gpt_model.py: nn.Embedding, nn.Linear, nn.LayerNorm, nn.Dropout,
F.cross_entropy; torch 1.13 has no scaled_dot_product_attention, so attention
is the usual masked softmax of q k^T), trained with torch.optim.AdamW and
gradient clipping on random tokens.

Usage: torch_idiomatic_gpt.py LAYERS HIDDEN HEADS VOCAB SEQ MICRO STEPS THREADS [DROPOUT]
Prints one line per step: "step N: S s loss L" (the callers take S).
"""
import sys
import time

import torch

from torch_gpt_model import GPT  # bench/torch_gpt_model.py, beside this script


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
