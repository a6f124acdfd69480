//===- MTGpuOps.td - a warp's lanes and tensor-core products ---------------===//
//
// Ops of generated GPU kernels written for one lane of one warp
// (docs/attention-gpu-design.md). The lowering to linalg emits them inside a
// loop of warp tasks (`scf.for {mt.warp_tasks = N}`); mt-map-to-gpu maps the
// task loop to blocks of warps and replaces `mt.lane_id` by the lane; the
// emulator (--emulate-gpu-kernels) runs `mt.warp_mma` over the 32 lanes with
// its exact fragment layout, and mt-lower-warp-mma turns it into NVVM's
// mma.sync for the device.
//
//===----------------------------------------------------------------------===//
#ifndef MT_GPU_OPS_TD
#define MT_GPU_OPS_TD

include "mt/Dialect/MT/IR/MTDialect.td"
include "mlir/Interfaces/SideEffectInterfaces.td"

def MT_LaneIdOp : MT_Op<"lane_id", [Pure]> {
  let summary = "this lane's number (0 to 31) within the warp running a warp task";
  let description = [{
    The position of the lane that runs the enclosing warp task. `task` is the
    induction variable of the task loop; it is an operand only so that the
    op cannot be hoisted out of that loop. mt-map-to-gpu replaces the op by
    the thread's lane when it maps the task loop to warps; a plan in which
    one is left is refused, so no kernel runs lane 0 alone.

    ```mlir
    scf.for %task = %c0 to %n step %c1 {
      %lane = mt.lane_id %task
      ...
    } {mt.warp_tasks = 4 : i64}
    ```
  }];
  let arguments = (ins Index:$task);
  let results = (outs Index:$lane);
  let assemblyFormat = "$task attr-dict";
  let hasVerifier = 1;
}

def MT_WarpMmaOp : MT_Op<"warp_mma", [Pure]> {
  let summary = "one warp-wide tensor-core product D = A x B + C (m16n8k16)";
  let description = [{
    A warp collective: the 32 lanes together multiply a 16 x 16 matrix A by
    a 16 x 8 matrix B (bf16 or f16) and add a 16 x 8 f32 matrix C, each lane
    holding its own fragment of each, as PTX's `mma.sync.m16n8k16.row.col`
    lays them out. With g = lane / 4 and t = lane % 4:
    - A (8 elements): element i is A[g + 8 * ((i / 2) % 2), 2t + i % 2 + 8 * (i / 4)];
    - B (4 elements): element i is B[2t + i % 2 + 8 * (i / 2), g];
    - C and D (4 elements): element i is C[g + 8 * (i / 2), 2t + i % 2].
    Every lane of the warp must reach the op. The products are exact in f32;
    the order in which the hardware adds them is unspecified, so plans that
    use it agree with the CPU to a tolerance, not bit for bit.

    ```mlir
    %d = mt.warp_mma %a, %b, %c {shape = array<i64: 16, 8, 16>}
        : vector<8xbf16>, vector<4xbf16>, vector<4xf32> -> vector<4xf32>
    ```
  }];
  let arguments = (ins AnyVectorOfNonZeroRank:$a, AnyVectorOfNonZeroRank:$b,
                       AnyVectorOfNonZeroRank:$c, DenseI64ArrayAttr:$shape);
  let results = (outs AnyVectorOfNonZeroRank:$result);
  let assemblyFormat = [{
    $a `,` $b `,` $c attr-dict `:` type($a) `,` type($b) `,` type($c) `->` type($result)
  }];
  let hasVerifier = 1;
}

#endif // MT_GPU_OPS_TD
