"""Writes synthetic Hugging Face Llama files of a given shape, one tensor at a
time (memory: the largest tensor), in bf16, sharded with an index as
save_pretrained does (5 GB shards). Values: normal(0, 0.02) (norms 1).

Usage: synthetic_llama.py DIR LAYERS HIDDEN HEADS KV_HEADS FFN VOCAB
"""
import json
import os
import struct
import sys

import torch


def main():
    d = sys.argv[1]
    layers, hidden, heads, kv, ffn, vocab = (int(x) for x in sys.argv[2:8])
    head_dim = hidden // heads
    shapes = [("model.embed_tokens.weight", (vocab, hidden))]
    for l in range(layers):
        p = f"model.layers.{l}."
        shapes += [(p + "input_layernorm.weight", (hidden,)),
                   (p + "self_attn.q_proj.weight", (hidden, hidden)),
                   (p + "self_attn.k_proj.weight", (kv * head_dim, hidden)),
                   (p + "self_attn.v_proj.weight", (kv * head_dim, hidden)),
                   (p + "self_attn.o_proj.weight", (hidden, hidden)),
                   (p + "post_attention_layernorm.weight", (hidden,)),
                   (p + "mlp.gate_proj.weight", (ffn, hidden)),
                   (p + "mlp.up_proj.weight", (ffn, hidden)),
                   (p + "mlp.down_proj.weight", (hidden, ffn))]
    shapes += [("model.norm.weight", (hidden,)), ("lm_head.weight", (vocab, hidden))]
    size = lambda shape: 2 * torch.Size(shape).numel()
    shards, current, total = [[]], 0, 0
    for name, shape in shapes:
        if shards[-1] and current + size(shape) > 5_000_000_000:
            shards.append([])
            current = 0
        shards[-1].append((name, shape))
        current += size(shape)
        total += size(shape)
    os.makedirs(d, exist_ok=True)
    weight_map = {}
    torch.manual_seed(0)
    for k, shard in enumerate(shards):
        f = f"model-{k + 1:05d}-of-{len(shards):05d}.safetensors"
        header, offset = {"__metadata__": {"format": "pt"}}, 0
        for name, shape in shard:
            header[name] = {"dtype": "BF16", "shape": list(shape), "data_offsets": [offset, offset + size(shape)]}
            offset += size(shape)
            weight_map[name] = f
        text = json.dumps(header).encode()
        text += b" " * ((8 - len(text) % 8) % 8)
        with open(os.path.join(d, f), "wb") as out:
            out.write(struct.pack("<Q", len(text)) + text)
            for name, shape in shard:
                t = torch.ones(shape) if name.endswith("norm.weight") else torch.randn(shape) * 0.02
                out.write(t.to(torch.bfloat16).view(torch.uint8).numpy().tobytes())
        print(f"wrote {f}", flush=True)
    json.dump({"metadata": {"total_size": total}, "weight_map": weight_map},
              open(os.path.join(d, "model.safetensors.index.json"), "w"), indent=2, sort_keys=True)
    json.dump({"architectures": ["LlamaForCausalLM"], "model_type": "llama", "hidden_size": hidden,
               "intermediate_size": ffn, "num_hidden_layers": layers, "num_attention_heads": heads,
               "num_key_value_heads": kv, "rms_norm_eps": 1e-05, "rope_theta": 10000.0,
               "hidden_act": "silu", "max_position_embeddings": 4096, "tie_word_embeddings": False,
               "vocab_size": vocab, "torch_dtype": "bfloat16"},
              open(os.path.join(d, "config.json"), "w"), indent=2, sort_keys=True)


if __name__ == "__main__":
    main()
