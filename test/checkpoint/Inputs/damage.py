#!/usr/bin/env python3
"""Damages a file in place, as disks and killed jobs do.

usage: damage.py FILE flip OFFSET     one byte at OFFSET (negative: from the end) flipped
       damage.py FILE truncate BYTES  cut to BYTES (negative: that many fewer)
       damage.py FILE version N       a checkpoint manifest's format version set to N
"""
import struct
import sys

path, what, arg = sys.argv[1], sys.argv[2], int(sys.argv[3])
data = bytearray(open(path, "rb").read())
if what == "flip":
    data[arg] ^= 0x5A
elif what == "truncate":
    data = data[:arg] if arg >= 0 else data[:len(data) + arg]
elif what == "version":
    data[8:16] = struct.pack("<Q", arg)
else:
    sys.exit(f"unknown damage '{what}'")
open(path, "wb").write(bytes(data))
