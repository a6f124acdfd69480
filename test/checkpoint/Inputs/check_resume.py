#!/usr/bin/env python3
"""Checks that a run stopped and resumed equals one that never stopped.

usage: check_resume.py FULL PART [PART ...] [--rtol R]

FULL and the PARTs are `mt-run --record` directories: FULL ran every step,
the PARTs ran them in pieces (the first stopped with --train-iters and
saved, the next resumed with --load, ...). Their losses.txt lines, put end
to end, must equal FULL's: every column (loss, gradient norm and learning
rate with 17 significant digits, the skip flag, the step) character for
character, and the last PART's final parameters must equal FULL's byte for
byte. With --rtol (a resume into another layout) only each step's loss is
compared, to that relative tolerance. Prints one line; exits 1 on a mismatch.
"""
import argparse
import os
import sys


def lines(run):
    with open(os.path.join(run, "losses.txt")) as f:
        return [line.rstrip("\n") for line in f if line.strip()]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("full")
    ap.add_argument("parts", nargs="+")
    ap.add_argument("--rtol", type=float)
    args = ap.parse_args()
    full = lines(args.full)
    joined = [line for part in args.parts for line in lines(part)]
    name = "+".join(os.path.basename(p) for p in args.parts)
    if len(joined) != len(full):
        print(f"FAIL {name}: {len(joined)} steps, {os.path.basename(args.full)} has {len(full)}")
        sys.exit(1)
    if args.rtol is not None:
        worst, at = 0.0, 0
        for a, b in zip(full, joined):
            x, y = float(a.split()[0]), float(b.split()[0])
            rel = abs(x - y) / max(abs(x), 1e-30)
            if rel > worst:
                worst, at = rel, int(b.split()[4])
        ok = worst <= args.rtol
        print(f"{'ok' if ok else 'FAIL'} {name}: {len(full)} steps, largest loss difference "
              f"{worst:.1e} (step {at})")
        sys.exit(0 if ok else 1)
    for a, b in zip(full, joined):
        if a != b:
            print(f"FAIL {name}: step {b.split()[4]} differs:\n  {a}\n  {b}")
            sys.exit(1)
    final_full = os.path.join(args.full, "final")
    final_part = os.path.join(args.parts[-1], "final")
    names = sorted(os.listdir(final_full))
    for n in names:
        with open(os.path.join(final_full, n), "rb") as f, open(os.path.join(final_part, n), "rb") as g:
            if f.read() != g.read():
                print(f"FAIL {name}: final parameter {n[:-4]} differs")
                sys.exit(1)
    print(f"identical {name}: {len(full)} steps, every digit; {len(names)} final parameters "
          f"bit for bit")


if __name__ == "__main__":
    main()
