#!/usr/bin/env python3
"""Checks an mt-run log (--log-interval 1) of dynamic loss scaling: after
WINDOW steps in a row without overflow, the next step's loss scale is twice
the scale of those steps.

usage: check_scale_grows.py LOG WINDOW
"""
import re
import sys


def main():
    log, window = sys.argv[1], int(sys.argv[2])
    steps = []
    pattern = re.compile(r"iteration +(\d+)/\d+ .*\| loss scale ([0-9.e+]+) \|")
    with open(log) as f:
        for line in f:
            m = pattern.search(line.rstrip())
            if m:
                steps.append((int(m.group(1)), float(m.group(2)), "SKIPPED" in line))
    good = 0
    for (it, scale, skipped), nxt in zip(steps, steps[1:]):
        good = 0 if skipped else good + 1
        if good == window:
            if nxt[1] == 2 * scale:
                print(f"the loss scale doubled after {window} good steps "
                      f"(iteration {nxt[0]}: {scale:g} -> {nxt[1]:g})")
                return 0
            print(f"FAIL: after {window} good steps ending at iteration {it} the scale went "
                  f"{scale:g} -> {nxt[1]:g}")
            return 1
    print(f"FAIL: no run of {window} good steps in {len(steps)} logged steps")
    return 1


if __name__ == "__main__":
    sys.exit(main())
