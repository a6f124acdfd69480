"""Replays an `mt-run --record DIR` run in PyTorch and compares: the first
step's loss and every parameter gradient, then the loss of every AdamW step
(Megatron's schedule, clipping and weight decay, as mt-run applies them).
The model is the caller's loss function, written from the architecture's
definition, not from mtc's output, so the check is independent.
"""
import argparse
import json
import math
import os
import sys

import torch


def load(path, shape, dtype=torch.float32):
    data = open(path, "rb").read()
    return torch.frombuffer(bytearray(data), dtype=dtype).reshape(shape).clone()


def lr_at(m, step):
    warm, decay = m["lr_warmup_iters"], m["lr_decay_iters"]
    if warm > 0 and step <= warm:
        return m["lr"] * step / warm
    if m["lr_decay_style"] == "constant":
        return m["lr"]
    if step > decay:
        return m["min_lr"]
    ratio = (step - warm) / (decay - warm) if decay > warm else 1.0
    coeff = 1.0 - ratio if m["lr_decay_style"] == "linear" else 0.5 * (math.cos(math.pi * ratio) + 1.0)
    return m["min_lr"] + coeff * (m["lr"] - m["min_lr"])


def replay(loss_of, extra_args=(), batch_inputs=(), decoder_inputs=()):
    """loss_of(params, tokens, labels, mask, args) -> the micro-batch's loss;
    extra_args: (name, type) positional arguments after DIR. With
    batch_inputs (the model's further inputs, e.g. BERT's token_types),
    loss_of(params, tokens, labels, mask, inputs, args) gets them by name as
    int64 tensors [micro_batch, seq]; an input named in decoder_inputs, and
    the labels and mask, are [micro_batch, decoder seq] when the run has a
    decoder sequence (T5)."""
    ap = argparse.ArgumentParser()
    ap.add_argument("dir")
    for name, kind in extra_args:
        ap.add_argument(name, type=kind)
    ap.add_argument("--tolerance", type=float, default=1e-5)
    args = ap.parse_args()
    torch.set_num_threads(1)
    d = args.dir
    m = json.load(open(os.path.join(d, "manifest.json")))
    specs = {p["name"]: p for p in m["parameters"]}
    params = {n: load(f"{d}/init/{n}.f32", s["shape"]).requires_grad_() for n, s in specs.items()}
    micro = m["global_batch_size"] // m["micro_batch_size"]
    shape = (m["micro_batch_size"], m["seq_length"])
    target = (m["micro_batch_size"], m.get("decoder_seq_length") or m["seq_length"])
    recorded = [tuple(float(x) for x in line.split()) for line in open(f"{d}/losses.txt")]
    steps = len(recorded)

    def batch(i):
        base = f"{d}/batches/{i}"
        out = (load(base + ".tokens.i32", shape, torch.int32).long(),
               load(base + ".labels.i32", target, torch.int32), load(base + ".mask.f32", target))
        if batch_inputs:
            out += ({n: load(f"{base}.{n}.i32", target if n in decoder_inputs else shape,
                             torch.int32).long() for n in batch_inputs},)
        return out

    decay = [params[n] for n in specs if specs[n]["weight_decay"]]
    no_decay = [params[n] for n in specs if not specs[n]["weight_decay"]]
    opt = torch.optim.AdamW([{"params": decay, "weight_decay": m["weight_decay"]},
                             {"params": no_decay, "weight_decay": 0.0}],
                            lr=m["lr"], betas=(m["adam_beta1"], m["adam_beta2"]), eps=m["adam_eps"])
    worst_loss, failures = 0.0, []
    for step in range(1, steps + 1):
        opt.zero_grad()
        total = 0.0
        for k in range(micro):
            loss = loss_of(params, *batch((step - 1) * micro + k), args)
            loss.backward()
            total += loss.item()
        loss = total / micro
        ours = recorded[step - 1][0]
        rel = abs(loss - ours) / abs(loss)
        worst_loss = max(worst_loss, rel)
        if step == 1:
            print(f"step 1 loss: torch {loss:.9f}, mtc {ours:.9f}, relative difference {rel:.2e}")
            # A gradient that is zero but for rounding (a key bias: softmax
            # ignores a constant added to a row of scores) is measured
            # against the largest gradient's scale instead of its own noise.
            floor = 1e-4 * max(p.grad.abs().max().item() for p in params.values())
            for n, s in specs.items():
                mine = load(f"{d}/grads_step1/{n}.f32", s["shape"])
                ref = params[n].grad
                err = (mine - ref).abs().max().item() / max(ref.abs().max().item(), floor, 1e-30)
                status = "ok" if err <= args.tolerance else "FAIL"
                print(f"  gradient {n:22s} max|diff|/max|torch| {err:.2e} {status}")
                if err > args.tolerance:
                    failures.append(f"gradient of {n}: {err:.2e}")
        if rel > args.tolerance:
            failures.append(f"loss of step {step}: torch {loss:.9f} vs mtc {ours:.9f} ({rel:.2e})")
        # The same update as mt-run: average over micro-batches, clip by the
        # global norm, AdamW with Megatron's schedule.
        with torch.no_grad():
            norm = math.sqrt(sum(float((p.grad ** 2).sum()) for p in params.values())) / micro
            clip = min(1.0, m["clip_grad"] / (norm + 1e-6)) if m["clip_grad"] > 0 else 1.0
            for p in params.values():
                p.grad.mul_(clip / micro)
        for group in opt.param_groups:
            group["lr"] = lr_at(m, step)
        opt.step()
    print(f"{steps} AdamW steps: worst relative loss difference {worst_loss:.2e}")
    final_worst = 0.0
    for n, s in specs.items():
        mine = load(f"{d}/final/{n}.f32", s["shape"])
        final_worst = max(final_worst, (mine - params[n].detach()).abs().max().item())
    print(f"final parameters: max |mtc - torch| {final_worst:.2e}")
    if failures:
        print("MISMATCH: " + "; ".join(failures))
        sys.exit(1)
    print("mtc agrees with PyTorch")

