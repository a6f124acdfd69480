"""Writes a .tokens file whose ids all lie in [LOW, HIGH): a blend's rows
then say which dataset they came from. Usage: make_range_tokens.py OUT LOW HIGH DOCS"""
import sys

out, low, high, docs = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
state = low * 7919 + 1
with open(out, "w") as f:
    for _ in range(docs):
        ids = []
        for _ in range(16):
            state = (state * 1103515245 + 12345) % (1 << 31)
            ids.append(low + state % (high - low))
        f.write(" ".join(map(str, ids)) + "\n")
