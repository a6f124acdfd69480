"""An independent reference for mt-generate (issue #22), in PyTorch 1.13.

Reads an exported Hugging Face GPT-2 directory with its own safetensors
parser, runs GPT2LMHeadModel's forward as Hugging Face defines it (Conv1D
weights [in, out], gelu_new, causal attention, lm_head tied to wte) with its
own KV cache (past keys and values concatenated per step, as transformers
does), and checks what mt-generate printed or dumped:

  logits HF IDS DUMP      DUMP (f32 [positions, vocab]) is the full forward's
                          logits of IDS at its first positions (1e-5)
  same A B VOCAB          two dumps agree on the positions both have (1e-5)
  close A B VOCAB TOL     dump A is within TOL of dump B (16-bit against f32):
                          the RMS of the difference over B's, on the
                          positions both have; the largest difference too
  greedy HF PROMPT N OUT  greedy continuation of N tokens equals OUT
  beam HF PROMPT N W LP OUT   beam search of width W, length penalty LP
  sampled DUMP PROMPT OUT K P T  every drawn token was allowed: among the
                          top K and inside the nucleus of mass P of the
                          logits at its position divided by temperature T

IDS, PROMPT and OUT are space-separated ids (OUT as mt-generate --ids prints:
prompt then continuation). Relative differences are max |a - b| / max |b|.
"""
import json
import math
import os
import struct
import sys

import torch
import torch.nn.functional as F

TOLERANCE = 1e-5
EOS = 50256


def read_safetensors(path):
    data = open(path, "rb").read()
    (n,) = struct.unpack("<Q", data[:8])
    header = json.loads(data[8:8 + n].decode("utf-8"))
    header.pop("__metadata__", None)
    tensors = {}
    for name, info in header.items():
        assert info["dtype"] == "F32", (name, info["dtype"])
        begin, end = info["data_offsets"]
        raw = bytearray(data[8 + n + begin:8 + n + end])
        tensors[name] = torch.frombuffer(raw, dtype=torch.float32).reshape(info["shape"]).clone()
    return tensors


def gelu_new(x):
    return 0.5 * x * (1.0 + torch.tanh(math.sqrt(2.0 / math.pi) * (x + 0.044715 * torch.pow(x, 3.0))))


class Gpt2:
    def __init__(self, hf_dir):
        self.t = read_safetensors(f"{hf_dir}/model.safetensors")
        self.cfg = json.load(open(f"{hf_dir}/config.json"))

    def forward(self, tokens, past=None):
        """tokens [b, s] at positions after `past` (a list of (k, v) per layer);
        returns logits [b, s, vocab] and the grown cache."""
        t, cfg = self.t, self.cfg
        b, s = tokens.shape
        hidden, heads = cfg["n_embd"], cfg["n_head"]
        hd, eps = hidden // heads, cfg["layer_norm_epsilon"]
        start = 0 if past is None else past[0][0].shape[2]
        h = t["transformer.wte.weight"][tokens] + t["transformer.wpe.weight"][start:start + s]
        total = start + s
        # query i (position start + i) sees keys j <= start + i
        causal = torch.arange(total)[None, :] <= (start + torch.arange(s))[:, None]
        grown = []
        for l in range(cfg["n_layer"]):
            p = lambda name: t[f"transformer.h.{l}.{name}"]
            a = F.layer_norm(h, (hidden,), p("ln_1.weight"), p("ln_1.bias"), eps)
            q, k, v = (a @ p("attn.c_attn.weight") + p("attn.c_attn.bias")).split(hidden, dim=-1)
            q, k, v = (x.reshape(b, s, heads, hd).transpose(1, 2) for x in (q, k, v))
            if past is not None:
                k = torch.cat([past[l][0], k], dim=2)
                v = torch.cat([past[l][1], v], dim=2)
            grown.append((k, v))
            scores = (q @ k.transpose(-1, -2)) / math.sqrt(hd)
            probs = scores.masked_fill(~causal, float("-inf")).softmax(-1)
            ctx = (probs @ v).transpose(1, 2).reshape(b, s, hidden)
            h = h + ctx @ p("attn.c_proj.weight") + p("attn.c_proj.bias")
            m = F.layer_norm(h, (hidden,), p("ln_2.weight"), p("ln_2.bias"), eps)
            h = h + gelu_new(m @ p("mlp.c_fc.weight") + p("mlp.c_fc.bias")) @ p("mlp.c_proj.weight") + p("mlp.c_proj.bias")
        y = F.layer_norm(h, (hidden,), t["transformer.ln_f.weight"], t["transformer.ln_f.bias"], eps)
        return y @ t["transformer.wte.weight"].T, grown


def ids(text):
    return [int(x) for x in text.split()]


def dump(path, vocab):
    raw = bytearray(open(path, "rb").read())
    return torch.frombuffer(raw, dtype=torch.float32).reshape(-1, vocab).clone()


def compare(what, ours, theirs):
    rel = float((ours - theirs).abs().max() / theirs.abs().max())
    print(f"{what}: {ours.shape[0]} positions, relative difference {rel:.2e}")
    if not rel <= TOLERANCE:
        print("MISMATCH")
        sys.exit(1)


def greedy(model, prompt, n):
    logits, past = model.forward(torch.tensor([prompt]))
    out = list(prompt)
    for step in range(n):
        token = int(logits[0, -1].argmax())
        out.append(token)
        if token == EOS or step + 1 == n:
            break
        logits, past = model.forward(torch.tensor([[token]]), past)
    return out


def beam(model, prompt, n, width, length_penalty):
    """Hugging Face's beam search (no sampling, no early stopping): 2 x width
    candidates a step, an end token among the best width ends a hypothesis
    scored sum / L^length_penalty (L: generated tokens, the end included),
    done once width hypotheses are kept and none running can beat the worst."""
    logits, past = model.forward(torch.tensor([prompt] * width))
    scores = torch.full((width,), float("-inf"), dtype=torch.float64)
    scores[0] = 0.0
    beams = [[] for _ in range(width)]
    kept = []
    norm = lambda s, length: s / (length ** length_penalty)
    done = False
    for step in range(n):
        lp = torch.log_softmax(logits[:, -1].double(), dim=-1)
        cand = (scores[:, None] + lp)
        vocab = cand.shape[1]
        flat = [(float(cand[b, t]), b, t) for b in range(width) if scores[b] != float("-inf")
                for t in torch.topk(cand[b], 2 * width).indices.tolist()]
        flat.sort(key=lambda c: (-c[0], c[1], c[2]))
        nxt = []
        for rank, (s, b, t) in enumerate(flat[:2 * width]):
            if len(nxt) == width:
                break
            if t == EOS:
                if rank < width:
                    kept.append((norm(s, len(beams[b]) + 1), beams[b] + [t]))
                    if len(kept) > width:
                        kept.remove(min(kept, key=lambda h: h[0]))
                continue
            nxt.append((s, b, t))
        beams = [beams[b] + [t] for _, b, t in nxt]
        scores = torch.tensor([s for s, _, _ in nxt], dtype=torch.float64)
        if len(kept) >= width and min(h[0] for h in kept) >= norm(float(scores.max()), step + 1):
            done = True
            break
        if step + 1 == n:
            break
        parents = [b for _, b, _ in nxt]
        past = [(k[parents], v[parents]) for k, v in past]
        logits, past = model.forward(torch.tensor([[t] for _, _, t in nxt]), past)
    if not done:
        for b in range(width):
            kept.append((norm(float(scores[b]), len(beams[b])), beams[b]))
            if len(kept) > width:
                kept.remove(min(kept, key=lambda h: h[0]))
    best = max(kept, key=lambda h: h[0])  # max keeps the first of equals
    return prompt + best[1]


def allowed(logits, k, p, temperature):
    order = sorted(range(len(logits)), key=lambda i: (-float(logits[i]), i))
    if k > 0:
        order = order[:k]
    probs = torch.softmax(logits[order].double() / temperature, dim=0)
    keep, mass = [], 0.0
    for i, prob in zip(order, probs.tolist()):
        if keep and mass >= p:
            break
        keep.append(i)
        mass += prob
    return set(keep)


def main():
    torch.set_num_threads(1)
    cmd, args = sys.argv[1], sys.argv[2:]
    with torch.no_grad():
        if cmd == "logits":
            model = Gpt2(args[0])
            tokens = ids(args[1])
            theirs, _ = model.forward(torch.tensor([tokens]))
            ours = dump(args[2], theirs.shape[-1])
            compare("logits against the reference's forward", ours, theirs[0, :ours.shape[0]])
            print("the same logits as the reference")
        elif cmd == "same":
            vocab = int(args[2])
            a, b = dump(args[0], vocab), dump(args[1], vocab)
            n = min(a.shape[0], b.shape[0])
            compare("decode with the KV cache against a full forward", a[:n], b[:n])
            print("the KV cache gives the full forward's logits")
        elif cmd == "tail":
            # a left-padded row's logits end with those of its prompt alone
            vocab = int(args[2])
            a, b = dump(args[0], vocab), dump(args[1], vocab)
            compare("a ragged batch's padded row against its prompt alone", a[-b.shape[0]:], b)
            print("the padded row gives its prompt's logits")
        elif cmd == "rows":
            # row r of a batch's output (one line a row) against a run of its
            # prompt alone
            rows = open(args[0]).read().splitlines()
            alone = [ids(open(f).read()) for f in args[1:]]
            same = [ids(r) == a for r, a in zip(rows, alone)] if len(rows) == len(alone) else []
            print(f"{sum(same)} of {len(alone)} rows as their prompts alone")
            sys.exit(0 if same and all(same) else 1)
        elif cmd == "close":
            vocab, tol = int(args[2]), float(args[3])
            a, b = dump(args[0], vocab), dump(args[1], vocab)
            n = min(a.shape[0], b.shape[0])
            a, b = a[:n], b[:n]
            rms = float((a - b).norm() / b.norm())
            top = float((a - b).abs().max() / b.abs().max())
            print(f"{n} positions: RMS difference {rms:.2e} of the logits' RMS, largest {top:.2e} "
                  f"of the largest logit")
            print("within" if rms <= tol else "BEYOND", tol)
            sys.exit(0 if rms <= tol else 1)
        elif cmd == "greedy":
            model = Gpt2(args[0])
            expect = greedy(model, ids(args[1]), int(args[2]))
            got = ids(args[3])
            print("reference:", " ".join(map(str, expect)))
            print("greedy " + ("matches" if got == expect else "DIFFERS"))
            sys.exit(0 if got == expect else 1)
        elif cmd == "beam":
            model = Gpt2(args[0])
            expect = beam(model, ids(args[1]), int(args[2]), int(args[3]), float(args[4]))
            got = ids(args[5])
            print("reference:", " ".join(map(str, expect)))
            print("beam search " + ("matches" if got == expect else "DIFFERS"))
            sys.exit(0 if got == expect else 1)
        elif cmd == "sampled":
            prompt, out, k, p = ids(args[1]), ids(args[2]), int(args[3]), float(args[4])
            temperature = float(args[5])
            new = out[len(prompt):]
            # the dump has row 0's logits at every position run, one row a
            # position; the token drawn after position j was drawn from
            # position j's logits
            positions = len(prompt) + len(new) - 1
            logits = dump(args[0], os.path.getsize(args[0]) // 4 // positions)
            bad = [(i, t) for i, t in enumerate(new)
                   if t not in allowed(logits[len(prompt) - 1 + i], k, p, temperature)]
            print(f"{len(new)} drawn tokens, {len(bad)} outside the allowed set")
            sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
