"""Writes a Megatron indexed dataset (PREFIX.bin/.idx, uint16) of about
TOKENS random GPT-2 token ids in documents of 100-2000 tokens: a synthetic
corpus for index build and start-up times. Usage: make_token_dataset.py PREFIX TOKENS"""
import array
import random
import struct
import sys

prefix, total = sys.argv[1], int(float(sys.argv[2]))
rng = random.Random(7)
block = array.array("H", (rng.randrange(50257) for _ in range(1 << 24)))
lengths = []
count = 0
while count < total:
    n = rng.randint(100, 2000)
    lengths.append(n)
    count += n
with open(prefix + ".bin", "wb") as f:
    left = count
    while left > 0:
        take = min(left, len(block))
        block[:take].tofile(f)
        left -= take
with open(prefix + ".idx", "wb") as f:
    f.write(b"MMIDIDX\x00\x00")
    f.write(struct.pack("<QBQQ", 1, 8, len(lengths), len(lengths) + 1))
    array.array("i", lengths).tofile(f)
    pointers, at = array.array("q"), 0
    for n in lengths:
        pointers.append(at)
        at += 2 * n
    pointers.tofile(f)
    array.array("q", range(len(lengths) + 1)).tofile(f)
print(f"{prefix}: {len(lengths)} documents, {count} tokens")
