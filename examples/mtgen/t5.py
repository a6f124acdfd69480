"""T5 (examples/gen_t5.py) as Hugging Face's T5ForConditionalGeneration
defines it: an encoder and a decoder stack over one shared embedding."""
from dataclasses import dataclass

from . import blocks as B
from .emit import DYN, ONES, Function, Param, Result, Stack, comment, normal, tensor


@dataclass(frozen=True, kw_only=True)
class T5Spec:
    layers: int  # in each stack
    d_model: int
    heads: int
    d_kv: int  # per head; heads * d_kv need not be d_model
    d_ff: int
    vocab: int
    version: str  # "1.0" (ReLU, tied output) or "1.1" (gated GeLU, untied lm_head)
    dropout: float  # 0: no mt.dropout ops and no dropout seed
    description: str

    @property
    def gated(self):
        return self.version == "1.1"

    @property
    def inner(self):
        return self.heads * self.d_kv


EXAMPLES = {  # the committed examples/*.mlir, written when no model is named
    "t5-small": T5Spec(layers=6, d_model=512, heads=8, d_kv=64, d_ff=2048, vocab=32128,
                       version="1.0", dropout=0.1, description="t5-small (60.5M)"),
    "t5-base": T5Spec(layers=12, d_model=768, heads=12, d_kv=64, d_ff=3072, vocab=32128,
                      version="1.0", dropout=0.1, description="t5-base (223M)"),
    "t5-v1_1-small": T5Spec(layers=8, d_model=512, heads=6, d_kv=64, d_ff=1024, vocab=32128,
                            version="1.1", dropout=0.0, description="google/t5-v1_1-small (77M)"),
    "t5-v1_1-base": T5Spec(layers=12, d_model=768, heads=12, d_kv=64, d_ff=2048, vocab=32128,
                           version="1.1", dropout=0.0, description="google/t5-v1_1-base (248M)"),
}

# Written only when named on the command line (tests generate them).
TEST_MODELS = {
    "t5-tiny": T5Spec(layers=2, d_model=64, heads=4, d_kv=16, d_ff=256, vocab=512,
                      version="1.0", dropout=0.1, description="a tiny T5 for the CPU demo"),
    "t5-micro": T5Spec(layers=2, d_model=16, heads=4, d_kv=4, d_ff=32, vocab=320, version="1.0", dropout=0.0,
                       description="a micro T5 v1.0 without dropout, for comparisons"),
    "t5-micro-v1_1": T5Spec(layers=2, d_model=16, heads=4, d_kv=6, d_ff=24, vocab=320, version="1.1", dropout=0.0,
                            description="a micro T5 v1.1 (gated GeLU, untied output; heads x d_kv != d_model)"),
    "t5-micro-4l": T5Spec(layers=4, d_model=16, heads=4, d_kv=4, d_ff=32, vocab=320, version="1.0", dropout=0.0,
                          description="a micro T5 of 4 layers a stack, for pipelines"),
    "t5-micro-drop": T5Spec(layers=2, d_model=16, heads=4, d_kv=4, d_ff=32, vocab=320, version="1.0", dropout=0.1,
                            description="a micro T5 with dropout"),
}

BUCKETS, MAX_DISTANCE = 32, 128  # of the relative position bias
NORM = B.NormSpec("rms_norm", 1e-6)  # T5's layer norm: no mean, no bias


def init_std(spec, weight):
    """Hugging Face's T5 initialization (Mesh TensorFlow's) of each kind of weight."""
    d = spec.d_model
    return {"q": (d * spec.d_kv) ** -0.5, "k": d ** -0.5, "v": d ** -0.5, "o": spec.inner ** -0.5,
            "wi": d ** -0.5, "wo": spec.d_ff ** -0.5, "rel": d ** -0.5}[weight]


def attention_params(spec, prefix, ssa):
    d, inner = spec.d_model, spec.inner
    return [Param(f"{ssa}_{w}", f"{prefix}.{w}.weight", (d, inner) if w == "o" else (inner, d),
                  normal(init_std(spec, w))) for w in "qkvo"]


def ffn_params(spec, prefix):
    wis = [("wi0", "wi_0"), ("wi1", "wi_1")] if spec.gated else [("wi", "wi")]
    d, d_ff = spec.d_model, spec.d_ff
    return ([Param(ssa, f"{prefix}.DenseReluDense.{w}.weight", (d_ff, d), normal(init_std(spec, "wi")))
             for ssa, w in wis]
            + [Param("wo", f"{prefix}.DenseReluDense.wo.weight", (d, d_ff), normal(init_std(spec, "wo")))])


def layer_norm_param(spec, i):
    return Param(f"ln{i}", f"layer.{i}.layer_norm.weight", (spec.d_model,), ONES)


def stack_params(spec, decoder):
    """One layer's weights, as Hugging Face names them under *.block.*."""
    params = attention_params(spec, "layer.0.SelfAttention", "sa") + [layer_norm_param(spec, 0)]
    if decoder:
        params += attention_params(spec, "layer.1.EncDecAttention", "ca") + [layer_norm_param(spec, 1)]
    last = 2 if decoder else 1
    return tuple(params + ffn_params(spec, f"layer.{last}") + [layer_norm_param(spec, last)])


def attention_weights(w, prefix):
    return B.AttentionWeights(q=B.Linear(w[prefix + "_q"]), k=B.Linear(w[prefix + "_k"]),
                              v=B.Linear(w[prefix + "_v"]), out=B.Linear(w[prefix + "_o"]))


def mlp(spec, body, x, w, streams):
    """The feed-forward: ReLU (v1.0) or gated GeLU (v1.1), dropout after the
    activation and the output."""
    if spec.gated:
        names = B.MlpNames(gate="wi0", up="wi1", act="g", product="a", down="f")
        weights = B.MlpWeights(gate=B.Linear(w["wi0"]), up=B.Linear(w["wi1"]), down=B.Linear(w["wo"]))
        return B.mlp(body, x, weights, B.MlpSpec("gelu_tanh", names, streams))
    names = B.MlpNames(up="wi", act="a", down="f")
    weights = B.MlpWeights(up=B.Linear(w["wi"]), down=B.Linear(w["wo"]))
    return B.mlp(body, x, weights, B.MlpSpec("relu", names, streams))


def encoder_layer(spec, padding_mask, relative_table):
    """The encoder stack's body: bidirectional self-attention over the real tokens."""
    attention = B.AttentionSpec(heads=spec.heads, mask=padding_mask, scale=1.0, prefix="sa_",
                                positions=B.RelativeBias(relative_table, True, MAX_DISTANCE),
                                dropout_streams=(1, 2))

    def build(body, hidden, w):
        n0 = B.norm(body, "n0", hidden, B.Norm(w["ln0"]), NORM)
        r1 = body.add("r1", hidden, B.attention(body, n0, attention_weights(w, "sa"), attention))
        n1 = B.norm(body, "n1", r1, B.Norm(w["ln1"]), NORM)
        return body.add("r2", r1, mlp(spec, body, n1, w, (3, 4)))
    return build


def decoder_layer(spec, padding_mask, relative_table, encoded):
    """The decoder stack's body: causal self-attention, then attention over
    the encoder's output (its padding hidden), then the feed-forward."""
    self_attention = B.AttentionSpec(heads=spec.heads, mask=B.CAUSAL, scale=1.0, prefix="sa_",
                                     positions=B.RelativeBias(relative_table, False, MAX_DISTANCE),
                                     dropout_streams=(11, 12))
    cross_attention = B.AttentionSpec(heads=spec.heads, mask=padding_mask, scale=1.0, prefix="ca_",
                                      dropout_streams=(13, 14))

    def build(body, hidden, w):
        n0 = B.norm(body, "n0", hidden, B.Norm(w["ln0"]), NORM)
        r1 = body.add("r1", hidden, B.attention(body, n0, attention_weights(w, "sa"), self_attention))
        n1 = B.norm(body, "n1", r1, B.Norm(w["ln1"]), NORM)
        o = B.attention(body, n1, attention_weights(w, "ca"), cross_attention, memory=encoded)
        r2 = body.add("r2", r1, o)
        n2 = B.norm(body, "n2", r2, B.Norm(w["ln2"]), NORM)
        return body.add("r3", r2, mlp(spec, body, n2, w, (15, 16)))
    return build


def header(spec):
    ffn = ("gated-GeLU feed-forward, an untied lm_head" if spec.gated
           else "ReLU feed-forward, the output tied to the embedding")
    return comment(f"""\
{spec.description}: T5 v{spec.version}, {spec.layers} + {spec.layers} layers, d_model {spec.d_model}, \
{spec.heads} heads of {spec.d_kv},
d_ff {spec.d_ff}, vocabulary {spec.vocab}; {ffn};
relative position buckets {BUCKETS} up to distance {MAX_DISTANCE}; dropout {spec.dropout:g}.
Generated by examples/gen_t5.py; edit the script, not this file.

The batch: encoder tokens and padding mask [batch, seq]; decoder tokens,
labels and loss mask [batch, decoder seq] (mtc --seq-length and
--decoder-seq-length fix both at compile time).""")


def declare_stack(fn, spec, decoder):
    """A stack's arguments: its relative position table, layers and final norm."""
    full = "decoder" if decoder else "encoder"
    # One table per stack, stored (as Hugging Face does) with its first layer.
    rel = fn.param(Param(f"{full[:3]}_rel", f"{full}.block.0.layer.0.SelfAttention.relative_attention_bias.weight",
                         (BUCKETS, spec.heads), normal(init_std(spec, "rel"))))
    stack = fn.declare_stack(Stack(spec.layers, stack_params(spec, decoder), f"{full}.block.", f"{full[:3]}_"))
    final = fn.param(Param(f"{full[:3]}_final", f"{full}.final_layer_norm.weight", (spec.d_model,), ONES))
    return rel, stack, B.Norm(final)


def model(name, spec):
    """The model's .mlir text."""
    d, V = spec.d_model, spec.vocab
    ids = tensor(DYN, DYN, dtype="i32")
    fn = Function(name, dropout_rate=spec.dropout)
    tokens = fn.input("tokens", ids)
    padding_mask = fn.input("padding_mask", tensor(DYN, DYN, dtype="i1"))
    decoder_tokens = fn.input("decoder_tokens", ids, sequence="decoder")
    targets = B.Targets(fn.input("labels", ids, sequence="decoder"),
                        fn.input("loss_mask", tensor(DYN, DYN), sequence="decoder"))
    if spec.dropout > 0:
        fn.dropout_seed()
    shared = fn.param(Param("shared", "shared.weight", (V, d), normal(1.0)))
    enc_rel, enc_stack, enc_final = declare_stack(fn, spec, decoder=False)
    dec_rel, dec_stack, dec_final = declare_stack(fn, spec, decoder=True)
    lm_head = fn.param(Param("lm_head", "lm_head.weight", (V, d), normal(1.0))) if spec.gated else None

    top = fn.body
    x = top.dropout(top.embedding("ex", shared, tokens), 0)
    eh = top.layer_stack("eh", x, enc_stack, encoder_layer(spec, padding_mask, enc_rel))
    encoded = top.dropout(B.norm(top, "en", eh, enc_final, NORM), 7, name="encd")
    y = top.dropout(top.embedding("dx", shared, decoder_tokens), 8)
    dh = top.layer_stack("dh", y, dec_stack, decoder_layer(spec, padding_mask, dec_rel, encoded))
    out = top.dropout(B.norm(top, "dn", dh, dec_final, NORM), 9)
    if spec.gated:
        _, loss = B.lm_loss(top, out, B.Linear(lm_head), targets)
    else:  # tied: the decoder's output scaled by d_model^-0.5 first
        rescale = top.constant("rescale", d ** -0.5)
        _, loss = B.lm_loss(top, top.mul("scaled", out, rescale), B.Linear(shared), targets)
    # The loss again as the "lm loss" metric, the name Megatron's T5 prints.
    return header(spec) + fn.finish([Result(loss), Result(loss, "lm loss")])
