// One warp-wide tensor-core product, D = A x B + C (m16n8k16, bf16
// multiplicands, f32 accumulators), written as the attention kernels of
// docs/attention-gpu-design.md will emit it: the bf16 fragments packed in
// pairs into i32 registers (MLIR 22's nvgpu.mma.sync does not lower bf16).
// Each lane holds its own fragment elements; test/cuda/mma-sync.test.
module attributes {gpu.container_module} {
  gpu.module @mt_kernels {
    gpu.func @mma(%a: memref<32x4xi32>, %b: memref<32x2xi32>, %c: memref<32x4xf32>) kernel {
      %lane = gpu.thread_id x
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %c2 = arith.constant 2 : index
      %c3 = arith.constant 3 : index
      %a0 = memref.load %a[%lane, %c0] : memref<32x4xi32>
      %a1 = memref.load %a[%lane, %c1] : memref<32x4xi32>
      %a2 = memref.load %a[%lane, %c2] : memref<32x4xi32>
      %a3 = memref.load %a[%lane, %c3] : memref<32x4xi32>
      %b0 = memref.load %b[%lane, %c0] : memref<32x2xi32>
      %b1 = memref.load %b[%lane, %c1] : memref<32x2xi32>
      %c0v = memref.load %c[%lane, %c0] : memref<32x4xf32>
      %c1v = memref.load %c[%lane, %c1] : memref<32x4xf32>
      %c2v = memref.load %c[%lane, %c2] : memref<32x4xf32>
      %c3v = memref.load %c[%lane, %c3] : memref<32x4xf32>
      %d = nvvm.mma.sync A[%a0, %a1, %a2, %a3] B[%b0, %b1] C[%c0v, %c1v, %c2v, %c3v]
        {layoutA = #nvvm.mma_layout<row>, layoutB = #nvvm.mma_layout<col>,
         multiplicandAPtxType = #nvvm.mma_type<bf16>, multiplicandBPtxType = #nvvm.mma_type<bf16>,
         shape = #nvvm.shape<m = 16, n = 8, k = 16>}
        : (i32, i32, f32) -> !llvm.struct<(f32, f32, f32, f32)>
      %d0 = llvm.extractvalue %d[0] : !llvm.struct<(f32, f32, f32, f32)>
      %d1 = llvm.extractvalue %d[1] : !llvm.struct<(f32, f32, f32, f32)>
      %d2 = llvm.extractvalue %d[2] : !llvm.struct<(f32, f32, f32, f32)>
      %d3 = llvm.extractvalue %d[3] : !llvm.struct<(f32, f32, f32, f32)>
      memref.store %d0, %c[%lane, %c0] : memref<32x4xf32>
      memref.store %d1, %c[%lane, %c1] : memref<32x4xf32>
      memref.store %d2, %c[%lane, %c2] : memref<32x4xf32>
      memref.store %d3, %c[%lane, %c3] : memref<32x4xf32>
      gpu.return
    }
  }
}
