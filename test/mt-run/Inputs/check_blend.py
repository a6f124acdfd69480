"""Checks the rows a run recorded (mt-run --record DIR) against Megatron's
blending rule, computed here on its own: sample i of a blend with normalized
weights w comes from the first dataset d with the largest w[d] * max(i, 1) - c[d],
where c[d] counts the samples already drawn from d.

Usage: check_blend.py DIR ROWS SEQ W1,W2,... BOUNDS
BOUNDS: the datasets' id ranges, "0:20,20:40,40:60" (a row's ids say its dataset).
Prints the draws per dataset; exits 1 on the first disagreement, or where a
prefix of 1000 samples strays more than 1% from a weight."""
import os
import struct
import sys

run, rows, seq = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
raw = [float(w) for w in sys.argv[4].split(",")]
weights = [w / sum(raw) for w in raw]
bounds = [tuple(map(int, b.split(":"))) for b in sys.argv[5].split(",")]


def dataset_of(row):
    for d, (lo, hi) in enumerate(bounds):
        if all(lo <= t < hi for t in row):
            return d
    sys.exit(f"a row mixes datasets: {row}")


drawn = []
batch = 0
while os.path.exists(f"{run}/batches/{batch}.tokens.i32"):
    with open(f"{run}/batches/{batch}.tokens.i32", "rb") as f:
        ids = struct.unpack(f"<{rows * seq}i", f.read())
    drawn += [dataset_of(ids[r * seq:(r + 1) * seq]) for r in range(rows)]
    batch += 1

counts = [0] * len(weights)
for i, got in enumerate(drawn):
    at = max(i, 1)
    best = 0
    for d in range(1, len(weights)):
        if weights[d] * at - counts[d] > weights[best] * at - counts[best]:
            best = d
    if got != best:
        sys.exit(f"sample {i}: drawn from dataset {got}, the rule says {best}")
    counts[best] += 1
    if (i + 1) % 1000 == 0:
        for d, w in enumerate(weights):
            if abs(counts[d] / (i + 1) - w) > 0.01:
                sys.exit(f"after {i + 1} samples dataset {d} has {counts[d]}, weight {w}")
print(f"{len(drawn)} samples follow the rule: " + " ".join(map(str, counts)))
