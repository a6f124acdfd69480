#!/usr/bin/env python3
"""Writes the T5 example models (examples/t5*.mlir) from one template.

T5 (Raffel et al. 2020) as Hugging Face's T5ForConditionalGeneration defines
it: an encoder and a decoder stack over one shared embedding; pre-norm layers
with T5's layer norm (RMS, no mean, no bias, eps 1e-6); attention without
biases or 1/sqrt(d) scaling, with a relative position bias (buckets of
key - query distances, one [buckets, heads] table per stack shared by its
layers: bidirectional in the encoder, causal in the decoder; none in the
decoder's cross-attention); a feed-forward of ReLU (v1.0) or gated GeLU
(v1.1: gelu_tanh(wi_0 x) * wi_1 x). v1.0 ties the output layer to the shared
embedding and scales the decoder's output by d_model^-0.5 first; v1.1 has an
untied lm_head. Parameter names are Hugging Face's (the stacked per-layer
weights under encoder.block. / decoder.block.).

The batch: the encoder's tokens and padding mask ([batch, seq], true = a
real token), the decoder's input tokens, labels and loss mask ([batch,
decoder seq], marked mt.sequence = "decoder": mtc --decoder-seq-length). The
loss is the mean cross-entropy over the loss mask (Hugging Face's labels of
-100 are loss_mask 0); it is also returned as the "lm loss" metric, the name
Megatron's T5 prints.

Usage: gen_t5.py OUTPUT_DIR [MODEL...] (default: the committed examples).
"""
import sys

MODELS = {
    # name: (layers, d_model, heads, d_kv, d_ff, vocab, version, dropout, description)
    "t5-small": (6, 512, 8, 64, 2048, 32128, "1.0", 0.1, "t5-small (60.5M)"),
    "t5-base": (12, 768, 12, 64, 3072, 32128, "1.0", 0.1, "t5-base (223M)"),
    "t5-v1_1-small": (8, 512, 6, 64, 1024, 32128, "1.1", 0.0, "google/t5-v1_1-small (77M)"),
    "t5-v1_1-base": (12, 768, 12, 64, 2048, 32128, "1.1", 0.0, "google/t5-v1_1-base (248M)"),
}

# Written only when named on the command line (tests generate them).
TEST_MODELS = {
    "t5-tiny": (2, 64, 4, 16, 256, 512, "1.0", 0.1, "a tiny T5 for the CPU demo"),
    "t5-micro": (2, 16, 4, 4, 32, 320, "1.0", 0.0, "a micro T5 v1.0 without dropout, for comparisons"),
    "t5-micro-v1_1": (2, 16, 4, 6, 24, 320, "1.1", 0.0,
                      "a micro T5 v1.1 (gated GeLU, untied output; heads x d_kv != d_model)"),
    "t5-micro-4l": (4, 16, 4, 4, 32, 320, "1.0", 0.0, "a micro T5 of 4 layers a stack, for pipelines"),
    "t5-micro-drop": (2, 16, 4, 4, 32, 320, "1.0", 0.1, "a micro T5 with dropout"),
}

BUCKETS, MAX_DISTANCE, EPS = 32, 128, 1e-6


def ty(shape):
    return "tensor<" + "x".join(str(d) for d in shape) + "xf32>"


def param(pname, init, std=None):
    if init == "normal":
        return f'#mt.param<name = "{pname}", init = normal, std = {std:.6e}>'
    return f'#mt.param<name = "{pname}", init = {init}>'


class Writer:
    """Lines of one body, with dropout when the model has it."""

    def __init__(self, dropout, indent):
        self.lines, self.dropout, self.indent = [], dropout, indent

    def add(self, line):
        self.lines.append(line)

    def drop(self, out, inp, t, stream):
        if self.dropout > 0:
            self.add(f"{out} = mt.dropout {inp} seed %dropout_seed : tensor<i64> "
                     f"{{rate = {self.dropout:.6e} : f64, stream = {stream} : i64}} : {t}")
            return out
        return inp

    def text(self):
        return "\n".join(" " * self.indent + line for line in self.lines)


def model(name, layers, d, heads, d_kv, d_ff, vocab, version, dropout, description):
    L, inner, V = layers, heads * d_kv, vocab
    act, inner_t, vec = f"tensor<?x?x{d}xf32>", f"tensor<?x?x{inner}xf32>", ty([d])
    q_t, scores_t, ffn_t = f"tensor<?x{heads}x?x{d_kv}xf32>", f"tensor<?x{heads}x?x?xf32>", f"tensor<?x?x{d_ff}xf32>"
    gated = version == "1.1"
    # Hugging Face's T5 initialization (Mesh TensorFlow's).
    std = {"q": (d * d_kv) ** -0.5, "k": d ** -0.5, "v": d ** -0.5, "o": inner ** -0.5,
           "wi": d ** -0.5, "wo": d_ff ** -0.5, "rel": d ** -0.5}

    def attention(prefix, ssa):
        return [(f"{ssa}_{w}", f"{prefix}.{w}.weight", [d, inner] if w == "o" else [inner, d], "normal", std[w])
                for w in "qkvo"]

    def ffn(prefix):
        wis = [("wi_0", "wi0"), ("wi_1", "wi1")] if gated else [("wi", "wi")]
        return ([(ssa, f"{prefix}.DenseReluDense.{w}.weight", [d_ff, d], "normal", std["wi"]) for w, ssa in wis] +
                [("wo", f"{prefix}.DenseReluDense.wo.weight", [d, d_ff], "normal", std["wo"])])

    enc_layer = (attention("layer.0.SelfAttention", "sa") +
                 [("ln0", "layer.0.layer_norm.weight", [d], "ones", None)] + ffn("layer.1") +
                 [("ln1", "layer.1.layer_norm.weight", [d], "ones", None)])
    dec_layer = (attention("layer.0.SelfAttention", "sa") +
                 [("ln0", "layer.0.layer_norm.weight", [d], "ones", None)] +
                 attention("layer.1.EncDecAttention", "ca") +
                 [("ln1", "layer.1.layer_norm.weight", [d], "ones", None)] + ffn("layer.2") +
                 [("ln2", "layer.2.layer_norm.weight", [d], "ones", None)])
    ids, mask_t = "tensor<?x?xi32>", "tensor<?x?xf32>"
    args = [
        f'%tokens: {ids} {{mt.batch = "tokens"}}',
        '%padding_mask: tensor<?x?xi1> {mt.batch = "padding_mask"}',
        f'%decoder_tokens: {ids} {{mt.batch = "decoder_tokens", mt.sequence = "decoder"}}',
        f'%labels: {ids} {{mt.batch = "labels", mt.sequence = "decoder"}}',
        f'%loss_mask: {mask_t} {{mt.batch = "loss_mask", mt.sequence = "decoder"}}',
    ]
    if dropout > 0:
        args.append('%dropout_seed: tensor<i64> {mt.batch = "dropout_seed"}')
    args.append(f"%shared: {ty([V, d])} {{mt.param = {param('shared.weight', 'normal', 1.0)}}}")
    for stack, per_layer in (("enc", enc_layer), ("dec", dec_layer)):
        full = "encoder" if stack == "enc" else "decoder"
        rel = f"{full}.block.0.layer.0.SelfAttention.relative_attention_bias.weight"
        args.append(f"%{stack}_rel: {ty([BUCKETS, heads])} {{mt.param = {param(rel, 'normal', std['rel'])}}}")
        for ssa, pname, shape, init, s in per_layer:
            args.append(f"%{stack}_{ssa}: {ty([L] + shape)} "
                        f"{{mt.param = {param(full + '.block.' + pname, init, s)}}}")
        args.append(f"%{stack}_final: {vec} {{mt.param = {param(full + '.final_layer_norm.weight', 'ones')}}}")
    if gated:
        args.append(f"%lm_head: {ty([V, d])} {{mt.param = {param('lm_head.weight', 'normal', 1.0)}}}")

    def bindings(stack, per_layer):
        return ",\n        ".join(f"%{ssa}_l = %{stack}_{ssa} : {ty([L] + sh)}" for ssa, _, sh, _, _ in per_layer)

    def attend(w, x, kv, which, streams, relative=None, causal=False):
        """Appends attention `which` (sa/ca) of x over kv; returns its output."""
        for p, src in (("q", x), ("k", kv), ("v", kv)):
            w.add(f"%{which}_{p} = mt.linear {src}, %{which}_{p}_l : {act}, {ty([inner, d])} -> {inner_t}")
            w.add(f"%{which}_{p}h = mt.split_heads %{which}_{p} {{num_heads = {heads} : i64}} : {inner_t} -> {q_t}")
        w.add(f"%{which}_s = mt.attention_scores %{which}_qh, %{which}_kh : {q_t}, {q_t} -> {scores_t}")
        s = f"%{which}_s"
        if relative:
            table, bidirectional = relative
            attrs = "bidirectional" if bidirectional else ""
            attrs = (attrs + ", " if attrs else "") + f"max_distance = {MAX_DISTANCE} : i64"
            w.add(f"%{which}_sb = mt.relative_position_bias {s}, {table} {{{attrs}}} : {scores_t}, {ty([BUCKETS, heads])}")
            s = f"%{which}_sb"
        if causal:
            w.add(f"%{which}_p = mt.softmax {s} {{mask = #mt<mask causal>, scale = 1.0 : f64}} : {scores_t}")
        else:
            w.add(f"%{which}_p = mt.softmax {s} key_mask %padding_mask : tensor<?x?xi1> {{scale = 1.0 : f64}} : {scores_t}")
        p = w.drop(f"%{which}_pd", f"%{which}_p", scores_t, streams[0])
        w.add(f"%{which}_c = mt.attention_context {p}, %{which}_vh : {scores_t}, {q_t} -> {q_t}")
        w.add(f"%{which}_m = mt.merge_heads %{which}_c : {q_t} -> {inner_t}")
        w.add(f"%{which}_o = mt.linear %{which}_m, %{which}_o_l : {inner_t}, {ty([d, inner])} -> {act}")
        return w.drop(f"%{which}_od", f"%{which}_o", act, streams[1])

    def feed_forward(w, x, streams):
        if gated:
            w.add(f"%wi0 = mt.linear {x}, %wi0_l : {act}, {ty([d_ff, d])} -> {ffn_t}")
            w.add(f"%wi1 = mt.linear {x}, %wi1_l : {act}, {ty([d_ff, d])} -> {ffn_t}")
            w.add(f"%g = mt.gelu %wi0 approximate = tanh : {ffn_t}")
            w.add(f"%a = mt.mul %g, %wi1 : {ffn_t}, {ffn_t}")
        else:
            w.add(f"%wi = mt.linear {x}, %wi_l : {act}, {ty([d_ff, d])} -> {ffn_t}")
            w.add(f"%a = mt.relu %wi : {ffn_t}")
        a = w.drop("%ad", "%a", ffn_t, streams[0])
        w.add(f"%f = mt.linear {a}, %wo_l : {ffn_t}, {ty([d, d_ff])} -> {act}")
        return w.drop("%fd", "%f", act, streams[1])

    def norm(w, out, x, gamma):
        w.add(f"{out} = mt.rms_norm {x}, {gamma} {{epsilon = {EPS:e} : f64}} : {act}, {vec}")

    enc = Writer(dropout, 4)
    norm(enc, "%n0", "%hidden", "%ln0_l")
    o = attend(enc, "%n0", "%n0", "sa", (1, 2), relative=("%enc_rel", True))
    enc.add(f"%r1 = mt.add %hidden, {o} : {act}, {act}")
    norm(enc, "%n1", "%r1", "%ln1_l")
    f = feed_forward(enc, "%n1", (3, 4))
    enc.add(f"%r2 = mt.add %r1, {f} : {act}, {act}")
    enc.add(f"mt.yield %r2 : {act}")

    dec = Writer(dropout, 4)
    norm(dec, "%n0", "%hidden", "%ln0_l")
    o = attend(dec, "%n0", "%n0", "sa", (11, 12), relative=("%dec_rel", False), causal=True)
    dec.add(f"%r1 = mt.add %hidden, {o} : {act}, {act}")
    norm(dec, "%n1", "%r1", "%ln1_l")
    encoded = "%encd" if dropout > 0 else "%en"  # the encoder's output, dropped out
    o = attend(dec, "%n1", encoded, "ca", (13, 14))
    dec.add(f"%r2 = mt.add %r1, {o} : {act}, {act}")
    norm(dec, "%n2", "%r2", "%ln2_l")
    f = feed_forward(dec, "%n2", (15, 16))
    dec.add(f"%r3 = mt.add %r2, {f} : {act}, {act}")
    dec.add(f"mt.yield %r3 : {act}")

    top = Writer(dropout, 2)
    top.add(f"%ex = mt.embedding %shared[%tokens] : {ty([V, d])}, {ids} -> {act}")
    x = top.drop("%exd", "%ex", act, 0)
    top.add(f"%eh = mt.layer_stack (%hidden = {x} : {act}) layers (\n        {bindings('enc', enc_layer)})\n"
            f"      -> {act} {{\n{enc.text()}\n  }}")
    norm(top, "%en", "%eh", "%enc_final")
    top.drop("%encd", "%en", act, 7)
    top.add(f"%dx = mt.embedding %shared[%decoder_tokens] : {ty([V, d])}, {ids} -> {act}")
    y = top.drop("%dxd", "%dx", act, 8)
    top.add(f"%dh = mt.layer_stack (%hidden = {y} : {act}) layers (\n        {bindings('dec', dec_layer)})\n"
            f"      -> {act} {{\n{dec.text()}\n  }}")
    norm(top, "%dn", "%dh", "%dec_final")
    out = top.drop("%dnd", "%dn", act, 9)
    logits_t = f"tensor<?x?x{V}xf32>"
    if gated:
        top.add(f"%logits = mt.linear {out}, %lm_head : {act}, {ty([V, d])} -> {logits_t}")
    else:  # tied: the decoder's output scaled by d_model^-0.5 first
        top.add(f"%rescale = arith.constant dense<{d ** -0.5!r}> : tensor<f32>")
        top.add(f"%scaled = mt.mul {out}, %rescale : {act}, tensor<f32>")
        top.add(f"%logits = mt.linear %scaled, %shared : {act}, {ty([V, d])} -> {logits_t}")
    top.add(f"%loss = mt.cross_entropy %logits, %labels mask %loss_mask : {logits_t}, {ids}, {mask_t} -> tensor<f32>")
    top.add("return %loss, %loss : tensor<f32>, tensor<f32>")
    ffn_text = "gated-GeLU feed-forward, an untied lm_head" if gated else "ReLU feed-forward, the output tied to the embedding"
    return f"""\
// {description}: T5 v{version}, {L} + {L} layers, d_model {d}, {heads} heads of {d_kv},
// d_ff {d_ff}, vocabulary {V}; {ffn_text};
// relative position buckets {BUCKETS} up to distance {MAX_DISTANCE}; dropout {dropout:g}.
// Generated by examples/gen_t5.py; edit the script, not this file.
//
// The batch: encoder tokens and padding mask [batch, seq]; decoder tokens,
// labels and loss mask [batch, decoder seq] (mtc --seq-length and
// --decoder-seq-length fix both at compile time).
func.func @{name.replace('-', '_').replace('.', '_')}(
    {(','+chr(10)+'    ').join(args)})
    -> (tensor<f32>, tensor<f32> {{mt.metric = "lm loss"}}) {{
{top.text()}
}}
"""


def main():
    out_dir = sys.argv[1] if len(sys.argv) > 1 else "."
    names = sys.argv[2:] or list(MODELS)
    for name in names:
        spec = MODELS.get(name) or TEST_MODELS.get(name)
        if spec is None:
            sys.exit(f"gen_t5.py: unknown model '{name}'")
        with open(f"{out_dir}/{name}.mlir", "w") as f:
            f.write(model(name, *spec))


if __name__ == "__main__":
    main()
