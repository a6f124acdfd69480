"""PyTorch side of bench/gpu/run.sh: GPT-2 (124M by default) training
throughput on one GPU, the same shapes as the mtc plan (micro-batch, seq
1024, tied embeddings, pre-norm, GeLU, AdamW), on random tokens. The model is
bench/torch_gpt_model.py's (F.scaled_dot_product_attention, causal).

Usage: torch_gpt2.py [--layers 12 --hidden 768 --heads 12] [--micro 4]
       [--seq 1024] [--steps 20] [--dtype fp32|bf16] [--compile] [--dropout 0.0]
Prints one line: config, tokens/s, and model FLOPs utilization against the
device's dense bf16 peak (--peak-tflops, default 989 for H100/H200 SXM).
--dropout 0.1 is examples/gpt2.mlir's model (GPT-2's own rates, the ones
mtc's plans train with); the default 0.0 is llm.c's and nanoGPT's setting.
"""
import argparse
import os
import sys
import time

import torch

# bench/torch_gpt_model.py, one directory up (run.sh runs this file in place).
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from torch_gpt_model import GPT  # noqa: E402


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--layers", type=int, default=12)
    p.add_argument("--hidden", type=int, default=768)
    p.add_argument("--heads", type=int, default=12)
    p.add_argument("--vocab", type=int, default=50304)
    p.add_argument("--micro", type=int, default=4)
    p.add_argument("--seq", type=int, default=1024)
    p.add_argument("--steps", type=int, default=20)
    p.add_argument("--dtype", choices=["fp32", "bf16"], default="bf16")
    p.add_argument("--compile", action="store_true")
    p.add_argument("--dropout", type=float, default=0.0)
    p.add_argument("--peak-tflops", type=float, default=989.0)
    a = p.parse_args()
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.allow_tf32 = False
    torch.manual_seed(0)
    model = GPT(a.layers, a.hidden, a.heads, a.vocab, a.seq, dropout=a.dropout).cuda()
    params = sum(t.numel() for t in model.parameters())
    opt = torch.optim.AdamW(model.parameters(), lr=6e-4, weight_decay=0.01, fused=True)
    step_fn = torch.compile(model) if a.compile else model
    tokens = torch.randint(0, 50257, (a.micro, a.seq + 1), device="cuda")
    x, y = tokens[:, :-1].contiguous(), tokens[:, 1:].contiguous()

    def step():
        with torch.autocast("cuda", dtype=torch.bfloat16, enabled=a.dtype == "bf16"):
            loss = step_fn(x, y)
        loss.backward()
        opt.step()
        opt.zero_grad(set_to_none=True)
        return loss

    for _ in range(3):  # warm-up (and compilation)
        step()
    torch.cuda.synchronize()
    start = time.perf_counter()
    for _ in range(a.steps):
        loss = step()
    torch.cuda.synchronize()
    seconds = (time.perf_counter() - start) / a.steps
    tokens_per_s = a.micro * a.seq / seconds
    # 6 N per token for the weights, plus attention's 6 * layers * seq * hidden
    # (forward QK^T and AV, backward twice that, causal not discounted).
    flops_per_token = 6 * params + 6 * a.layers * a.seq * a.hidden
    mfu = tokens_per_s * flops_per_token / (a.peak_tflops * 1e12)
    dropout = f" dropout {a.dropout}" if a.dropout else ""
    print(f"torch {torch.__version__} {torch.cuda.get_device_name()} {a.dtype}"
          f"{' compile' if a.compile else ''}{dropout}: {params / 1e6:.1f}M params, micro {a.micro}, "
          f"seq {a.seq}: {tokens_per_s:.0f} tokens/s, MFU {100 * mfu:.1f}%, "
          f"loss {loss.item():.3f}")


if __name__ == "__main__":
    main()
