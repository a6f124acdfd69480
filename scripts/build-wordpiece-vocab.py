#!/usr/bin/env python3
"""Builds a small BERT WordPiece vocabulary (vocab.txt format) from a corpus.

Usage: build-wordpiece-vocab.py CORPUS.txt SIZE OUT.txt

For tests and demos (Megatron takes a trained vocab.txt, e.g. bert-base-uncased's):
the vocabulary covers every word of CORPUS.txt, so a lower-casing
WordPiece tokenizer (Megatron's BertWordPieceLowerCase) produces no [UNK] for
it, except for words longer than 100 characters, which BERT always makes
[UNK]. OUT.txt has exactly SIZE lines:
  - [PAD] [UNK] [CLS] [SEP] [MASK] (ids 0..4);
  - every distinct character of the corpus after BERT's lower-cased basic
    tokenization, in code point order, each as itself and as ##itself;
  - the most frequent whole words (ties in code point order) until SIZE;
  - [unused0], [unused1], ... when the corpus runs out of words.
It fails when the special tokens and the characters alone exceed SIZE.
The output depends only on the corpus and SIZE. Standard library only.
"""
import collections
import sys
import unicodedata

SPECIALS = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"]
MAX_WORD_CHARS = 100


def is_control(ch):
    return ch not in "\t\n\r" and unicodedata.category(ch) in ("Cc", "Cf")


def is_punctuation(ch):
    cp = ord(ch)
    if 33 <= cp <= 47 or 58 <= cp <= 64 or 91 <= cp <= 96 or 123 <= cp <= 126:
        return True
    return unicodedata.category(ch).startswith("P")


def is_cjk(cp):
    return (0x4E00 <= cp <= 0x9FFF or 0x3400 <= cp <= 0x4DBF or 0x20000 <= cp <= 0x2A6DF
            or 0x2A700 <= cp <= 0x2CEAF or 0xF900 <= cp <= 0xFAFF or 0x2F800 <= cp <= 0x2FA1F)


def basic_tokens(text):
    """BERT's BasicTokenizer with do_lower_case=True."""
    cleaned = []
    for ch in text:
        cp = ord(ch)
        if cp == 0 or cp == 0xFFFD or is_control(ch):
            continue
        if ch in " \t\n\r" or unicodedata.category(ch) == "Zs":
            cleaned.append(" ")
        elif is_cjk(cp):
            cleaned.append(" " + ch + " ")
        else:
            cleaned.append(ch)
    for word in "".join(cleaned).split():
        word = unicodedata.normalize("NFD", word.lower())
        word = "".join(ch for ch in word if unicodedata.category(ch) != "Mn")
        piece = ""
        for ch in word:
            if is_punctuation(ch):
                if piece:
                    yield piece
                    piece = ""
                yield ch
            else:
                piece += ch
        if piece:
            yield piece


def build(text, size):
    counts = collections.Counter(basic_tokens(text))
    chars = sorted({ch for word in counts for ch in word})
    vocab = list(SPECIALS)
    for ch in chars:
        vocab += [ch, "##" + ch]
    if len(vocab) > size:
        raise ValueError(f"the special tokens and the corpus's {len(chars)} distinct characters "
                         f"(each twice) need {len(vocab)} lines, more than SIZE {size}")
    present = set(vocab)
    words = sorted((w for w in counts if w not in present and len(w) <= MAX_WORD_CHARS),
                   key=lambda w: (-counts[w], w))
    vocab += words[:size - len(vocab)]
    vocab += [f"[unused{i}]" for i in range(size - len(vocab))]
    return vocab


def main(argv):
    if len(argv) != 4:
        sys.stderr.write("usage: build-wordpiece-vocab.py CORPUS.txt SIZE OUT.txt\n")
        return 2
    corpus, size_text, out = argv[1:]
    try:
        size = int(size_text)
        if size <= 0:
            raise ValueError
    except ValueError:
        sys.stderr.write(f"build-wordpiece-vocab.py: SIZE must be a positive integer, "
                         f"not {size_text!r}\n")
        return 2
    try:
        with open(corpus, "rb") as f:
            text = f.read().decode("utf-8", errors="replace")  # U+FFFD is dropped, as BERT does
        vocab = build(text, size)
        with open(out, "w", encoding="utf-8", newline="\n") as f:
            f.write("".join(token + "\n" for token in vocab))
    except (OSError, ValueError) as e:
        sys.stderr.write(f"build-wordpiece-vocab.py: {e}\n")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
