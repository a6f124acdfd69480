// One mt.warp_mma in a kernel (bf16, and f16 in a second one), its fragments loaded per lane as vectors:
// the form the attention kernels of docs/attention-gpu-design.md take after
// mt-map-to-gpu. test/cuda/mma-sync.test lowers it with mtc's kernel passes.
module attributes {gpu.container_module} {
  gpu.module @mt_kernels {
    gpu.func @warp_mma(%a: memref<32x8xbf16>, %b: memref<32x4xbf16>, %c: memref<32x4xf32>) kernel {
      %lane = gpu.thread_id x
      %c0 = arith.constant 0 : index
      %av = vector.load %a[%lane, %c0] : memref<32x8xbf16>, vector<8xbf16>
      %bv = vector.load %b[%lane, %c0] : memref<32x4xbf16>, vector<4xbf16>
      %cv = vector.load %c[%lane, %c0] : memref<32x4xf32>, vector<4xf32>
      %d = mt.warp_mma %av, %bv, %cv {shape = array<i64: 16, 8, 16>} : vector<8xbf16>, vector<4xbf16>, vector<4xf32> -> vector<4xf32>
      vector.store %d, %c[%lane, %c0] : memref<32x4xf32>, vector<4xf32>
      gpu.return
    }
    gpu.func @warp_mma_f16(%a: memref<32x8xf16>, %b: memref<32x4xf16>, %c: memref<32x4xf32>) kernel {
      %lane = gpu.thread_id x
      %c0 = arith.constant 0 : index
      %av = vector.load %a[%lane, %c0] : memref<32x8xf16>, vector<8xf16>
      %bv = vector.load %b[%lane, %c0] : memref<32x4xf16>, vector<4xf16>
      %cv = vector.load %c[%lane, %c0] : memref<32x4xf32>, vector<4xf32>
      %d = mt.warp_mma %av, %bv, %cv {shape = array<i64: 16, 8, 16>} : vector<8xf16>, vector<4xf16>, vector<4xf32> -> vector<4xf32>
      vector.store %d, %c[%lane, %c0] : memref<32x4xf32>, vector<4xf32>
      gpu.return
    }
  }
}
