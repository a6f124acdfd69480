"""Hugging Face model files read and written with the standard library and
torch alone, from the published format (huggingface/safetensors): an 8-byte
little-endian header length, a JSON header (name -> dtype, shape,
data_offsets), the tensors' bytes; model.safetensors, or the shards that
model.safetensors.index.json maps by weight_map. Independent of mt's code.
"""
import json
import math
import os
import struct

import torch

DTYPES = {"F32": torch.float32, "BF16": torch.bfloat16, "F16": torch.float16}
SIZES = {"F32": 4, "BF16": 2, "F16": 2}


def read_file(path):
    data = open(path, "rb").read()
    (n,) = struct.unpack("<Q", data[:8])
    header = json.loads(data[8:8 + n].decode("utf-8"))
    header.pop("__metadata__", None)
    out = {}
    for name, info in header.items():
        begin, end = info["data_offsets"]
        raw = bytearray(data[8 + n + begin:8 + n + end])
        t = torch.frombuffer(raw, dtype=DTYPES[info["dtype"]]) if raw else torch.zeros(0)
        out[name] = t.reshape(info["shape"]).float().clone()
    return out


def read_model(d):
    index = os.path.join(d, "model.safetensors.index.json")
    if not os.path.exists(index):
        return read_file(os.path.join(d, "model.safetensors"))
    tensors = {}
    weight_map = json.load(open(index))["weight_map"]
    for f in sorted(set(weight_map.values())):
        tensors.update(read_file(os.path.join(d, f)))
    assert set(tensors) == set(weight_map), "the index and the shards disagree"
    return tensors


def write_file(path, tensors, dtype):
    header, blobs, offset = {"__metadata__": {"format": "pt"}}, [], 0
    for name, t in tensors.items():
        blob = t.to(DTYPES[dtype]).contiguous().view(torch.uint8).numpy().tobytes()
        header[name] = {"dtype": dtype, "shape": list(t.shape), "data_offsets": [offset, offset + len(blob)]}
        blobs.append(blob)
        offset += len(blob)
    text = json.dumps(header).encode()
    text += b" " * ((8 - len(text) % 8) % 8)
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(text)) + text + b"".join(blobs))


def write_model(d, tensors, dtype, shards):
    """`tensors` (in state_dict order) in `shards` files with the index, as
    save_pretrained lays them out; returns the number of files."""
    names = list(tensors)
    per = math.ceil(len(names) / shards)
    groups = [names[i:i + per] for i in range(0, len(names), per)]
    weight_map = {}
    for k, group in enumerate(groups):
        f = f"model-{k + 1:05d}-of-{len(groups):05d}.safetensors"
        write_file(os.path.join(d, f), {n: tensors[n] for n in group}, dtype)
        weight_map.update({n: f for n in group})
    total = sum(tensors[n].numel() * SIZES[dtype] for n in names)
    json.dump({"metadata": {"total_size": total}, "weight_map": weight_map},
              open(os.path.join(d, "model.safetensors.index.json"), "w"), indent=2)
    return len(groups)
