"""Checks mtc --report-memory output against a budget: every pipeline
stage's peak fits, and the first report recomputes fewer FLOPs than the
second (auto against full recomputation).

usage: check_budget.py AUTO_REPORT FULL_REPORT BUDGET_BYTES
"""
import re
import sys


def read(path):
    text = open(path).read()
    peaks = [int(p) for p in re.findall(r"^    peak: (\d+) ", text, re.M)]
    flops = sum(int(f) for f in re.findall(r"recomputed in the backward, per micro-batch: (\d+) FLOPs", text))
    if not peaks:
        sys.exit(f"{path}: no peak in the report")
    return peaks, flops


auto_peaks, auto_flops = read(sys.argv[1])
full_peaks, full_flops = read(sys.argv[2])
budget = int(sys.argv[3])
if max(auto_peaks) > budget:
    sys.exit(f"auto peak {max(auto_peaks)} is over the budget {budget}")
if not 0 < auto_flops < full_flops:
    sys.exit(f"auto recomputes {auto_flops} FLOPs, full {full_flops}")
print(f"auto peak {max(auto_peaks)} <= budget {budget}; "
      f"auto recomputes {auto_flops} FLOPs < full {full_flops}")
