"""Writes about MB megabytes of JSON lines made of WikiText-2 paragraphs
(documents of 1-8 paragraphs drawn at random): a synthetic corpus with real
text. Usage: make_jsonl_corpus.py OUT MB TEXT_FILE..."""
import json
import random
import sys

out, megabytes, texts = sys.argv[1], float(sys.argv[2]), sys.argv[3:]
paragraphs = []
for path in texts:
    with open(path, encoding="utf-8") as f:
        paragraphs += [p.strip() for p in f.read().split("\n \n") if p.strip()]
rng = random.Random(1234)
target, written, n = int(megabytes * 1e6), 0, 0
with open(out, "w", encoding="utf-8") as f:
    while written < target:
        doc = "\n".join(rng.choice(paragraphs) for _ in range(rng.randint(1, 8)))
        line = json.dumps({"id": n, "text": doc}) + "\n"
        f.write(line)
        written += len(line.encode("utf-8"))
        n += 1
print(f"{out}: {n} documents, {written / 1e6:.1f} MB")
