#!/usr/bin/env python3
"""Writes the BERT example models (examples/bert*.mlir) from one template.

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
import math
import sys

MODELS = {
    # name: (layers, hidden, heads, ffn, vocab, positions, style, dropout, description)
    "bert-base": (12, 768, 12, 3072, 30522, 512, "hf", 0.1, "bert-base-uncased (110M)"),
    "bert-large": (24, 1024, 16, 4096, 30522, 512, "hf", 0.1, "bert-large-uncased (336M)"),
    "bert-base-megatron": (12, 768, 12, 3072, 30522, 512, "megatron", 0.1,
                           "Megatron-LM's BERT at bert-base's size"),
}

# Written only when named on the command line (tests generate them).
TEST_MODELS = {
    "bert-tiny": (2, 64, 4, 256, 2048, 128, "hf", 0.1, "a tiny BERT for the CPU demo"),
    "bert-micro": (2, 16, 4, 64, 256, 32, "hf", 0.0, "a micro BERT without dropout, for comparisons"),
    "bert-micro-4l": (4, 16, 4, 64, 256, 32, "hf", 0.0, "a micro BERT of 4 layers, for pipelines"),
    "bert-micro-megatron": (2, 16, 4, 64, 256, 32, "megatron", 0.0,
                            "a micro Megatron-style (pre-LN) BERT without dropout"),
    "bert-micro-drop": (2, 16, 4, 64, 256, 32, "hf", 0.1, "a micro BERT with dropout"),
}


def ty(shape):
    return "tensor<" + "x".join(str(d) for d in shape) + "xf32>"


def param(pname, init, std=0.02):
    if init == "normal":
        return f'#mt.param<name = "{pname}", init = normal, std = {std:.6e}>'
    return f'#mt.param<name = "{pname}", init = {init}>'


def model(name, layers, hidden, heads, ffn, vocab, positions, style, dropout, description):
    L, H, F, V = layers, hidden, ffn, vocab
    hd = H // heads
    eps = 1e-12 if style == "hf" else 1e-5
    act, vec = f"tensor<?x?x{H}xf32>", ty([H])
    q_t, scores_t, ffn_t = f"tensor<?x{heads}x?x{hd}xf32>", f"tensor<?x{heads}x?x?xf32>", f"tensor<?x?x{F}xf32>"
    lay = "bert.encoder.layer."
    per_layer = [  # (ssa, hf name, shape, init)
        ("q_w", "attention.self.query.weight", [H, H], "normal"),
        ("q_b", "attention.self.query.bias", [H], "zeros"),
        ("k_w", "attention.self.key.weight", [H, H], "normal"),
        ("k_b", "attention.self.key.bias", [H], "zeros"),
        ("v_w", "attention.self.value.weight", [H, H], "normal"),
        ("v_b", "attention.self.value.bias", [H], "zeros"),
        ("o_w", "attention.output.dense.weight", [H, H], "normal"),
        ("o_b", "attention.output.dense.bias", [H], "zeros"),
        ("ln1_g", "attention.output.LayerNorm.weight", [H], "ones"),
        ("ln1_b", "attention.output.LayerNorm.bias", [H], "zeros"),
        ("fc_w", "intermediate.dense.weight", [F, H], "normal"),
        ("fc_b", "intermediate.dense.bias", [F], "zeros"),
        ("out_w", "output.dense.weight", [H, F], "normal"),
        ("out_b", "output.dense.bias", [H], "zeros"),
        ("ln2_g", "output.LayerNorm.weight", [H], "ones"),
        ("ln2_b", "output.LayerNorm.bias", [H], "zeros"),
    ]
    if style == "megatron":  # Megatron's names for its pre-LN norms
        names = {"ln1_g": "input_layernorm.weight", "ln1_b": "input_layernorm.bias",
                 "ln2_g": "post_attention_layernorm.weight", "ln2_b": "post_attention_layernorm.bias"}
        per_layer = [(s, names.get(s, n), sh, i) for s, n, sh, i in per_layer]
    emb_norm = "bert.embeddings.LayerNorm" if style == "hf" else "bert.encoder.final_layernorm"
    args = [
        '%tokens: tensor<?x?xi32> {mt.batch = "tokens"}',
        '%token_types: tensor<?x?xi32> {mt.batch = "token_types"}',
        '%padding_mask: tensor<?x?xi1> {mt.batch = "padding_mask"}',
        '%labels: tensor<?x?xi32> {mt.batch = "labels"}',
        '%loss_mask: tensor<?x?xf32> {mt.batch = "loss_mask"}',
        '%sop_labels: tensor<?x?xi32> {mt.batch = "sop_labels"}',
        '%sop_mask: tensor<?x?xf32> {mt.batch = "sop_mask"}',
    ]
    if dropout > 0:
        args.append('%dropout_seed: tensor<i64> {mt.batch = "dropout_seed"}')
    args += [
        f"%wte: {ty([V, H])} {{mt.param = {param('bert.embeddings.word_embeddings.weight', 'normal')}}}",
        f"%wpe: {ty([positions, H])} {{mt.param = {param('bert.embeddings.position_embeddings.weight', 'normal')}}}",
        f"%wtt: {ty([2, H])} {{mt.param = {param('bert.embeddings.token_type_embeddings.weight', 'normal')}}}",
        f"%norm_g: {vec} {{mt.param = {param(emb_norm + '.weight', 'ones')}}}",
        f"%norm_b: {vec} {{mt.param = {param(emb_norm + '.bias', 'zeros')}}}",
    ]
    for ssa, pname, shape, init in per_layer:
        args.append(f"%{ssa}: {ty([L] + shape)} {{mt.param = {param(lay + pname, init)}}}")
    args += [
        f"%pool_w: {ty([H, H])} {{mt.param = {param('bert.pooler.dense.weight', 'normal')}}}",
        f"%pool_b: {vec} {{mt.param = {param('bert.pooler.dense.bias', 'zeros')}}}",
        f"%tr_w: {ty([H, H])} {{mt.param = {param('cls.predictions.transform.dense.weight', 'normal')}}}",
        f"%tr_b: {vec} {{mt.param = {param('cls.predictions.transform.dense.bias', 'zeros')}}}",
        f"%tr_g: {vec} {{mt.param = {param('cls.predictions.transform.LayerNorm.weight', 'ones')}}}",
        f"%tr_beta: {vec} {{mt.param = {param('cls.predictions.transform.LayerNorm.bias', 'zeros')}}}",
        f"%lm_b: {ty([V])} {{mt.param = {param('cls.predictions.bias', 'zeros')}}}",
        f"%sop_w: {ty([2, H])} {{mt.param = {param('cls.seq_relationship.weight', 'normal')}}}",
        f"%sop_b: {ty([2])} {{mt.param = {param('cls.seq_relationship.bias', 'zeros')}}}",
    ]
    bindings = ",\n        ".join(f"%{s}_l = %{s} : {ty([L] + sh)}" for s, _, sh, _ in per_layer)

    def dropped(lines, out, inp, t, stream):
        """Appends a dropout of `inp` named `out` (or renames when there is none)."""
        if dropout > 0:
            lines.append(f"{out} = mt.dropout {inp} seed %dropout_seed : tensor<i64> "
                         f"{{rate = {dropout:.6e} : f64, stream = {stream} : i64}} : {t}")
            return out
        return inp

    body = []
    pre = style == "megatron"
    x = "%hidden"
    if pre:
        body.append(f"%a = mt.layer_norm %hidden, %ln1_g_l, %ln1_b_l {{epsilon = {eps:e} : f64}} : {act}, {vec}")
        x = "%a"
    for which in "qkv":
        body.append(f"%{which} = mt.linear {x}, %{which}_w_l, %{which}_b_l : {act}, {ty([H, H])}, {vec} -> {act}")
        body.append(f"%{which}h = mt.split_heads %{which} {{num_heads = {heads} : i64}} : {act} -> {q_t}")
    body.append(f"%s = mt.attention_scores %qh, %kh : {q_t}, {q_t} -> {scores_t}")
    body.append(f"%p = mt.softmax %s key_mask %padding_mask : tensor<?x?xi1> "
                f"{{scale = {1.0 / math.sqrt(hd)!r} : f64}} : {scores_t}")
    p = dropped(body, "%pd", "%p", scores_t, 1)
    body.append(f"%c = mt.attention_context {p}, %vh : {scores_t}, {q_t} -> {q_t}")
    body.append(f"%m = mt.merge_heads %c : {q_t} -> {act}")
    body.append(f"%o = mt.linear %m, %o_w_l, %o_b_l : {act}, {ty([H, H])}, {vec} -> {act}")
    o = dropped(body, "%od", "%o", act, 2)
    body.append(f"%r1 = mt.add %hidden, {o} : {act}, {act}")
    if pre:
        body.append(f"%b = mt.layer_norm %r1, %ln2_g_l, %ln2_b_l {{epsilon = {eps:e} : f64}} : {act}, {vec}")
        y = "%r1"
    else:
        body.append(f"%b = mt.layer_norm %r1, %ln1_g_l, %ln1_b_l {{epsilon = {eps:e} : f64}} : {act}, {vec}")
        y = "%b"
    body.append(f"%f = mt.linear %b, %fc_w_l, %fc_b_l : {act}, {ty([F, H])}, {ty([F])} -> {ffn_t}")
    body.append(f"%g = mt.gelu %f approximate = none : {ffn_t}")
    body.append(f"%d = mt.linear %g, %out_w_l, %out_b_l : {ffn_t}, {ty([H, F])}, {vec} -> {act}")
    d = dropped(body, "%dd", "%d", act, 3)
    body.append(f"%r2 = mt.add {y}, {d} : {act}, {act}")
    if pre:
        out = "%r2"
    else:
        body.append(f"%r3 = mt.layer_norm %r2, %ln2_g_l, %ln2_b_l {{epsilon = {eps:e} : f64}} : {act}, {vec}")
        out = "%r3"
    body.append(f"mt.yield {out} : {act}")
    body_text = "\n".join("    " + line for line in body)

    emb = [
        f"%tok = mt.embedding %wte[%tokens] : {ty([V, H])}, tensor<?x?xi32> -> {act}",
        f"%pos = mt.position_embedding %wpe for %tokens : {ty([positions, H])}, tensor<?x?xi32> -> tensor<?x{H}xf32>",
        f"%typ = mt.embedding %wtt[%token_types] : {ty([2, H])}, tensor<?x?xi32> -> {act}",
        f"%e1 = mt.add %tok, %pos : {act}, tensor<?x{H}xf32>",
        f"%e2 = mt.add %e1, %typ : {act}, {act}",
    ]
    if pre:
        e = "%e2"
    else:
        emb.append(f"%e3 = mt.layer_norm %e2, %norm_g, %norm_b {{epsilon = {eps:e} : f64}} : {act}, {vec}")
        e = "%e3"
    e = dropped(emb, "%x", e, act, 0)
    emb_text = "\n".join("  " + line for line in emb)
    if pre:
        final = f"  %y = mt.layer_norm %h, %norm_g, %norm_b {{epsilon = {eps:e} : f64}} : {act}, {vec}"
        y = "%y"
    else:
        final, y = "", "%h"
    logits_t, sop_t = f"tensor<?x?x{V}xf32>", "tensor<?x?x2xf32>"
    ids, mask = "tensor<?x?xi32>", "tensor<?x?xf32>"
    style_text = ("post-LN layers (Hugging Face, the paper), a layer norm on the embeddings"
                  if style == "hf" else "pre-LN layers and a final layer norm (Megatron-LM)")
    return f"""\
// {description}: {L} layers, hidden {H}, {heads} heads, MLP {F}, vocabulary
// {V}, {positions} positions; {style_text};
// dropout {dropout:g}. Generated by examples/gen_bert.py; edit the script, not this file.
//
// The batch: [batch, seq] token ids and token types (segment A 0, B 1), the
// padding mask (true = a real token), the masked-LM labels with loss_mask 1
// at masked positions, and the sentence-order label at the first position
// (sop_mask 1 there). Batch and sequence sizes are fixed at compile time.
func.func @{name.replace('-', '_')}(
    {(','+chr(10)+'    ').join(args)})
    -> (tensor<f32>, tensor<f32> {{mt.metric = "lm loss"}}, tensor<f32> {{mt.metric = "sop loss"}},
        tensor<f32> {{mt.metric = "lm accuracy"}}) {{
{emb_text}
  %h = mt.layer_stack (%hidden = {e} : {act}) layers (
        {bindings})
      -> {act} {{
{body_text}
  }}
{final}
  %t = mt.linear {y}, %tr_w, %tr_b : {act}, {ty([H, H])}, {vec} -> {act}
  %tg = mt.gelu %t approximate = none : {act}
  %tn = mt.layer_norm %tg, %tr_g, %tr_beta {{epsilon = {eps:e} : f64}} : {act}, {vec}
  %logits = mt.linear %tn, %wte, %lm_b : {act}, {ty([V, H])}, {ty([V])} -> {logits_t}
  %lm_loss = mt.cross_entropy %logits, %labels mask %loss_mask : {logits_t}, {ids}, {mask} -> tensor<f32>
  %pooled = mt.linear {y}, %pool_w, %pool_b : {act}, {ty([H, H])}, {vec} -> {act}
  %pt = mt.tanh %pooled : {act}
  %sop = mt.linear %pt, %sop_w, %sop_b : {act}, {ty([2, H])}, {ty([2])} -> {sop_t}
  %sop_loss = mt.cross_entropy %sop, %sop_labels mask %sop_mask : {sop_t}, {ids}, {mask} -> tensor<f32>
  %loss = mt.add %lm_loss, %sop_loss : tensor<f32>, tensor<f32>
  %lm_acc = mt.accuracy %logits, %labels mask %loss_mask : {logits_t}, {ids}, {mask} -> tensor<f32>
  return %loss, %lm_loss, %sop_loss, %lm_acc : tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>
}}
"""


def main():
    out_dir = sys.argv[1] if len(sys.argv) > 1 else "."
    names = sys.argv[2:] or list(MODELS)
    for name in names:
        spec = MODELS.get(name) or TEST_MODELS.get(name)
        if spec is None:
            sys.exit(f"gen_bert.py: unknown model '{name}'")
        with open(f"{out_dir}/{name}.mlir", "w") as f:
            f.write(model(name, *spec))


if __name__ == "__main__":
    main()
