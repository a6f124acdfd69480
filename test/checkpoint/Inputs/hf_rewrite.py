"""Rewrites a Hugging Face model directory as files found in the wild differ
from save_pretrained's: tensors renamed (a regular expression and its
replacement, e.g. TensorFlow's LayerNorm.gamma/beta) and extra tensors added
(buffers older versions saved). One F32 model.safetensors out.

Usage: hf_rewrite.py SRC DST [--rename PATTERN REPLACEMENT]... [--add NAME N]...
"""
import os
import re
import shutil
import sys

import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from hf_files import read_model, write_file  # noqa: E402


def main():
    src, dst, args = sys.argv[1], sys.argv[2], sys.argv[3:]
    tensors = read_model(src)
    while args:
        if args[0] == "--rename":
            pattern, replacement = args[1], args[2]
            tensors = {re.sub(pattern, replacement, k): v for k, v in tensors.items()}
            args = args[3:]
        elif args[0] == "--add":
            tensors[args[1]] = torch.arange(int(args[2]), dtype=torch.float32)
            args = args[3:]
        else:
            sys.exit(f"unknown argument {args[0]}")
    os.makedirs(dst, exist_ok=True)
    shutil.copy(os.path.join(src, "config.json"), os.path.join(dst, "config.json"))
    write_file(os.path.join(dst, "model.safetensors"), dict(sorted(tensors.items())), "F32")


if __name__ == "__main__":
    main()
