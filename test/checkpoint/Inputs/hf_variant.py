"""Rewrites a Hugging Face GPT-2 model.safetensors the way files found in the
wild differ: keys without the `transformer.` prefix (GPT2Model's), the
causal-mask buffers older versions saved (h.N.attn.bias, masked_bias), an
explicit lm_head.weight, and the token embedding padded with extra rows by
another converter. Standard library only.

Usage: hf_variant.py IN.safetensors OUT.safetensors PADDED_ROWS [--untie]
"""
import json
import struct
import sys


def read(path):
    data = open(path, "rb").read()
    (n,) = struct.unpack("<Q", data[:8])
    header = json.loads(data[8:8 + n])
    meta = header.pop("__metadata__", None)
    return meta, {k: (v, data[8 + n + v["data_offsets"][0]:8 + n + v["data_offsets"][1]])
                  for k, v in header.items()}


def write(path, meta, tensors):
    header, blobs, offset = {}, [], 0
    if meta is not None:
        header["__metadata__"] = meta
    for name in sorted(tensors):
        info, blob = tensors[name]
        header[name] = {"dtype": info["dtype"], "shape": info["shape"],
                        "data_offsets": [offset, offset + len(blob)]}
        blobs.append(blob)
        offset += len(blob)
    text = json.dumps(header, separators=(",", ":")).encode()
    text += b" " * ((8 - len(text) % 8) % 8)
    open(path, "wb").write(struct.pack("<Q", len(text)) + text + b"".join(blobs))


def main():
    src, dst, padded = sys.argv[1], sys.argv[2], int(sys.argv[3])
    meta, tensors = read(src)
    out = {k[len("transformer."):] if k.startswith("transformer.") else k: v for k, v in tensors.items()}
    info, blob = out["wte.weight"]
    rows, cols = info["shape"]
    wte = ({"dtype": "F32", "shape": [padded, cols]}, blob + bytes(4 * cols * (padded - rows)))
    out["wte.weight"] = wte
    head = bytearray(wte[1])
    if "--untie" in sys.argv:
        head[0:4] = struct.pack("<f", 123.0)
    out["lm_head.weight"] = (wte[0], bytes(head))
    layers = sum(1 for k in out if k.endswith(".ln_1.weight"))
    for l in range(layers):
        out[f"h.{l}.attn.bias"] = ({"dtype": "F32", "shape": [1, 1, 2, 2]}, struct.pack("<4f", 1, 0, 1, 1))
        out[f"h.{l}.attn.masked_bias"] = ({"dtype": "F32", "shape": []}, struct.pack("<f", -1e4))
    write(dst, meta, out)


if __name__ == "__main__":
    main()
