"""Checks the T5 batches an `mt-run --record DIR` run drew (span corruption,
Megatron's layout): each encoder row is clean tokens with sentinels
first_sentinel, first_sentinel + 1, ... in order, then </s>, then padding
(the padding mask 1 exactly on the real tokens); the labels are each
sentinel followed by its span, then </s>, with the loss mask 1 exactly
there; the decoder's input is the labels shifted right behind the start
token; the sentinel count matches. Prints the shares FileCheck looks at.

Usage: check_t5_batches.py DIR FIRST_SENTINEL EOS START
"""
import array
import json
import os
import sys


def values(path, kind):
    a = array.array(kind)
    with open(path, "rb") as f:
        a.frombytes(f.read())
    return list(a)


def main():
    d, first, eos, start = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
    m = json.load(open(os.path.join(d, "manifest.json")))
    se, sd = m["seq_length"], m["decoder_seq_length"]
    rows = noise = real = spans = 0
    batches = sorted({n.split(".")[0] for n in os.listdir(os.path.join(d, "batches"))}, key=int)
    for b in batches:
        base = os.path.join(d, "batches", b)
        enc, pad = values(base + ".tokens.i32", "i"), values(base + ".padding_mask.i32", "i")
        dec, lab = values(base + ".decoder_tokens.i32", "i"), values(base + ".labels.i32", "i")
        mask = values(base + ".mask.f32", "f")
        for r in range(len(enc) // se):
            e, p = enc[r * se:(r + 1) * se], pad[r * se:(r + 1) * se]
            t, l, k = dec[r * sd:(r + 1) * sd], lab[r * sd:(r + 1) * sd], mask[r * sd:(r + 1) * sd]
            n_enc, n_dec = sum(p), int(sum(k))
            assert p == [1] * n_enc + [0] * (se - n_enc), ("padding mask", b, r)
            assert k == [1.0] * n_dec + [0.0] * (sd - n_dec), ("loss mask", b, r)
            assert e[n_enc - 1] == eos and l[n_dec - 1] == eos, ("</s> last", b, r)
            enc_sentinels = [x for x in e[:n_enc] if x >= first]
            dec_sentinels = [x for x in l[:n_dec] if x >= first]
            assert enc_sentinels == list(range(first, first + len(enc_sentinels))), ("order", b, r)
            assert dec_sentinels == enc_sentinels and l[0] == first, ("labels", b, r)
            assert t[0] == start and t[1:n_dec] == l[:n_dec - 1], ("shifted", b, r)
            rows += 1
            spans += len(enc_sentinels)
            noise += n_dec - 1 - len(dec_sentinels)
            real += n_enc - 1 - len(enc_sentinels) + n_dec - 1 - len(dec_sentinels)
    print(f"{rows} samples: clean + sentinels + </s> | sentinel + span ... </s>")
    print(f"noise share of the text: {noise / real:.3f}")
    print(f"mean span length: {noise / spans:.2f}")


if __name__ == "__main__":
    main()
