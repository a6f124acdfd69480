"""Tokens/s and model FLOPs utilization of an mt-run run (bench/gpu/run.sh).

Usage: mfu.py METRICS --layers L --hidden H [--vocab 50304] [--seq 1024]
              [--peak-tflops 989]
METRICS: the run's `mt-run --metrics-file` (JSON lines; bench/metrics.py
reads it, and bundle.sh carries it beside this file). Takes the tokens_per_s
of every step but the first (warm-up), and counts FLOPs as
bench/gpu/torch_gpt2.py does, so the two compare:
6 N per token for the weights (N: GPT-2's parameters with the padded
vocabulary), plus attention's 6 * layers * seq * hidden.
"""
import argparse
import os
import sys

# bench/metrics.py: beside this file in a bundle (bin/), one folder up in the tree.
sys.path.append(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
import metrics  # noqa: E402


def main():
    p = argparse.ArgumentParser()
    p.add_argument("metrics", help="the run's mt-run --metrics-file")
    p.add_argument("--layers", type=int, required=True)
    p.add_argument("--hidden", type=int, required=True)
    p.add_argument("--vocab", type=int, default=50304)
    p.add_argument("--seq", type=int, default=1024)
    p.add_argument("--peak-tflops", type=float, default=989.0)
    a = p.parse_args()
    # A run that ended before it opened the file logged no step.
    rates = metrics.tokens_per_s(a.metrics) if os.path.exists(a.metrics) else []
    if len(rates) < 2:
        print(f"{a.metrics}: fewer than two logged steps; no throughput")
        return
    timed = rates[1:]
    tokens_per_s = metrics.step_mean_tokens_per_s(timed)  # mean step time
    h, layers = a.hidden, a.layers
    params = (a.vocab + a.seq) * h + layers * (12 * h * h + 13 * h) + 2 * h
    flops_per_token = 6 * params + 6 * layers * a.seq * h
    mfu = tokens_per_s * flops_per_token / (a.peak_tflops * 1e12)
    # The buffers mt-run held in GPU memory (reporting rank), the most at once.
    gpu_mb = [m for m in metrics.values(a.metrics, "memory.gpu_buffers_mb") if m is not None]
    memory = f", GPU buffers {max(gpu_mb):.0f} MB" if gpu_mb else ""
    print(f"mtc: {params / 1e6:.1f}M params, seq {a.seq}: {tokens_per_s:.0f} tokens/s, "
          f"MFU {100 * mfu:.1f}% ({len(timed)} timed steps){memory}")


if __name__ == "__main__":
    main()
