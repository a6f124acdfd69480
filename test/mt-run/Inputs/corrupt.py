"""Copies a file with one byte at OFFSET flipped. Usage: corrupt.py IN OUT OFFSET"""
import sys

data = bytearray(open(sys.argv[1], "rb").read())
data[int(sys.argv[3])] ^= 0x5A
open(sys.argv[2], "wb").write(bytes(data))
