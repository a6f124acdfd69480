"""An independent reference for T5 generation (issue #40), in PyTorch 1.13.

Reads an exported Hugging Face T5 directory with test/checkpoint's own
safetensors code, runs T5ForConditionalGeneration's forward as
test/reference/torch_t5.py writes it (the encoder once on the input, the
whole decoder sequence again at every step: no cache to share a mistake
with ours), and checks what mt-generate printed or dumped. The decoder
starts from token 0 and ends at 1 (</s>); greedy and beam search are
gpt2_generate_reference.py's, over this model.

  logits HF INPUT DECODER DUMP   DUMP (f32 [positions, vocab]) is the
                                 decoder's logits of DECODER given INPUT (1e-5)
  greedy HF INPUT N OUT          greedy generation of N tokens equals OUT
  beam HF INPUT N W LP OUT       beam search of width W, length penalty LP

INPUT, DECODER and OUT are space-separated ids; OUT is what mt-generate --ids
prints for an encoder-decoder (the generated tokens, without the start).
"""
import json
import os
import sys

import torch

here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, here)
sys.path.insert(0, os.path.join(here, "..", "..", "checkpoint", "Inputs"))
sys.path.insert(0, os.path.join(here, "..", "..", "reference"))
import gpt2_generate_reference as search  # noqa: E402
from hf_files import read_model  # noqa: E402
from hf_reference import stacked  # noqa: E402
from torch_t5 import t5_logits  # noqa: E402

START, END = 0, 1


class T5:
    def __init__(self, hf_dir, encoder_input):
        cfg = json.load(open(f"{hf_dir}/config.json"))
        self.p = stacked(read_model(hf_dir), False)
        self.layers, self.heads = cfg["num_layers"], cfg["num_heads"]
        self.gated = cfg.get("feed_forward_proj", "relu").startswith("gated")
        self.input = torch.tensor([encoder_input])

    def forward(self, tokens, past=None):
        """The logits of `tokens` [b, s] after the decoder tokens in `past`
        (one (seq, seq) pair, so a beam search's reordering applies)."""
        seq = tokens if past is None else torch.cat([past[0][0], tokens], 1)
        b = seq.shape[0]
        inputs = self.input.expand(b, -1)
        logits = t5_logits(self.p, inputs, seq, torch.ones_like(inputs), self.layers, self.heads,
                           self.gated)
        return logits[:, -tokens.shape[1]:], [(seq, seq)]


def main():
    torch.set_num_threads(1)
    search.EOS = END
    cmd, args = sys.argv[1], sys.argv[2:]
    with torch.no_grad():
        model = T5(args[0], search.ids(args[1]))
        if cmd == "logits":
            theirs, _ = model.forward(torch.tensor([search.ids(args[2])]))
            ours = search.dump(args[3], theirs.shape[-1])
            search.compare("decoder logits against the reference's forward", ours,
                           theirs[0, :ours.shape[0]])
            print("the same logits as the reference")
            return
        if cmd == "greedy":
            expect = search.greedy(model, [START], int(args[2]))[1:]
            got = search.ids(args[3])
        else:
            expect = search.beam(model, [START], int(args[2]), int(args[3]), float(args[4]))[1:]
            got = search.ids(args[5])
        print("reference:", " ".join(map(str, expect)))
        print(("greedy" if cmd == "greedy" else "beam search") + " " +
              ("matches" if got == expect else "DIFFERS"))
        sys.exit(0 if got == expect else 1)


if __name__ == "__main__":
    main()
