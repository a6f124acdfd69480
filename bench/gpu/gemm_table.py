#!/usr/bin/env python3
"""The GEMM efficiency table of a GPU preset, from the runbook's logs.

bench/gpu/run.sh prints, per step, every cuBLAS GEMM's shape and its share of
the chip's peak ("gemm bf16>bf16 1024x768x3072 NN x4 ... 63.7%"). This takes
the median share per shape (M x batch, N, K) over the given logs and prints
the rows lib/Search/GemmTables.cpp ships for the layout search.

usage: gemm_table.py LOG... (e.g. bench/gpu/results/2026-11-2*-h100*.log)
"""
import re
import statistics
import sys

LINE = re.compile(r"^gemm (\S+) (\d+)x(\d+)x(\d+) \S+(?: x(\d+))?\s+\d+\s+[\d.]+\s+[\d.]+\s+([\d.]+)%")


def main():
    shares = {}
    for path in sys.argv[1:]:
        with open(path) as f:
            for line in f:
                m = LINE.match(line)
                if not m or not m.group(1).startswith(("bf16", "f16")):
                    continue
                rows, cols, inner = int(m.group(2)), int(m.group(3)), int(m.group(4))
                batch = int(m.group(5) or 1)
                key = (rows * batch, cols, inner)
                shares.setdefault(key, []).append(float(m.group(6)) / 100)
    if not shares:
        sys.exit("no GEMM lines in " + " ".join(sys.argv[1:]))
    for (rows, cols, inner), s in sorted(shares.items()):
        print("    {%d, %d, %d, %.3f}," % (rows, cols, inner, statistics.median(s)))


if __name__ == "__main__":
    main()
