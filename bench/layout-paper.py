#!/usr/bin/env python3
"""The layout search against Narayanan et al. 2021 (Megatron-LM on A100s).

For rows of their Table 1 (and GPT-3 175B of their Table 2), on the
a100-80gb preset and their setting (bf16, sequence 2048, vocabulary 51,200,
full recomputation, no sequence parallelism, no distributed optimizer: what
Megatron had in 2021; tensor-parallel sums in bf16, as Megatron's):
  - the search's best (`mtc --search-layout --search-top=30`) and the rank
    of the first layout with the paper's tp and pp among those;
  - the paper's layout (its tp and pp; dp the rest), predicted with
    `mtc --explain` at micro-batch 1 and the best interleaving;
  - its predicted throughput in the paper's own FLOP count,
    96 B s l h^2 (1 + s/6h + V/16lh) per step, against the paper's.
usage: bench/layout-paper.py [BUILD_DIR]   (docs/layout-search.md has the table)
"""
import os
import re
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BUILD = sys.argv[1] if len(sys.argv) > 1 else os.path.join(ROOT, "build")
MTC = os.path.join(BUILD, "bin", "mtc")
# name, layers, hidden, GPUs, batch, paper tp, pp, TFLOP/s per GPU
ROWS = [
    ("narayanan-39b", 48, 8192, 512, 1536, 8, 2, 138),
    ("narayanan-146b", 80, 12288, 1536, 2304, 8, 8, 148),
    ("narayanan-175b", 96, 12288, 1536, 1536, 8, 12, 141),
    ("narayanan-310b", 96, 16384, 1920, 2160, 8, 16, 155),
    ("narayanan-530b", 105, 20480, 2520, 2520, 8, 35, 163),
    ("narayanan-1t", 128, 25600, 3072, 3072, 8, 64, 163),
]
# --tp-comm-16bit: Megatron's tensor-parallel all-reduces move bf16.
SETTING = ["--bf16", "--tp-comm-16bit", "--seq-length=2048", "--sp=false",
           "--distributed-optimizer=false", "--recompute-granularity=full", "--gpu=a100-80gb"]


def paper_flops(batch, layers, hidden, seq=2048, vocab=51200):
    return 96 * batch * seq * layers * hidden ** 2 * (
        1 + seq / (6 * hidden) + vocab / (16 * layers * hidden))


def run(args):
    r = subprocess.run([MTC] + args, capture_output=True, text=True)
    return r.returncode, r.stdout + r.stderr


def main():
    work = tempfile.mkdtemp()
    subprocess.run([sys.executable, os.path.join(ROOT, "examples", "gen_gpt.py"), work]
                   + [r[0] for r in ROWS], check=True, stdout=subprocess.DEVNULL)
    print("| model | GPUs | batch | paper: layout, TFLOP/s | search's best (predicted TFLOP/s) "
          "| paper's layout predicted: TFLOP/s (error), step | its rank | search time |")
    print("|---|---|---|---|---|---|---|---|")
    for name, layers, hidden, gpus, batch, tp, pp, paper in ROWS:
        model = os.path.join(work, name + ".mlir")
        flops = paper_flops(batch, layers, hidden)
        start = time.time()
        code, out = run([model, "--search-layout", f"--gpus={gpus}", "--search-top=30",
                         f"--global-batch-size={batch}"] + SETTING)
        took = time.time() - start
        steps = [float(s) for s in re.findall(r"^\s+\d+\s+([0-9.]+)\s+\d+\s", out, re.M)]
        best = re.search(r"^best: (.*)$", out, re.M)
        rows = re.findall(r"^\s+\d+\s+[0-9.]+\s+\d+\s+[0-9.]+%\s+[0-9.]+\s+.*(?:MB|GB)\s+(tp .*)$",
                          out, re.M)
        if code != 0 or not best:
            print(f"| {name} | {gpus} | {batch} | search failed: {out.strip().splitlines()[-1]} |")
            continue
        # The paper's tp and pp at micro-batch 1, each interleaving that divides.
        dp = gpus // (tp * pp)
        chunks = [v for v in range(1, layers // pp + 1)
                  if (layers // pp) % v == 0 and (v == 1 or (batch // dp) % pp == 0)]
        chunks = [v for v in chunks if layers % pp == 0 or v == 1][:6]
        predicted = []
        for v in chunks:
            flags = [f"--tp={tp}", f"--pp={pp}", f"--dp={dp}", "--micro-batch-size=1"]
            if v > 1:
                flags += [f"--virtual-stages={v}", "--schedule=interleaved"]
            code, out2 = run([model, "--explain", f"--gpus={gpus}",
                              f"--global-batch-size={batch}"] + flags + SETTING)
            m = re.search(r"step: ([0-9.]+) ms", out2)
            fits = "does not fit" not in out2
            if code == 0 and m:
                predicted.append((float(m.group(1)) / 1e3, v, fits))
        if not predicted:
            print(f"| {name} | {gpus} | {batch} | tp {tp} pp {pp}, {paper} | {rows[0]} | "
                  f"not predicted | | {took:.0f} s |")
            continue
        step, v, fits = min(p for p in predicted if p[2]) if any(p[2] for p in predicted) \
            else min(predicted)
        ours = flops / step / gpus / 1e12
        error = 100 * (ours - paper) / paper
        best_step = steps[0]
        # The first proposed row with the paper's tp and pp, if among the 30.
        rank = next((i + 1 for i, r in enumerate(rows)
                     if r.startswith(f"tp {tp} pp {pp} ") or r.startswith(f"tp {tp} pp {pp}x")),
                    None)
        where = (f"{rank} ({100 * (steps[rank - 1] / best_step - 1):.0f}% slower than the best)"
                 if rank else "below 30")
        print(f"| {name} | {gpus} | {batch} | tp {tp} pp {pp}, {paper} | {rows[0]} "
              f"({flops / best_step / gpus / 1e12:.0f}) | {ours:.0f} ({error:+.0f}%), "
              f"{step:.2f} s at v {v}{'' if fits else ', over memory'} | "
              f"{where} | {took:.0f} s |")
        sys.stdout.flush()


if __name__ == "__main__":
    main()
