"""Writes a .tokens file (one document of whitespace-separated ids per line):
a fixed pseudo-random phrase of ids < VOCAB repeated with shifts, so a small
model can learn it. Usage: make_tokens.py OUT VOCAB [BAD]"""
import sys

out, vocab = sys.argv[1], int(sys.argv[2])
state = 12345
phrase = []
for _ in range(24):
    state = (state * 1103515245 + 12345) % (1 << 31)
    phrase.append(state % vocab)
docs = [phrase[i % 5 : i % 5 + 16] for i in range(200)]
if len(sys.argv) > 3:
    docs[6][4] = sys.argv[3]
with open(out, "w") as f:
    for doc in docs:
        f.write(" ".join(map(str, doc)) + "\n")
