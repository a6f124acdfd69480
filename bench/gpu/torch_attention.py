"""Reference for the attention target of issue #38: PyTorch's fused
scaled_dot_product_attention (FlashAttention-2 or cuDNN on Hopper), forward
and backward, causal, bf16, at GPT-2 small's shapes. Prints TFLOP/s the way
FlashAttention counts them: forward 4*b*h*s*s*d (halved when causal), the
backward 2.5 times the forward (five matrix products against two).

Usage: torch_attention.py [--batch 4] [--heads 12] [--seq 1024] [--head-dim 64]
"""
import argparse

import torch
import torch.nn.functional as F


def timed(fn, iters):
    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    for _ in range(3):
        fn()
    torch.cuda.synchronize()
    start.record()
    for _ in range(iters):
        fn()
    end.record()
    torch.cuda.synchronize()
    return start.elapsed_time(end) / iters


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--batch", type=int, default=4)
    p.add_argument("--heads", type=int, default=12)
    p.add_argument("--seq", type=int, default=1024)
    p.add_argument("--head-dim", type=int, default=64)
    p.add_argument("--iters", type=int, default=50)
    a = p.parse_args()
    shape = (a.batch, a.heads, a.seq, a.head_dim)
    q, k, v = (torch.randn(shape, device="cuda", dtype=torch.bfloat16, requires_grad=True)
               for _ in range(3))
    out = F.scaled_dot_product_attention(q, k, v, is_causal=True)
    grad = torch.randn_like(out)

    forward_ms = timed(lambda: F.scaled_dot_product_attention(q, k, v, is_causal=True), a.iters)

    def step():
        o = F.scaled_dot_product_attention(q, k, v, is_causal=True)
        o.backward(grad)
    both_ms = timed(step, a.iters)
    flops = 4 * a.batch * a.heads * a.seq * a.seq * a.head_dim / 2
    print(f"torch sdpa causal bf16 b={a.batch} h={a.heads} s={a.seq} d={a.head_dim}: "
          f"forward {forward_ms:.3f} ms ({flops / forward_ms / 1e9:.1f} TFLOP/s), "
          f"forward+backward {both_ms:.3f} ms ({3.5 * flops / both_ms / 1e9:.1f} TFLOP/s)")


if __name__ == "__main__":
    main()
