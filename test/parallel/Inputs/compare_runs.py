#!/usr/bin/env python3
"""Checks that runs recorded with `mt-run --record DIR` agree with a reference.

usage: compare_runs.py REF RUN [RUN ...] [--rtol 1e-5] [--param-tol 1e-4]

Every step's loss must match the reference's to --rtol (relative), and every
final parameter element to --param-tol, relative to the largest magnitude of
that parameter (Adam divides by sqrt(v), so after many steps tiny
reduction-order differences in the gradients show up in the parameters at
this scale, not at the losses' 1e-5). A parameter that stays at rounding
noise because the loss does not depend on it (an attention key bias: softmax
ignores a constant added to a row of scores) is measured against 1e-3 of the
model's largest parameter magnitude instead of its own.
Prints one line per run with the largest differences; exits 1 on a mismatch.
"""
import argparse
import array
import json
import os
import sys


def losses(run):
    with open(os.path.join(run, "losses.txt")) as f:
        return [float(line.split()[0]) for line in f if line.strip()]


def params(run):
    with open(os.path.join(run, "manifest.json")) as f:
        manifest = json.load(f)
    out = {}
    for p in manifest["parameters"]:
        values = array.array("f")
        with open(os.path.join(run, "final", p["name"] + ".f32"), "rb") as f:
            values.frombytes(f.read())
        out[p["name"]] = values
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("ref")
    ap.add_argument("runs", nargs="+")
    ap.add_argument("--rtol", type=float, default=1e-5)
    ap.add_argument("--param-tol", type=float, default=1e-4)
    args = ap.parse_args()
    ref_losses, ref_params = losses(args.ref), params(args.ref)
    ok = True
    for run in args.runs:
        run_losses, run_params = losses(run), params(run)
        if len(run_losses) != len(ref_losses):
            print(f"FAIL {run}: {len(run_losses)} steps, reference has {len(ref_losses)}")
            ok = False
            continue
        worst_loss, worst_step = 0.0, 0
        for step, (a, b) in enumerate(zip(ref_losses, run_losses), 1):
            rel = abs(a - b) / max(abs(a), 1e-30)
            if rel > worst_loss:
                worst_loss, worst_step = rel, step
        worst_param, worst_name = 0.0, ""
        floor = 1e-3 * max(max(abs(v) for v in p) for p in ref_params.values())
        for name, ref in ref_params.items():
            got = run_params.get(name)
            if got is None or len(got) != len(ref):
                print(f"FAIL {run}: parameter {name} is missing or has another size")
                ok = False
                continue
            scale = max(max(abs(v) for v in ref), floor, 1e-30)
            diff = max(abs(a - b) for a, b in zip(ref, got)) / scale
            if diff > worst_param:
                worst_param, worst_name = diff, name
        good = worst_loss <= args.rtol and worst_param <= args.param_tol
        ok = ok and good
        print(f"{'ok' if good else 'FAIL'} {os.path.basename(run)}: {len(run_losses)} steps, "
              f"largest loss difference {worst_loss:.1e} (step {worst_step}), "
              f"largest parameter difference {worst_param:.1e} ({worst_name})")
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
