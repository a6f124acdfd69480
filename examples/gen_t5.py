#!/usr/bin/env python3
"""Writes the T5 example models (examples/t5*.mlir) from one template (mtgen/t5.py).

T5 (Raffel et al. 2020) as Hugging Face's T5ForConditionalGeneration defines
it: an encoder and a decoder stack over one shared embedding; pre-norm layers
with T5's layer norm (RMS, no mean, no bias, eps 1e-6); attention without
biases or 1/sqrt(d) scaling, with a relative position bias (buckets of
key - query distances, one [buckets, heads] table per stack shared by its
layers: bidirectional in the encoder, causal in the decoder; none in the
decoder's cross-attention); a feed-forward of ReLU (v1.0) or gated GeLU
(v1.1: gelu_tanh(wi_0 x) * wi_1 x). v1.0 ties the output layer to the shared
embedding and scales the decoder's output by d_model^-0.5 first; v1.1 has an
untied lm_head. Parameter names are Hugging Face's (the stacked per-layer
weights under encoder.block. / decoder.block.).

The batch: the encoder's tokens and padding mask ([batch, seq], true = a
real token), the decoder's input tokens, labels and loss mask ([batch,
decoder seq], marked mt.sequence = "decoder": mtc --decoder-seq-length). The
loss is the mean cross-entropy over the loss mask (Hugging Face's labels of
-100 are loss_mask 0); it is also returned as the "lm loss" metric, the name
Megatron's T5 prints.

Usage: gen_t5.py OUTPUT_DIR [MODEL...] (default: the committed examples).
"""
import os
import sys

sys.dont_write_bytecode = True  # leave no __pycache__ beside the sources
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from mtgen import cli, t5  # noqa: E402

if __name__ == "__main__":
    cli.main("gen_t5.py", t5.EXAMPLES, t5.TEST_MODELS, t5.model)
