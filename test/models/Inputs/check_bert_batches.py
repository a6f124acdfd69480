"""Checks the BERT batches an `mt-run --record DIR` run drew: each row is
[CLS] A [SEP] B [SEP] then [PAD]s, token types 0 through the first [SEP] and
1 after, the padding mask 1 exactly on real tokens, labels only where the
loss mask is 1 (never on [CLS]/[SEP]/padding), the sentence-order label and
its mask only at the first position. Prints the counts FileCheck looks at.

Usage: check_bert_batches.py DIR VOCAB
"""
import array
import json
import os
import sys


def ints(path, kind="i"):
    a = array.array(kind)
    with open(path, "rb") as f:
        a.frombytes(f.read())
    return a


def main():
    d, vocab_path = sys.argv[1], sys.argv[2]
    vocab = [line.rstrip("\n") for line in open(vocab_path, encoding="utf-8")]
    ids = {t: i for i, t in enumerate(vocab)}
    pad, cls, sep = ids["[PAD]"], ids["[CLS]"], ids["[SEP]"]
    m = json.load(open(os.path.join(d, "manifest.json")))
    seq = m["seq_length"]
    rows = real_total = masked_total = swapped = 0
    for name in sorted(os.listdir(os.path.join(d, "batches"))):
        if not name.endswith(".tokens.i32"):
            continue
        base = os.path.join(d, "batches", name[: -len(".tokens.i32")])
        tok, lab = ints(base + ".tokens.i32"), ints(base + ".labels.i32")
        mask = ints(base + ".mask.f32", "f")
        types, keep = ints(base + ".token_types.i32"), ints(base + ".padding_mask.i32")
        sop, sop_mask = ints(base + ".sop_labels.i32"), ints(base + ".sop_mask.i32")
        for r in range(len(tok) // seq):
            row = slice(r * seq, (r + 1) * seq)
            t, ty, k, lm = tok[row], types[row], keep[row], mask[row]
            real = sum(k)
            assert all(k[i] == (i < real) for i in range(seq)), "padding mask is not a prefix"
            assert t[0] == cls and t[real - 1] == sep, "not [CLS] ... [SEP]"
            assert all(x == pad for x in t[real:]), "padding is not [PAD]"
            seps = [i for i in range(real) if t[i] == sep and lm[i] == 0]
            first_sep = seps[0]
            assert all(ty[i] == (first_sep < i < real) for i in range(seq)), "token types"
            assert lm[0] == 0 and all(lm[i] == 0 for i in range(real, seq)), "loss on [CLS]/padding"
            assert all(lab[r * seq + i] == 0 for i in range(seq) if lm[i] == 0), "label without loss"
            assert sop_mask[r * seq] == 1 and sum(sop_mask[row]) == 1, "sop mask"
            assert sum(sop[row]) == sop[r * seq] and sop[r * seq] in (0, 1), "sop label"
            rows += 1
            real_total += real
            masked_total += int(sum(lm))
            swapped += sop[r * seq]
    print(f"{rows} samples: [CLS] A [SEP] B [SEP] padded")
    print(f"masked share of real tokens: {masked_total / real_total:.3f}")
    print(f"sentence order swapped in {swapped} of {rows}")


if __name__ == "__main__":
    main()
