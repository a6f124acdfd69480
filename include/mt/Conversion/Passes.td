//===- Passes.td - lowerings out of the mt dialect ------------------------===//
#ifndef MT_CONVERSION_PASSES_TD
#define MT_CONVERSION_PASSES_TD

include "mlir/Pass/PassBase.td"

def NumberCollectivesPass : Pass<"mt-number-collectives", "mlir::ModuleOp"> {
  let summary = "numbers the module's collectives in program order";
  let description = [{
    Every collective (all-reduce, all-gather, reduce-scatter) gets
    `mt.collective = n`, counting from 0 in the order the module's
    functions list them. Every rank compiles the same program, so equal
    numbers label matching calls; mt-lower-to-linalg passes the number to
    the runtime, which checks that the ranks' calls agree. Numbering before
    lowering keeps the labels independent of the order in which patterns
    happen to run.

    ```mlir
    %s = mt.all_reduce %x on @mesh axes = ["tp"] reduction = sum {mt.collective = 0 : i64} : tensor<4xf32>
    ```
  }];
}

def LowerToLinalgPass : Pass<"mt-lower-to-linalg", "mlir::ModuleOp"> {
  let summary = "lowers mt ops to linalg, tensor, arith and math on static shapes";
  let description = [{
    Every mt tensor op becomes upstream tensor-level IR: linalg.generic for
    elementwise maps, reductions and contractions, tensor slicing and
    reshaping for data movement, scf loops for scatter-adds. Dropout masks
    come from a counter-based hash of (seed, stream, layer slot, element
    index), so they are the same on every target. Collectives and
    `mt.axis_index` become calls into the runtime (`mt_rt_*` of
    include/mt/Runtime/Abi.h, taking buffer addresses as i64, with the ABI's
    codes for element type, reduction and mesh axes, and the label
    mt-number-collectives gave each); `mt.vary` is the
    identity. `mt.send` / `mt.recv` are an error here: the runtime's pipeline
    scheduler moves activations between stages.

    `tiled-attention` (the CPU pipeline sets it): mt.fused_attention and its
    gradient on f32/f64 become loops over tiles of query rows and keys whose
    products are matrix products (BLAS calls after
    mt-convert-contractions-to-blas); without it, row kernels (a GPU thread
    per row).

    `mma-attention` (GPU plans under --gpu-attention=mma): the forward of a
    16-bit mt.fused_attention whose shapes the tensor cores take
    (mt::mmaAttentionShape) becomes a loop of warp tasks
    (`scf.for {mt.warp_tasks = 4}`) written for one lane: `mt.lane_id`,
    fragments as vectors, `mt.warp_mma`, reductions over the lane's quad.
    Only mt-map-to-gpu can run it; never set it for a CPU plan.
  }];
  let options = [
    Option<"tiledAttention", "tiled-attention", "bool", "false",
           "fused attention as tiles of rows with matrix products (the CPU's form)">,
    Option<"mmaAttention", "mma-attention", "bool", "false",
           "16-bit fused attention as warp tasks on tensor cores (GPU plans)">
  ];
  let dependentDialects = [
    "::mlir::gpu::GPUDialect", "::mlir::vector::VectorDialect",
    "::mlir::arith::ArithDialect", "::mlir::linalg::LinalgDialect",
    "::mlir::math::MathDialect", "::mlir::scf::SCFDialect",
    "::mlir::tensor::TensorDialect", "::mlir::bufferization::BufferizationDialect",
    "::mlir::memref::MemRefDialect", "::mlir::func::FuncDialect"];
}

def ExportEntryPointsPass : Pass<"mt-export-entry-points", "mlir::ModuleOp"> {
  let summary = "adds a uniform entry point for every exported function";
  let description = [{
    Runs on a module in the LLVM dialect. For every function `@f` that was
    lowered with `llvm.emit_c_interface` (so `@_mlir_ciface_f` exists, taking
    one pointer per memref descriptor), adds
    `void @mt_entry_f(ptr args)`, which calls it with `args[0..n)`. The
    runtime then calls any compiled function the same way, with an array of
    descriptor pointers: inputs first, then outputs, then the function's
    arena (mt-plan-buffers).
  }];
  let dependentDialects = ["::mlir::LLVM::LLVMDialect"];
}

def ContractionsToBlasPass : Pass<"mt-convert-contractions-to-blas", "mlir::ModuleOp"> {
  let summary = "turns bufferized matrix-product loops into BLAS GEMM calls";
  let description = [{
    Runs on bufferized IR. A `linalg.generic` that computes
    `C[b..., m, n] += A[b..., m|k, k|m] * B[(b...,) k|n, n|k]` (one reduction
    loop, rows contiguous) becomes a call to `mt_blas_gemm_f32` /
    `mt_blas_gemm_f64` (cblas_?gemm underneath, linked from OpenBLAS), in a
    loop over the batch dimensions. Everything else stays a loop nest.
  }];
  let dependentDialects = ["::mlir::func::FuncDialect", "::mlir::memref::MemRefDialect",
                           "::mlir::scf::SCFDialect", "::mlir::arith::ArithDialect"];
}

def DropInPlaceResultsPass : Pass<"mt-drop-in-place-results", "mlir::ModuleOp"> {
  let summary = "removes the results a function writes over one of its arguments";
  let description = [{
    Runs on bufferized IR, before buffer-results-to-out-params. A function
    result marked `mt.in_place_of = k` (mt-fuse-gradient-accumulation marks
    the updated gradient accumulators) is removed: when bufferization
    already wrote it in argument `k`'s buffer (it returns that argument),
    nothing else changes; otherwise a `memref.copy` into the argument is
    added before the return. Either way the caller's buffer holds the result
    and the function has no out-parameter for it; a call of the function
    (an outlined layer) uses the operand it passed for that result (called
    functions are processed first). A result that is a temporary seen
    through reshapes or a loop that hands its buffer back is returned as an
    allocation of the result's shape that the temporary becomes a view of,
    so buffer-results-to-out-params writes the out-parameter in place
    instead of copying into it. The copies bufferization
    leaves when a slice is updated in place (extracted, computed into and
    inserted back: a copy of the slice onto itself) are removed too.

    ```mlir
    // before
    func.func @f(%acc: memref<4xf32>) -> (memref<4xf32> {mt.in_place_of = 0 : i64}) {
      linalg.generic ... outs(%acc : memref<4xf32>) ...
      return %acc : memref<4xf32>
    }
    // after
    func.func @f(%acc: memref<4xf32>) {
      linalg.generic ... outs(%acc : memref<4xf32>) ...
      return
    }
    ```
  }];
  let dependentDialects = ["::mlir::memref::MemRefDialect"];
}

include "mt/Conversion/GpuPasses.td"

def PlanBuffersPass : Pass<"mt-plan-buffers", "mlir::ModuleOp"> {
  let summary = "places each function's temporary buffers in one arena the caller provides";
  let description = [{
    Runs on bufferized IR, before deallocation is inserted. In every
    function with a body, each `memref.alloc` becomes a `memref.view` into a
    new last argument, the arena (`memref<Nxi8>`), at an offset planned from
    liveness: a buffer lives from its allocation to the last use of it or of
    any view of it, and buffers whose lifetimes do not overlap share bytes
    (mt/Memory/ArenaPlan: largest first, lowest free aligned offset). The
    function records the arena's size as `mt.arena_bytes`; the runtime
    allocates one arena per rank, as large as its largest function's, so a
    step's temporary memory is known before anything runs and is exactly
    what the runtime allocates.

    ```mlir
    // before
    func.func @f(%x: memref<4xf32>, %y: memref<4xf32>) {
      %t = memref.alloc() {alignment = 64 : i64} : memref<4xf32>
      ...
    }
    // after
    func.func @f(%x: memref<4xf32>, %y: memref<4xf32>, %arena: memref<64xi8>) attributes {mt.arena_bytes = 64 : i64} {
      %c0 = arith.constant 0 : index
      %t = memref.view %arena[%c0][] : memref<64xi8> to memref<4xf32>
      ...
    }
    ```

    A function another calls (a layer mt-outline-layers outlined) is
    planned first; each call lends it a block of the caller's arena, as
    large as the callee's, alive at the call (a view passed as the call's
    new last operand), so the caller's `mt.arena_bytes` includes its
    callees'. A collective started ahead of its wait (`mt_rt_*_start`, from
    `mt.collective_wait`) may read its buffers until the wait (NCCL on a
    stream of its own on a GPU): the buffers a start is passed live until
    the `mt_rt_collective_wait` on its result. Allocations inside nested regions or with dynamic sizes, calls
    inside nested regions and recursive calls cannot be planned this way:
    the pass fails with an error naming them rather than leave memory
    unaccounted.
  }];
  let options = [
    Option<"alignment", "alignment", "int64_t", "64", "offset alignment in bytes (a power of two)">,
  ];
  let dependentDialects = ["::mlir::memref::MemRefDialect", "::mlir::arith::ArithDialect"];
}

def ApproximateMathPass : Pass<"mt-approximate-math"> {
  let summary = "rewrites f32 exp, log, tanh and erf into inline polynomials (CPU)";
  let description = [{
    Left to `convert-math-to-libm`, every `math.exp` or `math.tanh` of a
    loop is a call into libm per element, which LLVM neither inlines nor
    vectorizes. This pass replaces the f32 forms of `exp`, `expm1`, `log`,
    `log1p`, `log2`, `tanh` and `erf` by MLIR's polynomial approximations
    (range reduction, a minimax polynomial, exponent arithmetic; about an
    ulp or two from the exact result, infinities and NaN handled), which
    are plain `arith` ops. f64 ops (gradient checks) and `sin`/`cos` (the
    rotary tables, which need exact range reduction) stay libm calls. The
    CPU pipeline runs it before the math lowering; GPU kernels keep
    libdevice.

    ```mlir
    // before
    %e = math.exp %x : f32
    // after: no math.exp, only arith ops
    %c = arith.constant 1.44269502 : f32
    ...
    %e = arith.select %is_neg_inf, %zero, %scaled : f32
    ```
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect", "::mlir::vector::VectorDialect",
                           "::mlir::math::MathDialect"];
}

def FuseElementwiseOpsPass : Pass<"mt-fuse-elementwise-ops"> {
  let summary = "merges an elementwise linalg op into the one op that reads its result (GPU)";
  let description = [{
    Runs on linalg on tensors, after mt-lower-to-linalg, for GPU plans: each
    linalg op becomes a kernel launch there, and each intermediate result a
    round trip through memory. An elementwise `linalg.generic` (every loop
    parallel) whose result has one use, by another `linalg.generic` that
    reads each element once (not broadcast: a bias cast added to every row
    would be redone for each row), is merged into it with upstream's
    producer-consumer fusion: the consumer computes the producer's body at
    the element it reads. The operations and
    their operands are the same, so the values are too (a rounding to bf16
    followed by a widening stays a rounding and a widening). A GEMM is left
    apart on both sides, since mt-convert-contractions-to-blas matches its
    multiply-accumulate and the rounding of its product.

    A transpose is a named op, which upstream's patterns do not fuse into,
    and views often stand between it and its producer: the QKV bias add is
    reshaped and sliced into the query, key and value before each is split
    into heads. An elementwise generic (no positions read, inputs broadcast
    in loop order) whose every reader is such a transpose, through
    `tensor.expand_shape`, `tensor.collapse_shape` and static unit-stride
    `tensor.extract_slice`s, is computed by each transpose instead: the
    transpose becomes a generic reading the same views of the producer's
    operands (a broadcast operand viewed along the dimensions it spans), so
    the bias add is no launch of its own.

    Then a piece of a concat (a tensor built by `tensor.insert_slice`s
    into a `tensor.empty`) that a generic makes into a fresh tensor, perhaps
    reshaped (the merged heads of the query, key and value gradients), is
    made by that generic straight into the concat's slice: bufferization
    stores it in place, and mt-map-to-gpu drops the copy of the slice onto
    itself that remains, so the concat is no launch of its own.

    ```mlir
    // before: a square, then its sum
    %sq = linalg.generic {iterator_types = ["parallel"]} ins(%g) outs(%e) { x * x }
    %s = linalg.generic {iterator_types = ["reduction"]} ins(%sq) outs(%zero) { acc + y }
    // after: one op
    %s = linalg.generic {iterator_types = ["reduction"]} ins(%g) outs(%zero) { acc + x * x }
    ```
  }];
  let dependentDialects = ["::mlir::linalg::LinalgDialect"];
}

def FuseIntoRowKernelsPass : Pass<"mt-fuse-into-row-kernels"> {
  let summary = "merges elementwise linalg ops into the row kernels that write or read their operands (GPU)";
  let description = [{
    Runs on linalg on tensors after mt-fuse-elementwise-ops, for GPU plans.
    A row kernel (an `scf.for` over rows marked `mt.independent_iterations`,
    with passes along each row marked `mt.along_row`) is not a linalg op, so
    upstream fusion does not reach it; here:

    - an elementwise `linalg.generic` that reads a row kernel's result
      element for element (directly, or through the reshape of its leading
      dimensions) joins the kernel's last pass along the row: where the
      pass stores element (r, j), it computes the generic's body on the
      stored value and stores that into a new result of the kernel. The
      attention probabilities' dropout after the softmax is the case that
      matters: one launch and one read of a B x H x S x S tensor fewer;
    - an elementwise generic whose only reader is a row kernel (its
      `tensor.extract`s inside the row loop) is computed where it is read:
      the dropout of the probabilities' gradient inside the softmax
      gradient.

    The fused body sees the values the generic would have read (the stored,
    rounded element, the same positions for a dropout's key), so results
    are bit-identical.

    ```mlir
    // before: a row kernel, then a dropout of its result
    %p = scf.for %r = %c0 to %rows ... iter_args(%o = %e) {mt.independent_iterations}
    %pd = linalg.generic {iterator_types = ["parallel", "parallel"]} ins(%p) outs(%e2) { keep(i, j) ? p * s : 0 }
    // after: the row kernel's last pass stores both
    %p, %pd = scf.for %r = %c0 to %rows ... iter_args(%o = %e, %o2 = %e2)
    ```
  }];
  let dependentDialects = ["::mlir::linalg::LinalgDialect", "::mlir::scf::SCFDialect",
                           "::mlir::tensor::TensorDialect", "::mlir::arith::ArithDialect"];
}

def InterleaveRowReductionsPass : Pass<"mt-interleave-row-reductions"> {
  let summary = "sums and maxima along a row in interleaved partial results (CPU)";
  let description = [{
    A row kernel's reduction along a row (the loop marked `mt.along_row`
    that carries only scalar sums or maxima: a norm's mean and variance, a
    softmax's or cross-entropy's maximum and sum of exponentials) is one
    chain of dependent adds, one element per add latency: over GPT-2's
    50257-wide vocabulary rows it ran at a few percent of what the core can
    do. This pass rewrites such a loop over `W` columns into a loop over
    blocks of `lanes` columns carrying `lanes` partial results each (lane k
    takes columns k, k + lanes, ...), then the leftover columns into lane 0,
    then combines the lanes pairwise in a fixed tree. The chains are
    independent, so the core overlaps them and LLVM may vectorize them. The
    order of the sum depends only on the width and `lanes`, never on the
    machine; maxima are exact in any order. GPU kernels keep their loops:
    mt-map-to-gpu spreads them over a warp's lanes instead.

    ```mlir
    // before: %s = sum over j < 256 of f(j)
    %s = scf.for %j = %c0 to %c256 step %c1 iter_args(%a = %zero) -> (f32) {
      ...
      %n = arith.addf %a, %e : f32
      scf.yield %n : f32
    } {mt.along_row}
    // after (lanes = 8): 32 blocks, 8 partial sums, then a tree of adds
    %p:8 = scf.for %b = %c0 to %c32 step %c1 iter_args(...) -> (f32, ..., f32)
    ```
  }];
  let options = [
    Option<"lanes", "lanes", "int64_t", /*default=*/"8",
           "partial results per reduction (1 leaves the loops as they are)">,
  ];
  let dependentDialects = ["::mlir::arith::ArithDialect", "::mlir::scf::SCFDialect"];
}

def ParallelizeLoopsPass : Pass<"mt-parallelize-loops", "mlir::ModuleOp"> {
  let summary = "task loops become scf.parallel, for the CPU's worker threads";
  let description = [{
    Runs on bufferized IR of the CPU. A loop marked `mt.parallel_tasks` (its
    iterations write disjoint elements, each with scratch of its own, and
    each is large: the tiled fused attention's loop over heads) whose
    carried buffers come back unchanged becomes an `scf.parallel`;
    async-parallel-for then hands its iterations to the MLIR async
    runtime's worker threads. Results do not change: no iteration reads
    what another writes, and each keeps its own order of sums. Other loops
    stay sequential: dispatching fine-grained loops to threads cost what the
    second core gained on this project's 2-core machine.

    ```mlir
    // before
    %r:3 = scf.for %n = %c0 to %c12 step %c1 iter_args(%o = %out, ...) -> (...) {
      ...
      scf.yield %o, ... : ...
    } {mt.parallel_tasks}
    // after
    scf.parallel (%n) = (%c0) to (%c12) step (%c1) { ... }
    ```
  }];
  let dependentDialects = ["::mlir::scf::SCFDialect"];
}

#endif // MT_CONVERSION_PASSES_TD
