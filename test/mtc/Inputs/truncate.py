"""Writes N truncated copies of a file: cut-K.mlir holds its first K/N of the bytes."""
import os
import sys

src, out_dir, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
data = open(src, "rb").read()
for k in range(n):
    cut = len(data) * k // n
    with open(os.path.join(out_dir, f"cut-{k}.mlir"), "wb") as f:
        f.write(data[:cut])
