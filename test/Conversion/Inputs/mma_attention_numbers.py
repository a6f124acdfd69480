"""Numbers for the tensor-core attention kernel (test/Conversion/mt-mma-attention-numbers.test).

`make DIR CASE` writes DIR/attention.mlir: one bf16 mt.fused_attention and
its gradient over pseudo-random q, k, v and do whose scores are large
(peaked softmax rows, so a key or a column put in the wrong place moves the
output by O(1)), with a main that prints the output, dq, dk and dv (widened
to f32) and the log-sum-exp. The test lowers it
twice, through the row kernel on the CPU and through the warp-MMA kernel
emulated, and `compare A B` checks that they agree to bf16 rounding.
Cases: `causal` (GQA 4 query heads on 2 key heads, 80 positions: two key
tiles, the last partial), `padded` (a key mask, no causal rule) and
`dropout` (causal with rate 0.2: the kernels must drop the same elements);
`causal-f16` is `causal` in f16 (the f16 MMA, and 3 more bits: tighter).
"""
import re
import sys

B, HQ, HKV, S, D = 1, 4, 2, 80, 32


def fill(name, type_, shape):
    """A function that fills a bf16 tensor of `shape` with multiples of 1/4
    in [-7.5, 7.5] hashed from the flat index and `salt` (a kernel, so the
    GPU plan computes it on the device: its kernels cannot read host
    globals)."""
    dims = "abcd"[:len(shape)]
    flat = ["      %f0 = linalg.index 0 : index"]
    for i in range(1, len(shape)):
        flat += [f"      %i{i} = linalg.index {i} : index",
                 f"      %n{i} = arith.constant {shape[i]} : index",
                 f"      %g{i} = arith.muli %f{i - 1}, %n{i} : index",
                 f"      %f{i} = arith.addi %g{i}, %i{i} : index"]
    flat = "\n".join(flat)
    last = len(shape) - 1
    return f"""  func.func @{name}(%salt: index) -> {type_} {{
    %e = tensor.empty() : {type_}
    %c61 = arith.constant 61 : index
    %c30 = arith.constant 30 : index
    %c7919 = arith.constant 7919 : index
    %c104729 = arith.constant 104729 : index
    %quarter = arith.constant 0.25 : f32
    %golden = arith.constant 2654435761 : index
    %c16 = arith.constant 16 : index
    %r = linalg.generic {{indexing_maps = [affine_map<({", ".join(dims)}) -> ({", ".join(dims)})>],
        iterator_types = [{", ".join(['"parallel"'] * len(shape))}]}} outs(%e : {type_}) {{
    ^bb0(%out: bf16):
{flat}
      %m = arith.muli %f{last}, %c7919 : index
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
    element = "f16" if case.endswith("-f16") else "bf16"
    case = case.removesuffix("-f16")
    qt = f"tensor<{B}x{HQ}x{S}x{D}xbf16>"
    kt = f"tensor<{B}x{HKV}x{S}x{D}xbf16>"
    ot = f"tensor<{B}x{S}x{HQ * D}xbf16>"
    of = f"tensor<{B}x{S}x{HQ * D}xf32>"
    lt = f"tensor<{B}x{HQ}x{S}xf32>"
    qf = f"tensor<{B}x{HQ}x{S}x{D}xf32>"
    kf = f"tensor<{B}x{HKV}x{S}x{D}xf32>"
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
    text = f"""module {{
  func.func @attention(%q: {qt}, %k: {kt}, %v: {kt}, %do: {ot}) -> ({of}, {lt}, {qf}, {kf}, {kf}) {{
{extra_ops}    %o, %lse = mt.fused_attention %q, %k, %v{operands} {{{attrs}}} : {qt}, {kt}, {kt} -> {ot}, {lt}
    %dq, %dk, %dv = mt.fused_attention_grad %do, %q, %k, %v, %o, %lse{operands} {{{attrs}}} : {ot}, {qt}, {kt}, {kt}, {lt}
    %wide = mt.convert %o : {ot} -> {of}
    %dqf = mt.convert %dq : {qt} -> {qf}
    %dkf = mt.convert %dk : {kt} -> {kf}
    %dvf = mt.convert %dv : {kt} -> {kf}
    return %wide, %lse, %dqf, %dkf, %dvf : {of}, {lt}, {qf}, {kf}, {kf}
  }}
{fill("fill_q", qt, [B, HQ, S, D])}
{fill("fill_kv", kt, [B, HKV, S, D])}
{fill("fill_o", ot, [B, S, HQ * D])}
  func.func @main() {{
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c3 = arith.constant 3 : index
    %q = call @fill_q(%c1) : (index) -> {qt}
    %k = call @fill_kv(%c2) : (index) -> {kt}
    %v = call @fill_kv(%c3) : (index) -> {kt}
    %do = call @fill_o(%c2) : (index) -> {ot}
    %o, %lse, %dq, %dk, %dv = call @attention(%q, %k, %v, %do) : ({qt}, {kt}, {kt}, {ot}) -> ({of}, {lt}, {qf}, {kf}, {kf})
    %ob = bufferization.to_buffer %o : {of} to memref<{B}x{S}x{HQ * D}xf32>
    %lb = bufferization.to_buffer %lse : {lt} to memref<{B}x{HQ}x{S}xf32>
    %ou = memref.cast %ob : memref<{B}x{S}x{HQ * D}xf32> to memref<*xf32>
    %lu = memref.cast %lb : memref<{B}x{HQ}x{S}xf32> to memref<*xf32>
    call @printMemrefF32(%ou) : (memref<*xf32>) -> ()
    call @printMemrefF32(%lu) : (memref<*xf32>) -> ()
    %qb = bufferization.to_buffer %dq : {qf} to memref<{B}x{HQ}x{S}x{D}xf32>
    %qu = memref.cast %qb : memref<{B}x{HQ}x{S}x{D}xf32> to memref<*xf32>
    call @printMemrefF32(%qu) : (memref<*xf32>) -> ()
    %kb = bufferization.to_buffer %dk : {kf} to memref<{B}x{HKV}x{S}x{D}xf32>
    %ku = memref.cast %kb : memref<{B}x{HKV}x{S}x{D}xf32> to memref<*xf32>
    call @printMemrefF32(%ku) : (memref<*xf32>) -> ()
    %vb = bufferization.to_buffer %dv : {kf} to memref<{B}x{HKV}x{S}x{D}xf32>
    %vu = memref.cast %vb : memref<{B}x{HKV}x{S}x{D}xf32> to memref<*xf32>
    call @printMemrefF32(%vu) : (memref<*xf32>) -> ()
    return
  }}
  func.func private @printMemrefF32(memref<*xf32>) attributes {{llvm.emit_c_interface}}
}}
"""
    with open(f"{out_dir}/attention.mlir", "w") as f:
        f.write(text.replace("bf16", element))


def numbers(path):
    text = open(path).read()
    blocks = text.split("Unranked Memref")[1:]
    return [[float(x) for x in re.findall(r"-?(?:inf|nan|\d+(?:\.\d+)?(?:e[-+]?\d+)?)",
                                          b[b.index("data ="):])] for b in blocks]


def compare(a_path, b_path, case):
    # bf16 keeps 8 bits: P and dS rounded to it before their products, and
    # dq's sum over keys cancels (sum_j dS_j = 0), so the gradients' errors
    # are larger than the output's.
    o_tol, q_tol = (4e-3, 8e-3) if case.endswith("-f16") else (2e-2, 6e-2)
    (oa, la, qa, ka, va), (ob, lb, qb, kb, vb) = numbers(a_path), numbers(b_path)
    pairs = ((oa, ob), (la, lb), (qa, qb), (ka, kb), (va, vb))
    if any(len(x) != len(y) for x, y in pairs) or not oa:
        sys.exit("the two runs printed different shapes")
    def relative(x, y):
        return max(abs(u - w) for u, w in zip(x, y)) / max(abs(u) for u in x)
    o_err, l_err = relative(oa, ob), max(abs(x - y) for x, y in zip(la, lb))
    q_err, k_err, v_err = relative(qa, qb), relative(ka, kb), relative(va, vb)
    print(f"output error {o_err:.1e}, dq {q_err:.1e}, dk {k_err:.1e}, dv {v_err:.1e} of their "
          f"largest elements, log-sum-exp error {l_err:.1e}")
    if o_err > o_tol or max(q_err, k_err, v_err) > q_tol or l_err > 1e-3:
        sys.exit("the tensor-core kernels disagree with the row kernels")
    print("agree")


if __name__ == "__main__":
    if sys.argv[1] == "make":
        make(sys.argv[2], sys.argv[3])
    else:
        compare(sys.argv[2], sys.argv[3], sys.argv[4])
