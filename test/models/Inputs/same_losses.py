#!/usr/bin/env python3
"""Checks that two `mt-run --record DIR` runs took the same losses, step by
step, to a relative tolerance, whatever their parameters' shapes (a padded
vocabulary against an unpadded one). Usage: same_losses.py REF RUN [--rtol 1e-5]
Prints "same losses: N steps", or the first step that differs and exits 1."""
import os
import sys


def losses(run):
    with open(os.path.join(run, "losses.txt")) as f:
        return [float(line.split()[0]) for line in f if line.strip()]


args = sys.argv[1:]
rtol = 1e-5
if "--rtol" in args:
    i = args.index("--rtol")
    rtol = float(args[i + 1])
    del args[i:i + 2]
ref, run = losses(args[0]), losses(args[1])
if len(ref) != len(run) or not ref:
    sys.exit(f"{len(ref)} steps against {len(run)}")
for step, (a, b) in enumerate(zip(ref, run), 1):
    if abs(a - b) > rtol * max(abs(a), abs(b)):
        sys.exit(f"step {step}: loss {b!r} against {a!r}")
print(f"same losses: {len(ref)} steps")
