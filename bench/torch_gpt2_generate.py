"""PyTorch side of bench/generate.sh: GPT-2 written as a PyTorch user writes
it (bench/torch_gpt_model.py: nn.Embedding, nn.LayerNorm, nn.Linear,
F.gelu(approximate="tanh"), the head tied to the embedding as F.linear, a
per-layer KV cache grown with torch.cat as Hugging Face's past_key_values
is), random weights (GPT-2's initialization), dropout off; a prompt of CONTEXT tokens, then NEW greedy
decode steps. Prints prompt and decode tokens/s.

Usage: torch_gpt2_generate.py LAYERS HIDDEN HEADS VOCAB POSITIONS CONTEXT NEW THREADS
"""
import sys
import time

import torch

from torch_gpt_model import GPT  # bench/torch_gpt_model.py, beside this script


def main():
    layers, hidden, heads, vocab, positions, context, new, threads = map(int, sys.argv[1:9])
    torch.set_num_threads(threads)
    torch.manual_seed(0)
    model = GPT(layers, hidden, heads, vocab, positions).eval()
    prompt = torch.randint(0, vocab, (1, context))
    with torch.no_grad():
        start = time.perf_counter()
        logits, past = model(prompt)
        prompt_s = time.perf_counter() - start
        token = logits[:, -1:].argmax(-1)
        start = time.perf_counter()
        for _ in range(new):
            logits, past = model(token, past=past)
            token = logits[:, -1:].argmax(-1)
        decode_s = time.perf_counter() - start
    print(f"torch: prompt {context} tokens {context / prompt_s:.1f} tokens/s; "
          f"decode {new} steps {new / decode_s:.2f} tokens/s ({1e3 * decode_s / new:.1f} ms a step)")


if __name__ == "__main__":
    main()
