"""BERT for pre-training (examples/gen_bert.py), in Hugging Face's post-LN
layout or Megatron-LM's pre-LN one."""
import math
from dataclasses import dataclass

from . import blocks as B
from .emit import DYN, ONES, ZEROS, Function, Param, Result, Stack, comment, normal, tensor


@dataclass(frozen=True, kw_only=True)
class BertSpec:
    layers: int
    hidden: int
    heads: int
    ffn: int
    vocab: int
    positions: int
    style: str  # "hf" (post-LN, BertForPreTraining) or "megatron" (pre-LN)
    dropout: float  # 0: no mt.dropout ops and no dropout seed
    description: str

    @property
    def pre_ln(self):
        return self.style == "megatron"


EXAMPLES = {  # the committed examples/*.mlir, written when no model is named
    "bert-base": BertSpec(layers=12, hidden=768, heads=12, ffn=3072, vocab=30522, positions=512,
                          style="hf", dropout=0.1, description="bert-base-uncased (110M)"),
    "bert-large": BertSpec(layers=24, hidden=1024, heads=16, ffn=4096, vocab=30522, positions=512,
                           style="hf", dropout=0.1, description="bert-large-uncased (336M)"),
    "bert-base-megatron": BertSpec(layers=12, hidden=768, heads=12, ffn=3072, vocab=30522, positions=512,
                                   style="megatron", dropout=0.1,
                                   description="Megatron-LM's BERT at bert-base's size"),
}

# Written only when named on the command line (tests generate them).
TEST_MODELS = {
    "bert-tiny": BertSpec(layers=2, hidden=64, heads=4, ffn=256, vocab=2048, positions=128,
                          style="hf", dropout=0.1, description="a tiny BERT for the CPU demo"),
    "bert-micro": BertSpec(layers=2, hidden=16, heads=4, ffn=64, vocab=256, positions=32,
                           style="hf", dropout=0.0, description="a micro BERT without dropout, for comparisons"),
    "bert-micro-4l": BertSpec(layers=4, hidden=16, heads=4, ffn=64, vocab=256, positions=32,
                              style="hf", dropout=0.0, description="a micro BERT of 4 layers, for pipelines"),
    "bert-micro-megatron": BertSpec(layers=2, hidden=16, heads=4, ffn=64, vocab=256, positions=32,
                                    style="megatron", dropout=0.0,
                                    description="a micro Megatron-style (pre-LN) BERT without dropout"),
    "bert-micro-v250": BertSpec(layers=2, hidden=16, heads=4, ffn=64, vocab=250, positions=32,
                                style="hf", dropout=0.0,
                                description="a micro BERT whose vocabulary needs padding to split"),
    "bert-micro-drop": BertSpec(layers=2, hidden=16, heads=4, ffn=64, vocab=256, positions=32,
                                style="hf", dropout=0.1, description="a micro BERT with dropout"),
}

INIT = normal(0.02)
# Megatron's names for the two norms, which sit before attention and the MLP there.
MEGATRON_NORMS = {"ln1_g": "input_layernorm.weight", "ln1_b": "input_layernorm.bias",
                  "ln2_g": "post_attention_layernorm.weight", "ln2_b": "post_attention_layernorm.bias"}


def norm_spec(spec):
    return B.NormSpec("layer_norm", 1e-5 if spec.pre_ln else 1e-12)


def layer_params(spec):
    """One layer's weights as Hugging Face names them under bert.encoder.layer.*."""
    H, F = spec.hidden, spec.ffn
    params = (
        Param("q_w", "attention.self.query.weight", (H, H), INIT),
        Param("q_b", "attention.self.query.bias", (H,), ZEROS),
        Param("k_w", "attention.self.key.weight", (H, H), INIT),
        Param("k_b", "attention.self.key.bias", (H,), ZEROS),
        Param("v_w", "attention.self.value.weight", (H, H), INIT),
        Param("v_b", "attention.self.value.bias", (H,), ZEROS),
        Param("o_w", "attention.output.dense.weight", (H, H), INIT),
        Param("o_b", "attention.output.dense.bias", (H,), ZEROS),
        Param("ln1_g", "attention.output.LayerNorm.weight", (H,), ONES),
        Param("ln1_b", "attention.output.LayerNorm.bias", (H,), ZEROS),
        Param("fc_w", "intermediate.dense.weight", (F, H), INIT),
        Param("fc_b", "intermediate.dense.bias", (F,), ZEROS),
        Param("out_w", "output.dense.weight", (H, F), INIT),
        Param("out_b", "output.dense.bias", (H,), ZEROS),
        Param("ln2_g", "output.LayerNorm.weight", (H,), ONES),
        Param("ln2_b", "output.LayerNorm.bias", (H,), ZEROS),
    )
    if spec.pre_ln:
        params = tuple(Param(p.ssa, MEGATRON_NORMS.get(p.ssa, p.name), p.shape, p.init) for p in params)
    return params


def layer(spec, padding_mask):
    """The body of the layer stack, for Block.layer_stack; attention skips padding keys."""
    attention = B.AttentionSpec(heads=spec.heads, mask=padding_mask,
                                scale=1.0 / math.sqrt(spec.hidden // spec.heads), dropout_streams=(1, 2))
    mlp = B.MlpSpec("gelu", B.MlpNames(up="f", act="g", down="d"), dropout_streams=(None, 3))
    ln = norm_spec(spec)

    def build(body, hidden, w):
        ln1, ln2 = B.Norm(w["ln1_g"], w["ln1_b"]), B.Norm(w["ln2_g"], w["ln2_b"])
        x = B.norm(body, "a", hidden, ln1, ln) if spec.pre_ln else hidden
        o = B.attention(body, x, B.AttentionWeights(
            q=B.Linear(w["q_w"], w["q_b"]), k=B.Linear(w["k_w"], w["k_b"]),
            v=B.Linear(w["v_w"], w["v_b"]), out=B.Linear(w["o_w"], w["o_b"])), attention)
        r1 = body.add("r1", hidden, o)
        b = B.norm(body, "b", r1, ln2 if spec.pre_ln else ln1, ln)
        d = B.mlp(body, b, B.MlpWeights(up=B.Linear(w["fc_w"], w["fc_b"]),
                                        down=B.Linear(w["out_w"], w["out_b"])), mlp)
        # Pre-LN adds to the residual stream; post-LN to the normed sum, then norms again.
        r2 = body.add("r2", r1 if spec.pre_ln else b, d)
        return r2 if spec.pre_ln else B.norm(body, "r3", r2, ln2, ln)
    return build


def header(spec):
    style = ("post-LN layers (Hugging Face, the paper), a layer norm on the embeddings"
             if not spec.pre_ln else "pre-LN layers and a final layer norm (Megatron-LM)")
    return comment(f"""\
{spec.description}: {spec.layers} layers, hidden {spec.hidden}, {spec.heads} heads, MLP {spec.ffn}, vocabulary
{spec.vocab}, {spec.positions} positions; {style};
dropout {spec.dropout:g}. Generated by examples/gen_bert.py; edit the script, not this file.

The batch: [batch, seq] token ids and token types (segment A 0, B 1), the
padding mask (true = a real token), the masked-LM labels with loss_mask 1
at masked positions, and the sentence-order label at the first position
(sop_mask 1 there). Batch and sequence sizes are fixed at compile time.""")


def declare_inputs(fn, spec):
    """The batch: a dict of input Values by name."""
    ids, mask = tensor(DYN, DYN, dtype="i32"), tensor(DYN, DYN)
    inputs = {"tokens": ids, "token_types": ids, "padding_mask": tensor(DYN, DYN, dtype="i1"),
              "labels": ids, "loss_mask": mask, "sop_labels": ids, "sop_mask": mask}
    inputs = {name: fn.input(name, t) for name, t in inputs.items()}
    if spec.dropout > 0:
        fn.dropout_seed()
    return inputs


def declare_params(fn, spec):
    """The parameters: a dict of Values by SSA name, and the layer stack's."""
    H, V = spec.hidden, spec.vocab
    # Megatron's final norm takes the place (and the count) of the embedding norm.
    norm = "bert.encoder.final_layernorm" if spec.pre_ln else "bert.embeddings.LayerNorm"
    before = (
        Param("wte", "bert.embeddings.word_embeddings.weight", (V, H), INIT),
        Param("wpe", "bert.embeddings.position_embeddings.weight", (spec.positions, H), INIT),
        Param("wtt", "bert.embeddings.token_type_embeddings.weight", (2, H), INIT),
        Param("norm_g", norm + ".weight", (H,), ONES),
        Param("norm_b", norm + ".bias", (H,), ZEROS),
    )
    after = (
        Param("pool_w", "bert.pooler.dense.weight", (H, H), INIT),
        Param("pool_b", "bert.pooler.dense.bias", (H,), ZEROS),
        Param("tr_w", "cls.predictions.transform.dense.weight", (H, H), INIT),
        Param("tr_b", "cls.predictions.transform.dense.bias", (H,), ZEROS),
        Param("tr_g", "cls.predictions.transform.LayerNorm.weight", (H,), ONES),
        Param("tr_beta", "cls.predictions.transform.LayerNorm.bias", (H,), ZEROS),
        Param("lm_b", "cls.predictions.bias", (V,), ZEROS),
        Param("sop_w", "cls.seq_relationship.weight", (2, H), INIT),
        Param("sop_b", "cls.seq_relationship.bias", (2,), ZEROS),
    )
    params = {p.ssa: fn.param(p) for p in before}
    stack = fn.declare_stack(Stack(spec.layers, layer_params(spec), "bert.encoder.layer."))
    params.update({p.ssa: fn.param(p) for p in after})
    return params, stack


def model(name, spec):
    """The model's .mlir text."""
    fn = Function(name, dropout_rate=spec.dropout)
    batch = declare_inputs(fn, spec)
    p, stack = declare_params(fn, spec)
    ln = norm_spec(spec)
    # Post-LN norms the embeddings, pre-LN the last layer's output, with the same parameters.
    outer_norm = B.Norm(p["norm_g"], p["norm_b"])

    top = fn.body
    e = B.embed(top, B.Embeddings(p["wte"], p["wpe"], p["wtt"], sums=("e1", "e2")),
                batch["tokens"], batch["token_types"])
    if not spec.pre_ln:
        e = B.norm(top, "e3", e, outer_norm, ln)
    x = top.dropout(e, 0, name="x")
    h = top.layer_stack("h", x, stack, layer(spec, batch["padding_mask"]))
    if spec.pre_ln:
        y = B.norm(top, "y", h, outer_norm, ln)
    else:
        top.line("")  # where pre-LN has its final norm (the committed files have the empty line)
        y = h
    return header(spec) + fn.finish(pretraining_heads(top, y, p, batch, ln))


def pretraining_heads(top, y, p, batch, ln):
    """The masked-LM and sentence-order heads and losses: the Results to return.

    The pooler and binary head run at every position; sop_mask keeps the first.
    """
    t = B.linear(top, "t", y, B.Linear(p["tr_w"], p["tr_b"]))
    tg = top.activation("tg", "gelu", t)
    tn = B.norm(top, "tn", tg, B.Norm(p["tr_g"], p["tr_beta"]), ln)
    # The decoder is the word embedding, tied, plus a bias of its own.
    targets = B.Targets(batch["labels"], batch["loss_mask"])
    logits, lm_loss = B.lm_loss(top, tn, B.Linear(p["wte"], p["lm_b"]), targets, name="lm_loss")
    pooled = B.linear(top, "pooled", y, B.Linear(p["pool_w"], p["pool_b"]))
    pt = top.activation("pt", "tanh", pooled)
    sop = B.linear(top, "sop", pt, B.Linear(p["sop_w"], p["sop_b"]))
    sop_loss = top.cross_entropy("sop_loss", sop, batch["sop_labels"], batch["sop_mask"])
    loss = top.add("loss", lm_loss, sop_loss)
    lm_acc = top.accuracy("lm_acc", logits, targets.labels, targets.mask)
    return [Result(loss), Result(lm_loss, "lm loss"), Result(sop_loss, "sop loss"),
            Result(lm_acc, "lm accuracy")]
