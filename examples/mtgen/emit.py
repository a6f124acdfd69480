"""The mt dialect as text: tensor types, SSA values, and the ops of a function.

Every op method takes the name for its result first (a hint: a name already
used in the region gets a number appended), then its operands as Values, and
works out the result's type from theirs, so a model is written without
spelling out a single type.  The printed forms are the ones mt-opt parses.
"""
from dataclasses import dataclass

DYN = None  # a size left open ("?"): batch and sequence sizes, fixed by mtc


@dataclass(frozen=True)
class TensorType:
    dims: tuple  # sizes, DYN where open
    dtype: str = "f32"

    def __str__(self):
        sizes = "".join(("?" if d is DYN else str(d)) + "x" for d in self.dims)
        return f"tensor<{sizes}{self.dtype}>"

    def with_dims(self, *dims):
        return TensorType(tuple(dims), self.dtype)


def tensor(*dims, dtype="f32"):
    return TensorType(tuple(dims), dtype)


@dataclass(frozen=True)
class Value:
    name: str  # without the "%"
    type: TensorType

    def __str__(self):
        return "%" + self.name


@dataclass(frozen=True)
class Init:
    """How a parameter starts: "ones", "zeros", or "normal" with a std."""
    kind: str
    std: float | None = None

    def __str__(self):
        if self.kind == "normal":
            return f"init = normal, std = {self.std:.6e}"
        return f"init = {self.kind}"


ONES, ZEROS = Init("ones"), Init("zeros")


def normal(std):
    return Init("normal", std)


@dataclass(frozen=True)
class Param:
    """A trained tensor: its SSA name, checkpoint name, shape and init."""
    ssa: str
    name: str
    shape: tuple
    init: Init


@dataclass(frozen=True)
class Stack:
    """Weights stacked [layers, ...]; mt.layer_stack hands each layer its slice."""
    layers: int
    params: tuple  # one layer's Params, shapes without the layer axis
    name_prefix: str  # of the checkpoint names, e.g. "h."
    ssa_prefix: str = ""  # of the function arguments (T5 has two stacks)


@dataclass(frozen=True)
class Dropout:
    """The rate of a model's mt.dropout ops and the seed they draw masks from."""
    rate: float
    seed: Value


def f64_attr(value):
    return f"{value:e} : f64"


def i64_attr(value):
    return f"{value} : i64"


def exact_f64_attr(value):
    """A float printed in full (repr), for values such as 1/sqrt(d)."""
    return f"{value!r} : f64"


def attr_dict(attrs):
    """{a = 1 : i64, b}: a value of True prints the name alone (a unit attr)."""
    parts = (k if v is True else f"{k} = {v}" for k, v in attrs.items())
    return "{" + ", ".join(parts) + "}"


class Block:
    """The ops of one region, a line each, and the SSA names it has given out.

    `dropout` is the model's Dropout, or None for a model without dropout
    ops: then dropout() hands its input back and prints nothing.
    """

    def __init__(self, indent, dropout=None):
        self.indent, self.dropout_config = indent, dropout
        self.lines, self.names = [], set()

    def fresh(self, hint):
        name, n = hint, 1
        while name in self.names:
            n += 1
            name = f"{hint}{n}"
        self.names.add(name)
        return name

    def line(self, text):
        self.lines.append(text)

    def op(self, name, text, result_type):
        value = Value(self.fresh(name), result_type)
        self.line(f"{value} = {text}")
        return value

    def text(self):
        pad = " " * self.indent
        return "\n".join(pad + line if line else "" for line in self.lines)

    # Elementwise ops: the result has the first operand's type.

    def add(self, name, x, y):
        return self.op(name, f"mt.add {x}, {y} : {x.type}, {y.type}", x.type)

    def mul(self, name, x, y):
        return self.op(name, f"mt.mul {x}, {y} : {x.type}, {y.type}", x.type)

    def activation(self, name, kind, x):
        """kind: "relu", "silu", "tanh", or "gelu" / "gelu_tanh" (exact / tanh-approximated)."""
        if kind.startswith("gelu"):
            approximate = "tanh" if kind == "gelu_tanh" else "none"
            return self.op(name, f"mt.gelu {x} approximate = {approximate} : {x.type}", x.type)
        return self.op(name, f"mt.{kind} {x} : {x.type}", x.type)

    def dropout(self, x, stream, name=None):
        """x with dropout applied (named x's name + "d"), or x itself without dropout."""
        config = self.dropout_config
        if config is None or stream is None:
            return x
        seed = config.seed
        attrs = attr_dict({"rate": f64_attr(config.rate), "stream": i64_attr(stream)})
        return self.op(name or x.name + "d",
                       f"mt.dropout {x} seed {seed} : {seed.type} {attrs} : {x.type}", x.type)

    def constant(self, name, value):
        t = tensor()
        return self.op(name, f"arith.constant dense<{value!r}> : {t}", t)

    # Embeddings, norms and projections.

    def embedding(self, name, table, ids):
        t = table.type.with_dims(*ids.type.dims, table.type.dims[-1])
        return self.op(name, f"mt.embedding {table}[{ids}] : {table.type}, {ids.type} -> {t}", t)

    def position_embedding(self, name, table, ids):
        """Rows 0..seq-1 of table: [seq, hidden], added to every sequence of the batch."""
        t = table.type.with_dims(DYN, table.type.dims[-1])
        return self.op(name, f"mt.position_embedding {table} for {ids} : "
                             f"{table.type}, {ids.type} -> {t}", t)

    def layer_norm(self, name, x, weight, bias, epsilon):
        attrs = attr_dict({"epsilon": f64_attr(epsilon)})
        return self.op(name, f"mt.layer_norm {x}, {weight}, {bias} {attrs} : {x.type}, {weight.type}",
                       x.type)

    def rms_norm(self, name, x, weight, epsilon):
        attrs = attr_dict({"epsilon": f64_attr(epsilon)})
        return self.op(name, f"mt.rms_norm {x}, {weight} {attrs} : {x.type}, {weight.type}", x.type)

    def linear(self, name, x, weight, bias=None):
        """x @ weight^T (+ bias); weight is [out, in] as PyTorch stores it."""
        t = x.type.with_dims(*x.type.dims[:-1], weight.type.dims[0])
        operands = [x, weight] + ([bias] if bias is not None else [])
        names = ", ".join(str(v) for v in operands)
        types = ", ".join(str(v.type) for v in operands)
        return self.op(name, f"mt.linear {names} : {types} -> {t}", t)

    def split_last(self, names, x, sizes):
        """x cut along its last axis into pieces of `sizes`, named `names`."""
        axis = len(x.type.dims) - 1
        pieces = [Value(self.fresh(n), x.type.with_dims(*x.type.dims[:-1], s))
                  for n, s in zip(names, sizes)]
        attrs = attr_dict({"dim": i64_attr(axis),
                           "sizes": "array<i64: " + ", ".join(str(s) for s in sizes) + ">"})
        self.line(f"{', '.join(str(p) for p in pieces)} = mt.split {x} {attrs} : {x.type} -> "
                  + ", ".join(str(p.type) for p in pieces))
        return pieces

    # Attention: [batch, seq, heads * dim] <-> [batch, heads, seq, dim].

    def split_heads(self, name, x, heads):
        batch, seq, width = x.type.dims
        t = x.type.with_dims(batch, heads, seq, width // heads)
        attrs = attr_dict({"num_heads": i64_attr(heads)})
        return self.op(name, f"mt.split_heads {x} {attrs} : {x.type} -> {t}", t)

    def merge_heads(self, name, x):
        batch, heads, seq, dim = x.type.dims
        t = x.type.with_dims(batch, seq, heads * dim)
        return self.op(name, f"mt.merge_heads {x} : {x.type} -> {t}", t)

    def attention_scores(self, name, q, k):
        """q k^T per head: [batch, q heads, q seq, k seq]."""
        t = q.type.with_dims(*q.type.dims[:3], k.type.dims[2])
        return self.op(name, f"mt.attention_scores {q}, {k} : {q.type}, {k.type} -> {t}", t)

    def softmax(self, name, scores, mask, scale):
        """softmax(scale * scores) over keys; mask is "causal" or a key mask Value."""
        if mask == "causal":
            attrs = attr_dict({"mask": "#mt<mask causal>", "scale": exact_f64_attr(scale)})
            return self.op(name, f"mt.softmax {scores} {attrs} : {scores.type}", scores.type)
        attrs = attr_dict({"scale": exact_f64_attr(scale)})
        return self.op(name, f"mt.softmax {scores} key_mask {mask} : {mask.type} {attrs} : {scores.type}",
                       scores.type)

    def attention_context(self, name, probs, v):
        t = probs.type.with_dims(*probs.type.dims[:3], v.type.dims[3])
        return self.op(name, f"mt.attention_context {probs}, {v} : {probs.type}, {v.type} -> {t}", t)

    def rotary(self, name, x, base):
        attrs = attr_dict({"base": f64_attr(base)})
        return self.op(name, f"mt.rotary {x} {attrs} : {x.type}", x.type)

    def alibi(self, name, scores, heads, slope_scale=1.0):
        attrs = {"num_heads": i64_attr(heads)}
        if slope_scale != 1.0:
            attrs["slope_scale"] = f"{slope_scale!r} : f64"  # every digit: the slopes are exact
        attrs = attr_dict(attrs)
        return self.op(name, f"mt.alibi {scores} {attrs} : {scores.type}", scores.type)

    def relative_position_bias(self, name, scores, table, attrs):
        return self.op(name, f"mt.relative_position_bias {scores}, {table} {attr_dict(attrs)} : "
                             f"{scores.type}, {table.type}", scores.type)

    # Losses: scalars, f64 for an f64 model and f32 otherwise.

    def cross_entropy(self, name, logits, labels, mask):
        return self._masked_reduction(name, "mt.cross_entropy", logits, (labels, mask))

    def accuracy(self, name, logits, labels, mask):
        return self._masked_reduction(name, "mt.accuracy", logits, (labels, mask))

    def _masked_reduction(self, name, op, logits, targets):
        labels, mask = targets
        t = tensor(dtype="f64" if logits.type.dtype == "f64" else "f32")
        return self.op(name, f"{op} {logits}, {labels} mask {mask} : "
                             f"{logits.type}, {labels.type}, {mask.type} -> {t}", t)

    # Regions.

    def layer_stack(self, name, x, params, build):
        """The stack of layers over x: build(body, hidden, weights) writes the
        body every layer runs and returns the layer's output.

        params is what Function.declare_stack returned; `weights` maps each
        Param's ssa name to one layer's slice of it, a Value named ssa + "_l".
        """
        body = Block(self.indent + 2, self.dropout_config)
        hidden = Value(body.fresh("hidden"), x.type)
        weights, bindings = {}, []
        for param, stacked in params:
            layer = Value(body.fresh(param.ssa + "_l"), stacked.type.with_dims(*param.shape))
            weights[param.ssa] = layer
            bindings.append(f"{layer} = {stacked} : {stacked.type}")
        out = build(body, hidden, weights)
        body.line(f"mt.yield {out} : {out.type}")
        pad = " " * self.indent
        binding_lines = f",\n{pad}      ".join(bindings)
        return self.op(name, f"mt.layer_stack ({hidden} = {x} : {x.type}) layers (\n"
                             f"{pad}      {binding_lines})\n"
                             f"{pad}    -> {x.type} {{\n{body.text()}\n{pad}}}", x.type)


@dataclass(frozen=True)
class Result:
    """A value the function returns; a metric's name makes mt-run print it."""
    value: Value
    metric: str | None = None

    def signature(self):
        if self.metric is None:
            return str(self.value.type)
        return f'{self.value.type} {{mt.metric = "{self.metric}"}}'


class Function:
    """A model: a func.func whose arguments are the batch and the parameters."""

    RESULTS_WIDTH = 100  # several results are listed on lines up to this long

    def __init__(self, name, dtype="f32", dropout_rate=None):
        self.symbol = name.replace("-", "_").replace(".", "_")
        self.dtype, self.args = dtype, []
        self.body = Block(indent=2)
        self.dropout_rate = dropout_rate

    def _arg(self, name, t, attrs):
        value = Value(self.body.fresh(name), t)
        self.args.append(f"{value}: {t} {attrs}")
        return value

    def input(self, name, t, sequence=None):
        """A batch input; sequence names a second sequence length (T5's decoder)."""
        attrs = f'mt.batch = "{name}"' + (f', mt.sequence = "{sequence}"' if sequence else "")
        return self._arg(name, t, "{" + attrs + "}")

    def dropout_seed(self):
        """The seed input mt-run draws per micro-batch; the body's dropout ops use it."""
        seed = self.input("dropout_seed", tensor(dtype="i64"))
        if self.dropout_rate is not None:
            self.body.dropout_config = Dropout(self.dropout_rate, seed)
        return seed

    def param(self, param, layers=None):
        shape = param.shape if layers is None else (layers, *param.shape)
        attrs = f'{{mt.param = #mt.param<name = "{param.name}", {param.init}>}}'
        return self._arg(param.ssa, tensor(*shape, dtype=self.dtype), attrs)

    def declare_stack(self, stack):
        """The stack's parameters as arguments, for Block.layer_stack."""
        declared = []
        for p in stack.params:
            stacked = Param(stack.ssa_prefix + p.ssa, stack.name_prefix + p.name, p.shape, p.init)
            declared.append((p, self.param(stacked, stack.layers)))
        return declared

    def finish(self, results):
        """The function's text, returning `results` (a list of Result)."""
        values = [r.value for r in results]
        self.body.line(f"return {', '.join(str(v) for v in values)} : "
                       + ", ".join(str(v.type) for v in values))
        args = ",\n    ".join(self.args)
        return (f"func.func @{self.symbol}(\n    {args}){self._signature(results)} {{\n"
                f"{self.body.text()}\n}}\n")

    def _signature(self, results):
        if len(results) == 1:
            return f" -> {results[0].signature()}"
        lines, line = [], "    -> ("
        for i, result in enumerate(results):
            item = result.signature() + ("," if i + 1 < len(results) else ")")
            if len(line) + 1 + len(item) > self.RESULTS_WIDTH and not line.endswith("("):
                lines.append(line)
                line = "        " + item
            else:
                line += ("" if line.endswith("(") else " ") + item
        return "\n" + "\n".join(lines + [line])


def comment(text):
    """text as // lines (a bare // for an empty line)."""
    return "".join("//" + (" " + line if line else "") + "\n" for line in text.split("\n"))
