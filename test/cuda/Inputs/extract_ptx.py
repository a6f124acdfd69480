#!/usr/bin/env python3
"""Writes every PTX module of gpu.binary ops (gpu-module-to-binary format=isa)
in an MLIR file to OUT_DIR/<n>.ptx and prints how many.

usage: extract_ptx.py MLIR_FILE OUT_DIR
"""
import os
import re
import sys


def main():
    text = open(sys.argv[1]).read()
    out = sys.argv[2]
    os.makedirs(out, exist_ok=True)
    modules = re.findall(r'assembly = "((?:[^"\\]|\\.)*)"', text)
    for n, escaped in enumerate(modules):
        # MLIR string escapes: \XX hex bytes and \\.
        ptx = re.sub(r'\\([0-9A-Fa-f]{2}|\\)',
                     lambda m: '\\' if m.group(1) == '\\' else chr(int(m.group(1), 16)), escaped)
        with open(os.path.join(out, f"{n}.ptx"), "w") as f:
            f.write(ptx)
    print(f"{len(modules)} PTX modules")
    return 0 if modules else 1


if __name__ == "__main__":
    sys.exit(main())
