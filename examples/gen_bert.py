#!/usr/bin/env python3
"""Writes the BERT example models (examples/bert*.mlir) from one template (mtgen/bert.py).

BERT (Devlin et al. 2019) for pre-training: word + position + token-type
embeddings, a bidirectional encoder whose attention hides padding keys, the
masked-LM head (dense, GeLU, layer norm, then the word embedding, tied, plus a
bias) and the binary sentence-order / next-sentence head on the pooled first
token (dense + tanh, then Linear(hidden, 2)). Two layer styles:
  hf        the paper's and Hugging Face's BertForPreTraining: post-LN layers,
            a layer norm on the embeddings, eps 1e-12; parameter names as
            Hugging Face's checkpoints spell them;
  megatron  Megatron-LM's BertModel: pre-LN layers and a final layer norm, no
            embedding layer norm, eps 1e-5.
Both count the same parameters (Megatron's final norm replaces the embedding
norm).

The loss is Megatron's: lm loss (mean cross-entropy over the masked
positions, loss_mask) + sop loss (cross-entropy of the binary head); both,
and the masked-LM accuracy, are also returned as metrics (mt.metric), which
mt-run prints beside it. The
pooler and binary head run at every position and the sop loss weighs only the
first one (sop_mask is 1 there, 0 elsewhere; sop_labels holds the label
there): the same loss and gradients as pooling the first token, with nothing
but ops every pass already knows.

Usage: gen_bert.py OUTPUT_DIR [MODEL...] (default: the committed examples).
"""
import os
import sys

sys.dont_write_bytecode = True  # leave no __pycache__ beside the sources
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from mtgen import cli, bert  # noqa: E402

if __name__ == "__main__":
    cli.main("gen_bert.py", bert.EXAMPLES, bert.TEST_MODELS, bert.model)
