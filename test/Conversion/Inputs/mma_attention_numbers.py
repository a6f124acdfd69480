"""Numbers for the tensor-core attention kernel (test/Conversion/mt-mma-attention-numbers.test).

`make DIR CASE` writes DIR/attention.mlir: one bf16 mt.fused_attention over
pseudo-random q, k, v whose scores are large (peaked softmax rows, so a key or a
column put in the wrong place moves the output by O(1)), with a main that
prints the output (widened to f32) and the log-sum-exp. The test lowers it
twice, through the row kernel on the CPU and through the warp-MMA kernel
emulated, and `compare A B` checks that they agree to bf16 rounding.
Cases: `causal` (GQA 4 query heads on 2 key heads, 80 positions: two key
tiles, the last partial), `padded` (a key mask, no causal rule) and
`dropout` (causal with rate 0.2: the kernels must drop the same elements).
"""
import re
import sys

B, HQ, HKV, S, D = 1, 4, 2, 80, 32


def fill(name, type_, heads):
    """A function that fills a [B, heads, S, D] bf16 tensor with multiples of
    1/4 in [-7.5, 7.5] hashed from the flat index and `salt` (a kernel, so
    the GPU plan computes it on the device: its kernels cannot read host
    globals)."""
    return f"""  func.func @{name}(%salt: index) -> {type_} {{
    %e = tensor.empty() : {type_}
    %c61 = arith.constant 61 : index
    %c30 = arith.constant 30 : index
    %c7919 = arith.constant 7919 : index
    %c104729 = arith.constant 104729 : index
    %quarter = arith.constant 0.25 : f32
    %golden = arith.constant 2654435761 : index
    %c16 = arith.constant 16 : index
    %r = linalg.generic {{indexing_maps = [affine_map<(a, b, c, d) -> (a, b, c, d)>],
        iterator_types = ["parallel", "parallel", "parallel", "parallel"]}} outs(%e : {type_}) {{
    ^bb0(%out: bf16):
      %i0 = linalg.index 0 : index
      %i1 = linalg.index 1 : index
      %i2 = linalg.index 2 : index
      %i3 = linalg.index 3 : index
      %cH = arith.constant {heads} : index
      %cS = arith.constant {S} : index
      %cD = arith.constant {D} : index
      %f0 = arith.muli %i0, %cH : index
      %f1 = arith.addi %f0, %i1 : index
      %f2 = arith.muli %f1, %cS : index
      %f3 = arith.addi %f2, %i2 : index
      %f4 = arith.muli %f3, %cD : index
      %flat = arith.addi %f4, %i3 : index
      %m = arith.muli %flat, %c7919 : index
      %s = arith.muli %salt, %c104729 : index
      %h = arith.addi %m, %s : index
      %mixed = arith.muli %h, %golden : index
      %high = arith.shrui %mixed, %c16 : index
      %k = arith.remui %high, %c61 : index
      %c = arith.subi %k, %c30 : index
      %ci = arith.index_cast %c : index to i32
      %cf = arith.sitofp %ci : i32 to f32
      %v = arith.mulf %cf, %quarter : f32
      %b = arith.truncf %v : f32 to bf16
      linalg.yield %b : bf16
    }} -> {type_}
    return %r : {type_}
  }}"""


def make(out_dir, case):
    qt = f"tensor<{B}x{HQ}x{S}x{D}xbf16>"
    kt = f"tensor<{B}x{HKV}x{S}x{D}xbf16>"
    ot = f"tensor<{B}x{S}x{HQ * D}xbf16>"
    of = f"tensor<{B}x{S}x{HQ * D}xf32>"
    lt = f"tensor<{B}x{HQ}x{S}xf32>"
    mask = "#mt<mask causal>" if case != "padded" else "#mt<mask none>"
    extra_args, extra_ops, operands = "", "", ""
    attrs = f"scale = {D ** -0.5:.6f} : f64, mask = {mask}, block_keys = 64 : i64"
    if case == "padded":
        # The last 13 keys are padding (computed by a kernel, as the inputs).
        extra_ops += (
            f"    %pad = tensor.empty() : tensor<{B}x{S}xi1>\n"
            f"    %real = arith.constant {S - 13} : index\n"
            f"    %keep = linalg.generic {{indexing_maps = [affine_map<(a, j) -> (a, j)>], "
            f"iterator_types = [\"parallel\", \"parallel\"]}} outs(%pad : tensor<{B}x{S}xi1>) {{\n"
            f"    ^bb0(%out: i1):\n"
            f"      %j = linalg.index 1 : index\n"
            f"      %in = arith.cmpi ult, %j, %real : index\n"
            f"      linalg.yield %in : i1\n"
            f"    }} -> tensor<{B}x{S}xi1>\n")
        operands += f" key_mask %keep : tensor<{B}x{S}xi1>"
    if case == "dropout":
        extra_ops += "    %seed = arith.constant dense<1234> : tensor<i64>\n"
        operands += " seed %seed : tensor<i64>"
        attrs += ", rate = 0.2 : f64, stream = 3 : i64"
    with open(f"{out_dir}/attention.mlir", "w") as f:
        f.write(f"""module {{
  func.func @attention(%q: {qt}, %k: {kt}, %v: {kt}) -> ({of}, {lt}) {{
{extra_ops}    %o, %lse = mt.fused_attention %q, %k, %v{operands} {{{attrs}}} : {qt}, {kt}, {kt} -> {ot}, {lt}
    %wide = mt.convert %o : {ot} -> {of}
    return %wide, %lse : {of}, {lt}
  }}
{fill("fill_q", qt, HQ)}
{fill("fill_kv", kt, HKV)}
  func.func @main() {{
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c3 = arith.constant 3 : index
    %q = call @fill_q(%c1) : (index) -> {qt}
    %k = call @fill_kv(%c2) : (index) -> {kt}
    %v = call @fill_kv(%c3) : (index) -> {kt}
    %o, %lse = call @attention(%q, %k, %v) : ({qt}, {kt}, {kt}) -> ({of}, {lt})
    %ob = bufferization.to_buffer %o : {of} to memref<{B}x{S}x{HQ * D}xf32>
    %lb = bufferization.to_buffer %lse : {lt} to memref<{B}x{HQ}x{S}xf32>
    %ou = memref.cast %ob : memref<{B}x{S}x{HQ * D}xf32> to memref<*xf32>
    %lu = memref.cast %lb : memref<{B}x{HQ}x{S}xf32> to memref<*xf32>
    call @printMemrefF32(%ou) : (memref<*xf32>) -> ()
    call @printMemrefF32(%lu) : (memref<*xf32>) -> ()
    return
  }}
  func.func private @printMemrefF32(memref<*xf32>) attributes {{llvm.emit_c_interface}}
}}
""")


def numbers(path):
    text = open(path).read()
    blocks = text.split("Unranked Memref")[1:]
    return [[float(x) for x in re.findall(r"-?(?:inf|nan|\d+(?:\.\d+)?(?:e[-+]?\d+)?)",
                                          b[b.index("data ="):])] for b in blocks]


def compare(a_path, b_path):
    (oa, la), (ob, lb) = numbers(a_path), numbers(b_path)
    if len(oa) != len(ob) or len(la) != len(lb) or not oa:
        sys.exit("the two runs printed different shapes")
    scale = max(abs(x) for x in oa)
    o_err = max(abs(x - y) for x, y in zip(oa, ob)) / scale
    l_err = max(abs(x - y) for x, y in zip(la, lb))
    print(f"output error {o_err:.1e} of its largest element, log-sum-exp error {l_err:.1e}")
    if o_err > 2e-2 or l_err > 1e-3:
        sys.exit("the tensor-core kernel disagrees with the row kernel")
    print("agree")


if __name__ == "__main__":
    if sys.argv[1] == "make":
        make(sys.argv[2], sys.argv[3])
    else:
        compare(sys.argv[2], sys.argv[3])
