"""Tokens/s and model FLOPs utilization of an mt-run log (bench/gpu/run.sh).

Usage: mfu.py LOG --layers L --hidden H [--vocab 50304] [--seq 1024]
              [--peak-tflops 989]
Reads the "| N tokens/s |" of every logged step but the first (warm-up),
and counts FLOPs as bench/gpu/torch_gpt2.py does, so the two compare:
6 N per token for the weights (N: GPT-2's parameters with the padded
vocabulary), plus attention's 6 * layers * seq * hidden.
"""
import argparse
import re


def main():
    p = argparse.ArgumentParser()
    p.add_argument("log")
    p.add_argument("--layers", type=int, required=True)
    p.add_argument("--hidden", type=int, required=True)
    p.add_argument("--vocab", type=int, default=50304)
    p.add_argument("--seq", type=int, default=1024)
    p.add_argument("--peak-tflops", type=float, default=989.0)
    a = p.parse_args()
    rates = [float(r) for r in re.findall(r"\| ([0-9.]+) tokens/s", open(a.log).read())]
    if len(rates) < 2:
        print(f"{a.log}: fewer than two logged steps; no throughput")
        return
    timed = rates[1:]
    tokens_per_s = len(timed) / sum(1.0 / r for r in timed)  # mean step time
    h, layers = a.hidden, a.layers
    params = (a.vocab + a.seq) * h + layers * (12 * h * h + 13 * h) + 2 * h
    flops_per_token = 6 * params + 6 * layers * a.seq * h
    mfu = tokens_per_s * flops_per_token / (a.peak_tflops * 1e12)
    print(f"mtc: {params / 1e6:.1f}M params, seq {a.seq}: {tokens_per_s:.0f} tokens/s, "
          f"MFU {100 * mfu:.1f}% ({len(timed)} timed steps)")


if __name__ == "__main__":
    main()
