//===- GpuPasses.td - the passes that map and lower GPU kernels -*- tablegen -*-===//
//
// mt-map-to-gpu and the passes around it: what runs on the GPU, how the
// kernels are outlined, checked on the CPU (emulation) and lowered to NVVM.
// Included by Passes.td (one pass registry).
//
//===----------------------------------------------------------------------===//
#ifndef MT_CONVERSION_GPUPASSES_TD
#define MT_CONVERSION_GPUPASSES_TD

include "mlir/Pass/PassBase.td"

def MapToGPUPass : Pass<"mt-map-to-gpu", "mlir::ModuleOp"> {
  let summary = "turns a bufferized function's loop nests into GPU-mappable parallel loops";
  let description = [{
    Runs on bufferized IR after mt-convert-contractions-to-blas (GEMMs are
    library calls and stay on the host). Every other loop nest at the top of
    a function becomes device work:
    - an elementwise `linalg.generic` (every loop parallel, an arith/math
      body, static layouts) becomes an `scf.parallel` over chunks of
      `vector-bytes` bytes of its widest element: each thread reads its
      chunk of every operand with one aligned `vector.load` (one 16-byte
      access; an operand constant along the innermost loop is loaded once
      and broadcast), computes on vectors and writes with one
      `vector.store`; where the innermost size or a layout does not allow
      aligned chunks, it is handled as the other linalg ops;
    - a linalg op (generic, fill, transpose, copy) and a `memref.copy`
      become an `scf.parallel` over their parallel dimensions (reductions
      stay sequential inside each iteration); a copy between two views of
      the same elements (equal static layouts over one buffer) is dropped;
    - an `scf.for` marked `mt.independent_iterations` (a row kernel's loop
      over rows) becomes an `scf.parallel` over the rows; when its body
      walks the row with loops marked `mt.along_row` (softmax, norms,
      cross-entropy, the embedding gradient), each row goes to one warp
      (`warp-rows-per-block` rows per block): lane l takes columns l,
      l + 32, ... so neighbouring lanes read neighbouring elements, and the
      sums and maxima along the row are combined with `gpu.subgroup_reduce`
      (a fixed order: the result does not change from run to run). Where
      the row's width and layouts allow it and the loop only computes on
      what it loads at its column, lane l takes `vector-bytes` of
      neighbouring columns at a time instead (W columns from W l, then
      32 W further: aligned `vector.load`/`vector.store`, the arithmetic on
      vectors, sums and maxima kept per element and combined in order
      before the warp combines the lanes);
    - a column reduction (a `linalg.generic` whose innermost loop is
      parallel and which reduces over others: a bias gradient's partial sums
      over blocks of rows, then the sum of the partials) becomes an
      `scf.parallel` over chunks of `vector-bytes` of output columns: each
      thread keeps its sums in a vector, walks the reduction loops in the
      op's order (so every element adds in the same order as before), loads
      8 rows before adding them, and stores once. The `linalg.fill` that
      initialised the output just before is folded into the sums' start,
      and the elementwise ops that follow and read the result at the same
      element (a rounding to bf16 and back, the add into the gradient
      accumulator) are computed on the registers; a buffer of the chain is
      stored only where something else reads it (`column-reductions=false`:
      the loop-nest path below);
    - a sum of a whole buffer into a 0-d f32 one (the leaf of a levelled
      sum) runs on one warp: lane l adds elements l, l + 32, ... in order,
      `gpu.subgroup_reduce` combines the lanes, lane 0 adds the total to
      the output (with `warp-rows-per-block` 0: one thread);
    - any other loop nest (a sum over rows) runs as it is in a
      single-thread `gpu.launch`, so it stays correct and in order.
    Independent kernels then share launches (`sibling-kernels`): a later
    one-dimensional kernel that touches no buffer the first one, or any op
    between them, writes (and writes none they read) joins the first, its
    body after the first's, each body guarded by its own size; byte ranges
    of one arena are told apart by their views' offsets, and two function
    arguments are distinct when both are noalias or name different buffers
    of the plan. A layer norm's weight and bias gradients, the optimizer's
    per-parameter updates and norms become a few launches.
    Each top-level `scf.parallel` is collapsed to one dimension and tiled by
    `block-size`, so `gpu-map-parallel-loops` maps the tiles to blocks and
    the elements of a tile to threads, and `convert-parallel-loops-to-gpu`
    makes the launches.

    Buffers live in device memory, so nothing left on the host reads or
    writes one: a scalar load of a buffer the function never writes (a
    dropout seed, the optimizer's hyperparameters), and arithmetic on it, is
    repeated inside every kernel that uses it; every other run of top-level
    work on buffers (a loss summed in order, a scalar stored) becomes one
    single-thread kernel, and a scalar it computes for later kernels is
    passed through a 0-d buffer (`memref.alloc`, so run the pass before
    mt-plan-buffers to place it in the arena); loads of constant scalar
    globals fold to constants. Where a library call would need a value the
    GPU computes, the pass fails and names the op.

    ```mlir
    // before
    linalg.generic {...} ins(%a : memref<1000xf32>) outs(%b : memref<1000xf32>) {...}
    // after
    scf.parallel (%i) = (%c0) to (%c1000) step (%c256) {
      scf.parallel (%j) = (%c0) to (%n) step (%c1) { ... } {mapping = [#gpu.loop_dim_map<...thread_x...>]}
    } {mapping = [#gpu.loop_dim_map<...block_x...>]}
    ```
  }];
  let options = [
    Option<"blockSize", "block-size", "int64_t", "256", "threads per block">,
    Option<"warpRowsPerBlock", "warp-rows-per-block", "int64_t", "4",
           "rows per block of a row kernel run a warp per row (0: a thread per row)">,
    Option<"vectorBytes", "vector-bytes", "int64_t", "16",
           "bytes an elementwise kernel's thread, or a row kernel's lane, loads per operand at once (0: one element)">,
    Option<"columnReductions", "column-reductions", "bool", "true",
           "sums down columns (bias gradients) as one vector kernel each, with the fill before and the elementwise ops after folded in (false: the loop-nest path)">,
    Option<"rowRegisters", "row-registers", "int64_t", "8",
           "a warp-per-row kernel whose lane takes at most this many chunks of a row loads each once, its passes along the row unrolled (0: a loop per pass)">,
    Option<"siblingKernels", "sibling-kernels", "bool", "true",
           "independent kernels share a launch, each body guarded by its own size (false: a launch each)">
  ];
  let dependentDialects = ["::mlir::gpu::GPUDialect", "::mlir::scf::SCFDialect",
                           "::mlir::memref::MemRefDialect", "::mlir::arith::ArithDialect",
                           "::mlir::affine::AffineDialect", "::mlir::vector::VectorDialect",
                           "::mlir::linalg::LinalgDialect"];
}

def MarkDistinctArgumentsPass : Pass<"mt-mark-distinct-arguments", "mlir::ModuleOp"> {
  let summary = "marks a private function's buffer arguments noalias where every call passes distinct buffers";
  let description = [{
    Runs on bufferized IR, after buffer-results-to-out-params and before
    mt-map-to-gpu. An outlined layer's inputs are marked `llvm.noalias`
    when it is made (mt-outline-layers), but the out-parameters its results
    became are not, so mt-map-to-gpu must assume that two kernels writing
    two of them may touch the same bytes and launches them one after the
    other (the three head splits of a layer's query, key and value). Here a
    memref argument of a private function is marked `llvm.noalias` when at
    every call of the function the buffer passed for it cannot overlap the
    buffer passed for any other argument (distinct allocations, distinct
    plan buffers, disjoint byte ranges of one: BufferRanges.h). A function
    used other than by direct calls is left alone.

    ```mlir
    // before
    func.func private @layer(%x: memref<4xf32> {llvm.noalias}, %out: memref<4xf32>)
    func.func @step(%x: memref<4xf32>) {
      %a = memref.alloc() : memref<4xf32>
      call @layer(%x, %a) : (memref<4xf32>, memref<4xf32>) -> ()
    }
    // after
    func.func private @layer(%x: memref<4xf32> {llvm.noalias}, %out: memref<4xf32> {llvm.noalias})
    ```
  }];
  let dependentDialects = ["::mlir::LLVM::LLVMDialect"];
}

def MergeKernelModulesPass : Pass<"mt-merge-kernel-modules", "mlir::ModuleOp"> {
  let summary = "moves every outlined kernel into one gpu.module";
  let description = [{
    `gpu-kernel-outlining` puts each kernel in a `gpu.module` of its own: a
    training step has hundreds, and each would be compiled, assembled and
    loaded by the driver on its own. This pass moves every kernel into one
    module (`module-name`), renaming a kernel whose name is taken, and points
    each `gpu.launch_func` at its kernel's new place: one PTX file per chip,
    one ptxas run, one module load.

    ```mlir
    // before
    gpu.module @f_kernel { gpu.func @f_kernel(...) kernel {...} }
    gpu.module @f_kernel_0 { gpu.func @f_kernel(...) kernel {...} }
    gpu.launch_func @f_kernel_0::@f_kernel ...
    // after
    gpu.module @mt_kernels {
      gpu.func @f_kernel(...) kernel {...}
      gpu.func @f_kernel_1(...) kernel {...}
    }
    gpu.launch_func @mt_kernels::@f_kernel_1 ...
    ```
  }];
  let options = [
    Option<"moduleName", "module-name", "std::string", "\"mt_kernels\"",
           "the name of the one gpu.module">
  ];
  let dependentDialects = ["::mlir::gpu::GPUDialect"];
}

def PromoteWorkgroupBuffersPass
    : Pass<"mt-promote-workgroup-buffers", "mlir::gpu::GPUModuleOp"> {
  let summary = "turns a kernel's workgroup allocas into workgroup attributions";
  let description = [{
    A block-wide buffer is written as a `memref.alloca` in workgroup memory at
    the top of the block's work, which `mt-emulate-gpu-kernels` runs on the
    CPU as one host buffer per block. Outlined into a `gpu.func`, that alloca
    would lower to a per-thread stack slot addressed as shared memory:
    NVVM makes `.shared` variables only of workgroup attributions. This pass
    moves each such alloca of a kernel's top level into a workgroup
    attribution, aligned to 16 bytes (vector accesses), and rejects one
    inside a loop or branch or of a dynamic shape.

    ```mlir
    // before
    gpu.func @k(...) kernel {
      %tile = memref.alloca() : memref<64x64xbf16, #gpu.address_space<workgroup>>
      ...
    }
    // after
    gpu.func @k(...) workgroup(%tile : memref<64x64xbf16, #gpu.address_space<workgroup>>
                               {llvm.align = 16 : i64}) kernel {
      ...
    }
    ```
  }];
  let dependentDialects = ["::mlir::LLVM::LLVMDialect"];
}

def EmulateGpuKernelsPass : Pass<"mt-emulate-gpu-kernels", "mlir::ModuleOp"> {
  let summary = "makes mt-map-to-gpu's kernels runnable on the CPU, adding as the GPU adds";
  let description = [{
    For checking GPU kernels without a GPU (`mtc --emulate-gpu-kernels`):
    after mt-map-to-gpu, this pass turns its output into CPU code that
    computes exactly what the kernels compute. Thread loops stay loops
    (the CPU runs the threads one after another); single-thread
    `gpu.launch`es are inlined; each warp of a row kernel runs its 32
    lanes one after another in phases cut at each `gpu.subgroup_reduce`,
    and the reduction is the GPU's butterfly: lane l combines its value
    with lane l ^ 1's, then l ^ 2's, ..., l ^ 16's, its own first (as
    mt-lower-warp-reductions' shuffles do). What a lane computes in one
    phase and uses in a later one waits in a 32-element stack buffer. A
    warp loop holding a `gpu.barrier` runs its block's warps together: the
    phases go over every thread of the block (the barrier a phase cut),
    collectives act on each warp's 32 slots, and the block's workgroup
    allocas (made outside the threads) become host buffers. The
    vector loads, the lanes' columns and every sum keep the GPU's order,
    so a plan built this way trains as the CUDA plan would, up to the
    library GEMMs (OpenBLAS here, cuBLAS there).

    ```mlir
    // before (a warp: 32 lanes, a row's sum)
    scf.parallel (%w, %l) = (%c0, %c0) to (%c4, %c32) step (%c1, %c1) {
      %p = scf.for %j = %l to %c64 step %c32 iter_args(%s = %zero) -> (f32) {...}
      %t = gpu.subgroup_reduce add %p uniform : (f32) -> f32
      ...
    }
    // after
    scf.for %w = %c0 to %c4 step %c1 {
      scf.for %l = %c0 to %c32 step %c1 {
        %p = scf.for ...
        memref.store %p, %lanes[%l] : memref<32xf32>
      }
      scf.for %l = %c0 to %c32 step %c1 {   // offsets 1, 2, 4, 8, 16
        %own = memref.load %lanes[%l]
        %theirs = memref.load %lanes[%l ^ 1]
        memref.store (%own + %theirs), %next[%l]
      }
      ...
    }
    ```
  }];
  let dependentDialects = ["::mlir::memref::MemRefDialect", "::mlir::scf::SCFDialect",
                           "::mlir::arith::ArithDialect"];
}

def DescribeKernelsPass : Pass<"mt-describe-kernels", "mlir::ModuleOp"> {
  let summary = "names each kernel after the op it computes and counts the bytes it must move";
  let description = [{
    Outlined kernels are named after the function they came from
    (`train_step_kernel_17`), which says nothing in a profile. mt-lower-to-linalg
    gives every op it creates the name of the mt op it lowers (a `NameLoc`);
    this pass renames each kernel of the module's `gpu.module`s after that
    name (`layer_norm_grad`, then `layer_norm_grad_1`, ...; kernels without one
    keep theirs) and points each `gpu.launch_func` at the new name.

    It also records, on the module, what each kernel must move at the least:
    `mt.kernels = {name = {bytes = N}}`, the size of every buffer argument
    the kernel reads plus the size of every one it writes (read and written:
    twice). A buffer the kernel reaches only at indices computed from loaded
    values (a gather or scatter, like the embedding's table) is left out of the sum,
    since how much of it moves depends on the data, and the kernel is marked
    `indirect`. `mt-run --profile` divides these bytes by the kernel's time.

    ```mlir
    // before
    gpu.module @mt_kernels {
      gpu.func @train_step_kernel_3(%x: memref<64x128xf32>, %y: memref<64x128xf32>) kernel
          // reads %x, writes %y; loc("softmax"(...))
    }
    // after
    module attributes {mt.kernels = {softmax = {bytes = 65536 : i64}}} {
      gpu.module @mt_kernels {
        gpu.func @softmax(%x: memref<64x128xf32>, %y: memref<64x128xf32>) kernel
      }
    }
    ```
  }];
  let dependentDialects = ["::mlir::gpu::GPUDialect"];
}

def LowerWarpReductionsPass : Pass<"mt-lower-warp-reductions", "mlir::gpu::GPUModuleOp"> {
  let summary = "lowers a kernel's warp sums and maxima to shuffles";
  let description = [{
    `convert-gpu-to-nvvm` lowers only integer `gpu.subgroup_reduce` (to
    `redux.sync`); the f32 sums and maxima of a row kernel that runs a warp
    per row (`mt-map-to-gpu`) become here a butterfly of `gpu.shuffle xor`
    with offsets 1, 2, ..., `warp-size` / 2. Every lane combines the same
    values in the same order, so each lane holds the same total, and the
    total is the same from run to run. A reduction that cannot be lowered
    this way (one not marked `uniform`, a vector, a 64-bit element)
    is an error naming it, not a kernel that fails to compile later.

    ```mlir
    // before
    %t = gpu.subgroup_reduce add %p uniform : (f32) -> f32
    // after
    %s1, %v1 = gpu.shuffle xor %p, %c1_i32, %c32_i32 : f32
    %a1 = arith.addf %p, %s1 : f32
    %s2, %v2 = gpu.shuffle xor %a1, %c2_i32, %c32_i32 : f32
    ...
    ```
  }];
  let options = [
    Option<"warpSize", "warp-size", "unsigned", "32", "lanes of a warp">
  ];
  let dependentDialects = ["::mlir::gpu::GPUDialect", "::mlir::arith::ArithDialect"];
}

def LowerWarpMmaPass : Pass<"mt-lower-warp-mma", "mlir::gpu::GPUModuleOp"> {
  let summary = "lowers a kernel's warp-wide tensor-core products to NVVM's mma.sync";
  let description = [{
    Each `mt.warp_mma` (m16n8k16, bf16 or f16 fragments, f32 accumulators)
    becomes one `nvvm.mma.sync` with A row-major and B column-major: the
    16-bit fragments are bitcast to pairs packed in i32 registers (four for
    A, two for B), the accumulators taken apart into four f32 values, and
    the result struct put back together as `vector<4xf32>`. MLIR's
    `nvgpu.mma.sync` is not used because it does not lower bf16. The
    fragment layouts are the op's (docs/spec.md); the emulator implements
    the same ones.

    ```mlir
    // before
    %d = mt.warp_mma %a, %b, %c {shape = array<i64: 16, 8, 16>}
        : vector<8xbf16>, vector<4xbf16>, vector<4xf32> -> vector<4xf32>
    // after
    %a32 = vector.bitcast %a : vector<8xbf16> to vector<4xi32>
    ...
    %r = nvvm.mma.sync A[%a0, %a1, %a2, %a3] B[%b0, %b1] C[%c0, %c1, %c2, %c3]
        {layoutA = #nvvm.mma_layout<row>, layoutB = #nvvm.mma_layout<col>, ...}
        : (i32, i32, f32) -> !llvm.struct<(f32, f32, f32, f32)>
    ```
  }];
  let dependentDialects = ["::mlir::NVVM::NVVMDialect", "::mlir::LLVM::LLVMDialect",
                           "::mlir::vector::VectorDialect"];
}

#endif // MT_CONVERSION_GPUPASSES_TD
