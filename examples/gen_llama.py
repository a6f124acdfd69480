#!/usr/bin/env python3
"""Writes the Llama-style example models (examples/llama*.mlir) from one template (mtgen/llama.py).

A Llama-style decoder (Touvron et al. 2023; Meta's reference code and Hugging
Face's LlamaForCausalLM): RMS norm before attention and MLP, rotary positions
on queries and keys (consecutive pairs, as Meta's code rotates them),
grouped-query attention (fewer key/value heads than query heads), a SwiGLU
MLP (down(silu(gate(x)) * up(x))), no biases, no dropout, an output layer
untied from the embedding. With `alibi`, ALiBi biases on the attention scores
replace the rotary positions. Usage: gen_llama.py OUTPUT_DIR [MODEL...]
(default: the committed examples); test/examples/roundtrip.test checks they parse.
"""
import os
import sys

sys.dont_write_bytecode = True  # leave no __pycache__ beside the sources
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from mtgen import cli, llama  # noqa: E402

if __name__ == "__main__":
    cli.main("gen_llama.py", llama.EXAMPLES, llama.TEST_MODELS, llama.model)
