"""Transformer building blocks over emit.Block: norms, embeddings, attention,
MLPs and the language-model loss.

Each takes the Block to write into, its input Values, the weights it uses
and a spec saying which variant it is.  SSA names are the ones the committed
examples use, so regenerating them changes nothing.
"""
from dataclasses import dataclass

from .emit import Value, i64_attr

CAUSAL = "causal"  # AttentionSpec.mask for decoders: each position sees those before it


@dataclass(frozen=True)
class Linear:
    """A linear layer: weight [out, in] as PyTorch stores it, bias optional."""
    weight: Value
    bias: Value | None = None


def linear(block, name, x, layer):
    return block.linear(name, x, layer.weight, layer.bias)


@dataclass(frozen=True)
class NormSpec:
    kind: str  # "layer_norm" (with a bias) or "rms_norm" (without)
    epsilon: float


@dataclass(frozen=True)
class Norm:
    weight: Value
    bias: Value | None = None  # layer norms only


def norm(block, name, x, weights, spec):
    if spec.kind == "rms_norm":
        return block.rms_norm(name, x, weights.weight, spec.epsilon)
    return block.layer_norm(name, x, weights.weight, weights.bias, spec.epsilon)


@dataclass(frozen=True)
class Embeddings:
    """Learned token and position embeddings (and BERT's token types), summed."""
    words: Value  # [vocab, hidden]
    positions: Value  # [positions, hidden]
    token_types: Value | None = None  # [types, hidden]
    sums: tuple = ("emb",)  # names of the running sums, one per addition


def embed(block, tables, tokens, token_types=None):
    """The sum of the embeddings of tokens (and their token_types)."""
    parts = [block.embedding("tok", tables.words, tokens),
             block.position_embedding("pos", tables.positions, tokens)]
    if tables.token_types is not None:
        parts.append(block.embedding("typ", tables.token_types, token_types))
    total = parts[0]
    for name, part in zip(tables.sums, parts[1:]):
        total = block.add(name, total, part)
    return total


# Positions inside attention.  Each kind says what the raw scores q k^T are
# called, because the committed examples name them differently.

class NoPositions:
    """No positions in attention (the model adds them to its input, or has none)."""
    raw_scores = "s"

    def rotate(self, block, spec, q, k):
        return q, k

    def bias(self, block, spec, scores):
        return scores


@dataclass(frozen=True)
class Rotary(NoPositions):
    """Rotary positions on queries and keys (consecutive pairs, as Meta's Llama)."""
    base: float = 1e4

    def rotate(self, block, spec, q, k):
        return (block.rotary(spec.prefix + "qr", q, self.base),
                block.rotary(spec.prefix + "kr", k, self.base))


class Alibi(NoPositions):
    """ALiBi: a per-head linear penalty on the distance, added to the scores.

    Press et al. add m_h * (j - i) to the scaled scores q.k / sqrt(d); the
    softmax scales the biased scores by spec.scale, so the slopes are
    divided by it first (slope_scale)."""
    raw_scores = "s0"

    def bias(self, block, spec, scores):
        return block.alibi(spec.prefix + "s", scores, spec.heads, 1.0 / spec.scale)


@dataclass(frozen=True)
class RelativeBias(NoPositions):
    """T5's learned bias per bucket of key - query distance, from `table` [buckets, heads]."""
    table: Value
    bidirectional: bool  # the encoder's; the decoder's buckets only look back
    max_distance: int

    def bias(self, block, spec, scores):
        attrs = {"bidirectional": True} if self.bidirectional else {}
        attrs["max_distance"] = i64_attr(self.max_distance)
        return block.relative_position_bias(spec.prefix + "sb", scores, self.table, attrs)


@dataclass(frozen=True)
class AttentionWeights:
    out: Linear
    q: Linear | None = None
    k: Linear | None = None
    v: Linear | None = None
    qkv: Linear | None = None  # q, k and v as one [3 * hidden, hidden] layer (GPT-2)


@dataclass(frozen=True)
class AttentionSpec:
    heads: int
    mask: object  # CAUSAL, or a key mask Value [batch, seq] (true = a real token)
    scale: float  # applied to the scores in the softmax
    kv_heads: int | None = None  # fewer key/value heads than heads: grouped-query
    positions: NoPositions = NoPositions()
    # The order the projections are written in: "fused" (one qkv linear, then
    # split), "each" (q's linear and heads, then k's, then v's) or
    # "linears_first" (the three linears, then the three splits into heads).
    layout: str = "each"
    prefix: str = ""  # of every name (T5 has self- and cross-attention in a layer)
    dropout_streams: tuple = (None, None)  # on the probabilities, on the output


def attention(block, x, weights, spec, memory=None):
    """Multi-head attention of x over memory (x itself when None); returns the
    output projection, after dropout."""
    def name(s):
        return spec.prefix + s

    q, k, v = _heads(block, (x, x if memory is None else memory), weights, spec)
    q, k = spec.positions.rotate(block, spec, q, k)
    scores = block.attention_scores(name(spec.positions.raw_scores), q, k)
    scores = spec.positions.bias(block, spec, scores)
    probs = block.softmax(name("p"), scores, spec.mask, spec.scale)
    probs = block.dropout(probs, spec.dropout_streams[0])
    context = block.attention_context(name("c"), probs, v)
    merged = block.merge_heads(name("m"), context)
    out = linear(block, name("o"), merged, weights.out)
    return block.dropout(out, spec.dropout_streams[1])


def _heads(block, sources, weights, spec):
    """q from sources[0], k and v from sources[1], each split into heads."""
    names = [spec.prefix + p for p in "qkv"]
    kv_heads = spec.kv_heads or spec.heads
    heads = [spec.heads, kv_heads, kv_heads]
    if spec.layout == "fused":
        qkv = linear(block, spec.prefix + "qkv", sources[0], weights.qkv)
        projected = block.split_last(names, qkv, [qkv.type.dims[-1] // 3] * 3)
        return [block.split_heads(n + "h", t, h) for n, t, h in zip(names, projected, heads)]
    inputs = [sources[0], sources[1], sources[1]]
    layers = [weights.q, weights.k, weights.v]
    if spec.layout == "linears_first":
        projected = [linear(block, n, x, w) for n, x, w in zip(names, inputs, layers)]
        return [block.split_heads(n + "h", t, h) for n, t, h in zip(names, projected, heads)]
    return [block.split_heads(n + "h", linear(block, n, x, w), h)
            for n, x, w, h in zip(names, inputs, layers, heads)]


@dataclass(frozen=True)
class MlpWeights:
    up: Linear
    down: Linear
    gate: Linear | None = None  # gated MLPs: down(act(gate x) * up x)


@dataclass(frozen=True)
class MlpNames:
    """The names of an MLP's values (each model's examples spell them its own way)."""
    up: str
    act: str
    down: str
    gate: str | None = None
    product: str | None = None  # act(gate x) * up x


@dataclass(frozen=True)
class MlpSpec:
    activation: str  # an emit.Block.activation kind
    names: MlpNames
    dropout_streams: tuple = (None, None)  # after the activation, after the output


def mlp(block, x, weights, spec):
    """The feed-forward sublayer; returns its output, after dropout."""
    names = spec.names
    if weights.gate is not None:
        gate = linear(block, names.gate, x, weights.gate)
        up = linear(block, names.up, x, weights.up)
        act = block.activation(names.act, spec.activation, gate)
        hidden = block.mul(names.product, act, up)
    else:
        up = linear(block, names.up, x, weights.up)
        hidden = block.activation(names.act, spec.activation, up)
    hidden = block.dropout(hidden, spec.dropout_streams[0])
    out = linear(block, names.down, hidden, weights.down)
    return block.dropout(out, spec.dropout_streams[1])


@dataclass(frozen=True)
class Targets:
    labels: Value  # [batch, seq] token ids
    mask: Value  # 1 where a position counts towards the loss


def lm_loss(block, x, head, targets, name="loss"):
    """The output layer's logits and their mean cross-entropy over the masked positions."""
    logits = linear(block, "logits", x, head)
    return logits, block.cross_entropy(name, logits, targets.labels, targets.mask)
