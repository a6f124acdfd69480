#!/usr/bin/env python3
"""Writes the GPT example models (examples/gpt2*.mlir) from one template (mtgen/gpt.py).

The models differ only in their sizes, so they are generated rather than
edited by hand; test/examples/up-to-date.test checks the committed files
match this script's output.  Usage: gen_gpt.py OUTPUT_DIR [MODEL...] (default: the committed examples)
"""
import os
import sys

sys.dont_write_bytecode = True  # leave no __pycache__ beside the sources
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from mtgen import cli, gpt  # noqa: E402

if __name__ == "__main__":
    cli.main("gen_gpt.py", gpt.EXAMPLES, gpt.TEST_MODELS, gpt.model)
