"""Numbers for mt.warp_mma's emulation (test/Conversion/mt-emulate-warp-mma-numbers.test).

`make DIR E [STEPS]` writes DIR/mma.mlir: one warp's m16n8k16 product D = A x B + C of
small integers (exact in bf16, f16 and f32, so the order of the sums cannot
matter), each lane's fragments laid out as the PTX ISA describes them for
mma.sync.m16n8k16 with .bf16/.f16 multiplicands, written here from that
description, independently of the emulator. A main prints each lane's four
D elements. With STEPS, the product sits in a loop of STEPS iterations
whose bound is the same in every lane (D = C + STEPS A x B), as a tile loop
of the attention kernels does. DIR/expected.txt holds D computed in Python.
`check EXPECTED PRINTED` compares the runner's output against it.
"""
import random
import re
import sys


def fragments(a, b, c):
    """Per lane: A's 8 elements, B's 4 and C's 4 (the ISA's tables)."""
    lanes = []
    for lane in range(32):
        group, thread = lane >> 2, lane % 4
        # a0,a1: row groupID; a2,a3: groupID+8; a4,a5: groupID, cols +8; a6,a7: groupID+8, cols +8.
        a_rows = [group, group, group + 8, group + 8, group, group, group + 8, group + 8]
        a_cols = [thread * 2 + (i & 1) + (8 if i >= 4 else 0) for i in range(8)]
        # b0,b1: rows threadID_in_group*2 + (0,1); b2,b3: those + 8; column groupID.
        b_rows = [thread * 2 + (i & 1) + (8 if i >= 2 else 0) for i in range(4)]
        # c0,c1: row groupID; c2,c3: groupID+8; columns threadID_in_group*2 + (0,1).
        c_rows = [group, group, group + 8, group + 8]
        c_cols = [thread * 2 + (i & 1) for i in range(4)]
        lanes.append(([a[r][k] for r, k in zip(a_rows, a_cols)],
                      [b[k][group] for k in b_rows],
                      [c[r][n] for r, n in zip(c_rows, c_cols)],
                      list(zip(c_rows, c_cols))))
    return lanes


def dense(rows):
    return "[" + ", ".join("[" + ", ".join(f"{v:.1f}" for v in r) + "]" for r in rows) + "]"


def make(out_dir, element, steps):
    rnd = random.Random(38)
    a = [[rnd.randint(-4, 4) for _ in range(16)] for _ in range(16)]
    b = [[rnd.randint(-4, 4) for _ in range(8)] for _ in range(16)]
    c = [[rnd.randint(-8, 8) for _ in range(8)] for _ in range(16)]
    d = [[c[m][n] + steps * sum(a[m][k] * b[k][n] for k in range(16)) for n in range(8)]
         for m in range(16)]
    lanes = fragments(a, b, c)
    with open(f"{out_dir}/expected.txt", "w") as f:
        for lane in lanes:
            f.write(" ".join(str(d[r][n]) for r, n in lane[3]) + "\n")
    E = element
    mapping = ("[#gpu.loop_dim_map<processor = thread_y, map = (d0) -> (d0), bound = (d0) -> (d0)>, "
               "#gpu.loop_dim_map<processor = thread_x, map = (d0) -> (d0), bound = (d0) -> (d0)>]")
    mma = (f"mt.warp_mma %av, %bv, %{{acc}} {{{{shape = array<i64: 16, 8, 16>}}}} : vector<8x{E}>, "
           f"vector<4x{E}>, vector<4xf32> -> vector<4xf32>")
    if steps == 1:
        body = f"      %dv = {mma.format(acc='cv')}\n"
    else:
        # The bound is computed in the lane body from the warp's index: the
        # emulator has to see that it is the same in every lane.
        body = (f"      %steps = arith.constant {steps} : index\n"
                f"      %n = arith.addi %w, %steps : index\n"
                f"      %dv = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %cv) -> (vector<4xf32>) {{\n"
                f"        %next = {mma.format(acc='acc')}\n"
                f"        scf.yield %next : vector<4xf32>\n"
                f"      }}\n")
    with open(f"{out_dir}/mma.mlir", "w") as f:
        f.write(f"""module {{
  memref.global "private" constant @a : memref<32x8x{E}> = dense<{dense([l[0] for l in lanes])}>
  memref.global "private" constant @b : memref<32x4x{E}> = dense<{dense([l[1] for l in lanes])}>
  memref.global "private" constant @c : memref<32x4xf32> = dense<{dense([l[2] for l in lanes])}>
  func.func @warp(%a: memref<32x8x{E}>, %b: memref<32x4x{E}>, %c: memref<32x4xf32>, %d: memref<32x4xf32>) {{
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c32 = arith.constant 32 : index
    scf.parallel (%w, %l) = (%c0, %c0) to (%c1, %c32) step (%c1, %c1) {{
      %av = vector.load %a[%l, %c0] : memref<32x8x{E}>, vector<8x{E}>
      %bv = vector.load %b[%l, %c0] : memref<32x4x{E}>, vector<4x{E}>
      %cv = vector.load %c[%l, %c0] : memref<32x4xf32>, vector<4xf32>
{body}      vector.store %dv, %d[%l, %c0] : memref<32x4xf32>, vector<4xf32>
      scf.reduce
    }} {{mapping = {mapping}}}
    return
  }}
  func.func @main() {{
    %a = memref.get_global @a : memref<32x8x{E}>
    %b = memref.get_global @b : memref<32x4x{E}>
    %c = memref.get_global @c : memref<32x4xf32>
    %d = memref.alloc() : memref<32x4xf32>
    call @warp(%a, %b, %c, %d) : (memref<32x8x{E}>, memref<32x4x{E}>, memref<32x4xf32>, memref<32x4xf32>) -> ()
    %u = memref.cast %d : memref<32x4xf32> to memref<*xf32>
    call @printMemrefF32(%u) : (memref<*xf32>) -> ()
    memref.dealloc %d : memref<32x4xf32>
    return
  }}
  func.func private @printMemrefF32(memref<*xf32>) attributes {{llvm.emit_c_interface}}
}}
""")


def check(expected_path, printed_path):
    expected = [[float(x) for x in line.split()] for line in open(expected_path)]
    text = open(printed_path).read()
    data = text[text.index("data ="):]
    got = [float(x) for x in re.findall(r"-?\d+(?:\.\d+)?(?:e[-+]?\d+)?", data[len("data ="):])]
    flat = [x for row in expected for x in row]
    if len(got) != len(flat):
        sys.exit(f"printed {len(got)} numbers, expected {len(flat)}")
    wrong = [(i // 4, i % 4, g, e) for i, (g, e) in enumerate(zip(got, flat)) if g != e]
    if wrong:
        lane, elem, g, e = wrong[0]
        sys.exit(f"{len(wrong)} of 128 D elements differ; first: lane {lane} element {elem}: "
                 f"{g} != {e}")
    print("128 D elements as the PTX ISA's fragment layout gives them")


if __name__ == "__main__":
    if sys.argv[1] == "make":
        make(sys.argv[2], sys.argv[3], int(sys.argv[4]) if len(sys.argv) > 4 else 1)
    else:
        check(sys.argv[2], sys.argv[3])
