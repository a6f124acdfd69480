"""Writes a .tokens file: a fixed pseudo-random phrase of ids < VOCAB repeated
with shifts, so a small model can learn it. Usage: make_tokens.py OUT VOCAB [BAD]"""
import sys

out, vocab = sys.argv[1], int(sys.argv[2])
state = 12345
phrase = []
for _ in range(24):
    state = (state * 1103515245 + 12345) % (1 << 31)
    phrase.append(state % vocab)
ids = []
for i in range(200):
    ids += phrase[i % 5 : i % 5 + 16]
if len(sys.argv) > 3:
    ids[100] = sys.argv[3]
with open(out, "w") as f:
    f.write(" ".join(map(str, ids)) + "\n")
