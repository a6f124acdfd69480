"""GPT-2 (examples/gen_gpt.py): pre-LN layers, learned positions, tied embeddings."""
import math
from dataclasses import dataclass

from . import blocks as B
from .emit import DYN, ONES, ZEROS, Function, Param, Result, Stack, comment, normal, tensor


@dataclass(frozen=True, kw_only=True)
class GptSpec:
    layers: int
    hidden: int
    heads: int
    vocab: int
    positions: int
    description: str
    dtype: str = "f32"
    dropout: float | None = 0.1  # None: no mt.dropout ops at all (0.0 keeps them)


EXAMPLES = {  # the committed examples/*.mlir, written when no model is named
    "gpt2": GptSpec(layers=12, hidden=768, heads=12, vocab=50257, positions=1024,
                    description="GPT-2 small (124M)"),
    "gpt2-medium": GptSpec(layers=24, hidden=1024, heads=16, vocab=50257, positions=1024,
                           description="GPT-2 medium (350M)"),
    "gpt2-tiny": GptSpec(layers=2, hidden=64, heads=4, vocab=50257, positions=128,
                         description="a tiny GPT-2 for tests and the CPU demo"),
}

# Written only when named on the command line (tests generate them).
TEST_MODELS = {
    "gpt-micro-f64": GptSpec(layers=2, hidden=8, heads=2, vocab=11, positions=8, dtype="f64",
                             description="a micro GPT in f64 for gradient checks"),
    "gpt-micro": GptSpec(layers=2, hidden=16, heads=2, vocab=64, positions=32,
                         description="a micro GPT for runtime tests"),
    "gpt-micro-nodrop": GptSpec(layers=2, hidden=16, heads=2, vocab=64, positions=32, dropout=0.0,
                                description="a micro GPT without dropout, for comparisons with PyTorch"),
    "gpt-micro-10l": GptSpec(layers=10, hidden=16, heads=2, vocab=64, positions=32,
                             description="a micro GPT with 10 layers, for uneven pipeline splits"),
    "gpt-micro-4h": GptSpec(layers=4, hidden=16, heads=4, vocab=64, positions=32,
                            description="a micro GPT with 4 layers of 4 heads, for tensor parallelism"),
    "gpt-small-bf16": GptSpec(layers=2, hidden=64, heads=4, vocab=128, positions=32, dtype="bf16",
                              description="a small GPT in bf16, for memory accounting"),
    "gpt-micro-plain": GptSpec(layers=2, hidden=16, heads=2, vocab=64, positions=32, dropout=None,
                               description="a micro GPT without dropout ops"),
    "gpt-wide": GptSpec(layers=2, hidden=256, heads=4, vocab=512, positions=160,
                        description="a small GPT with rows wider than a warp's 16-byte loads, "
                                    "for emulated GPU kernels"),
    "gpt2-narrow": GptSpec(layers=12, hidden=64, heads=4, vocab=512, positions=64,
                           description="GPT-2 small's structure (12 layers) at a tiny width: "
                           "its kernel launches per step, counted without a GPU"),
    "gpt2-1layer": GptSpec(layers=1, hidden=768, heads=12, vocab=50257, positions=1024,
                           description="one GPT-2 small layer, for kernel bandwidth at large batches"),
    "gpt-long-1k": GptSpec(layers=2, hidden=128, heads=4, vocab=1024, positions=1024,
                           description="a 2-layer GPT over 1024 positions, for fused attention's "
                                       "memory and speed at long sequences"),
    "gpt-wide-256": GptSpec(layers=4, hidden=256, heads=8, vocab=8192, positions=256,
                            description="a wider GPT for CPU throughput beside PyTorch (issue #24)"),
    "gpt-pipe-8l": GptSpec(layers=8, hidden=128, heads=4, vocab=1024, positions=128,
                           description="an 8-layer GPT with enough work per layer to compare the "
                                       "CPU time of pipeline layouts"),
    "gpt3-175b": GptSpec(layers=96, hidden=12288, heads=96, vocab=50257, positions=2048,
                         description="GPT-3 175B, for the compiler's own time and memory at "
                                     "real scale (issue #24)"),
    # Narayanan et al. 2021 (Megatron-LM on A100 clusters), Tables 1 and 2:
    # vocabulary 51,200, 2048 positions; for the layout search's check.
    "narayanan-39b": GptSpec(layers=48, hidden=8192, heads=64, vocab=51200, positions=2048,
                             description="the 39.1B GPT of Narayanan et al. 2021, Table 1"),
    "narayanan-146b": GptSpec(layers=80, hidden=12288, heads=96, vocab=51200, positions=2048,
                              description="the 145.6B GPT of Narayanan et al. 2021, Table 1"),
    "narayanan-175b": GptSpec(layers=96, hidden=12288, heads=96, vocab=51200, positions=2048,
                              description="GPT-3 175B as Narayanan et al. 2021, Table 2"),
    "narayanan-310b": GptSpec(layers=96, hidden=16384, heads=128, vocab=51200, positions=2048,
                              description="the 310.1B GPT of Narayanan et al. 2021, Table 1"),
    "narayanan-530b": GptSpec(layers=105, hidden=20480, heads=128, vocab=51200, positions=2048,
                              description="the 529.6B GPT of Narayanan et al. 2021, Table 1"),
    "narayanan-1t": GptSpec(layers=128, hidden=25600, heads=160, vocab=51200, positions=2048,
                            description="the 1T GPT of Narayanan et al. 2021, Table 1"),
    "gpt3-175b-48l": GptSpec(layers=48, hidden=12288, heads=96, vocab=50257, positions=2048,
                             description="GPT-3 175B's layers halved, for how compile cost "
                                         "grows with depth"),
}

NORM = B.NormSpec("layer_norm", 1e-5)
STD = 0.02


def layer_params(spec):
    """One layer's weights, named as Hugging Face's GPT-2 under h.*, "." -> "_" for SSA."""
    H, F = spec.hidden, 4 * spec.hidden
    out = normal(STD / math.sqrt(2 * spec.layers))  # GPT-2 / Megatron scaled init of output layers
    table = [
        ("ln_1.weight", [H], ONES), ("ln_1.bias", [H], ZEROS),
        ("attn.qkv.weight", [3 * H, H], normal(STD)), ("attn.qkv.bias", [3 * H], ZEROS),
        ("attn.proj.weight", [H, H], out), ("attn.proj.bias", [H], ZEROS),
        ("ln_2.weight", [H], ONES), ("ln_2.bias", [H], ZEROS),
        ("mlp.fc.weight", [F, H], normal(STD)), ("mlp.fc.bias", [F], ZEROS),
        ("mlp.proj.weight", [H, F], out), ("mlp.proj.bias", [H], ZEROS),
    ]
    return tuple(Param(name.replace(".", "_"), name, tuple(shape), init) for name, shape, init in table)


def layer(spec):
    """The body of the layer stack, for Block.layer_stack."""
    attention = B.AttentionSpec(heads=spec.heads, mask=B.CAUSAL, scale=1.0 / math.sqrt(spec.hidden // spec.heads),
                                layout="fused", dropout_streams=(1, 2))
    mlp = B.MlpSpec("gelu_tanh", B.MlpNames(up="f", act="g", down="d"), dropout_streams=(None, 3))

    def build(body, hidden, w):
        a = B.norm(body, "a", hidden, B.Norm(w["ln_1_weight"], w["ln_1_bias"]), NORM)
        o = B.attention(body, a, B.AttentionWeights(
            qkv=B.Linear(w["attn_qkv_weight"], w["attn_qkv_bias"]),
            out=B.Linear(w["attn_proj_weight"], w["attn_proj_bias"])), attention)
        r1 = body.add("r1", hidden, o)
        b = B.norm(body, "b", r1, B.Norm(w["ln_2_weight"], w["ln_2_bias"]), NORM)
        d = B.mlp(body, b, B.MlpWeights(up=B.Linear(w["mlp_fc_weight"], w["mlp_fc_bias"]),
                                        down=B.Linear(w["mlp_proj_weight"], w["mlp_proj_bias"])), mlp)
        return body.add("r2", r1, d)
    return build


def header(spec):
    return comment(f"""\
{spec.description}: {spec.layers} layers, hidden {spec.hidden}, {spec.heads} heads, vocabulary {spec.vocab},
{spec.positions} positions, tied input and output embeddings.
Generated by examples/gen_gpt.py; edit the script, not this file.

The batch is [batch, seq] token ids with next-token labels and a loss mask,
plus the dropout seed the runtime draws for each micro-batch;
batch and sequence sizes are left open (?) and fixed at compile time.
Every layer is one body of mt.layer_stack over weights stacked [{spec.layers}, ...].""")


def model(name, spec):
    """The model's .mlir text."""
    H, dtype = spec.hidden, spec.dtype
    fn = Function(name, dtype, dropout_rate=spec.dropout)
    tokens = fn.input("tokens", tensor(DYN, DYN, dtype="i32"))
    targets = B.Targets(fn.input("labels", tensor(DYN, DYN, dtype="i32")),
                        fn.input("loss_mask", tensor(DYN, DYN, dtype=dtype)))
    fn.dropout_seed()  # declared even without dropout ops, so every variant takes the same batch
    wte = fn.param(Param("wte", "wte", (spec.vocab, H), normal(STD)))
    wpe = fn.param(Param("wpe", "wpe", (spec.positions, H), normal(STD)))
    stack = fn.declare_stack(Stack(spec.layers, layer_params(spec), "h."))
    ln_f = B.Norm(fn.param(Param("ln_f_weight", "ln_f.weight", (H,), ONES)),
                  fn.param(Param("ln_f_bias", "ln_f.bias", (H,), ZEROS)))

    top = fn.body
    x = top.dropout(B.embed(top, B.Embeddings(wte, wpe), tokens), 0, name="x")
    h = top.layer_stack("h", x, stack, layer(spec))
    y = B.norm(top, "y", h, ln_f, NORM)
    _, loss = B.lm_loss(top, y, B.Linear(wte), targets)
    return header(spec) + fn.finish([Result(loss)])
