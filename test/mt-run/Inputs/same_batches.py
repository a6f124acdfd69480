"""Exits 1 unless every micro-batch recorded in RUN (mt-run --record) equals
batch OFFSET + j of FULL: a resumed run draws what the uninterrupted one did.
Usage: same_batches.py RUN FULL OFFSET"""
import os
import sys

run, full, offset = sys.argv[1], sys.argv[2], int(sys.argv[3])
j = 0
while os.path.exists(f"{run}/batches/{j}.tokens.i32"):
    for part in ("tokens.i32", "labels.i32", "mask.f32"):
        with open(f"{run}/batches/{j}.{part}", "rb") as a, \
                open(f"{full}/batches/{offset + j}.{part}", "rb") as b:
            if a.read() != b.read():
                sys.exit(f"micro-batch {j} ({part}) differs from {offset + j} of {full}")
    j += 1
print(f"{j} micro-batches equal")
