// RUN: mt-opt %s -split-input-file --mt-map-to-gpu | FileCheck %s
// RUN: mt-opt %s -split-input-file --mt-map-to-gpu=sibling-kernels=false | FileCheck %s --check-prefix=APART

// A bias gradient's second level (the sum of its partial sums, added into
// the gradient) moves down past a GEMM that touches neither of its buffers
// into the next kernel's launch (which reads the GEMM's product, so it
// cannot move up instead), its body first, guarded by its size.
// CHECK-LABEL: func.func @sum_joins_later_kernel
// CHECK-SAME: (%[[P:[a-z0-9_]+]]: memref<4x16xf32> {llvm.noalias}, %[[G:[a-z0-9_]+]]: memref<16xf32> {llvm.noalias}, %[[A:[a-z0-9_]+]]: memref<8x64xf32> {llvm.noalias}, %[[C:[a-z0-9_]+]]: memref<8x64xf32> {llvm.noalias}, %[[Y:[a-z0-9_]+]]: memref<8x64xf32> {llvm.noalias})
// CHECK: call @mt_blas_gemm_f32
// CHECK: scf.parallel
// CHECK: scf.if
// CHECK: vector.load %[[P]]
// CHECK: vector.store %{{.*}}, %[[G]]
// CHECK: vector.store %{{.*}}, %[[Y]]
// CHECK-NOT: scf.parallel
// CHECK: return
// APART-LABEL: func.func @sum_joins_later_kernel
// APART: scf.parallel
// APART: call @mt_blas_gemm_f32
// APART: scf.parallel
func.func @sum_joins_later_kernel(%p: memref<4x16xf32> {llvm.noalias}, %g: memref<16xf32> {llvm.noalias}, %a: memref<8x64xf32> {llvm.noalias}, %c: memref<8x64xf32> {llvm.noalias}, %y: memref<8x64xf32> {llvm.noalias}) {
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>], iterator_types = ["reduction", "parallel"]}
    ins(%p : memref<4x16xf32>) outs(%g : memref<16xf32>) {
  ^bb0(%v: f32, %s: f32):
    %t = arith.addf %s, %v : f32
    linalg.yield %t : f32
  }
  %pa = memref.extract_aligned_pointer_as_index %a : memref<8x64xf32> -> index
  %pc = memref.extract_aligned_pointer_as_index %c : memref<8x64xf32> -> index
  %ia = arith.index_cast %pa : index to i64
  %ic = arith.index_cast %pc : index to i64
  %c8 = arith.constant 8 : i64
  %c64 = arith.constant 64 : i64
  call @mt_blas_gemm_f32(%c8, %c64, %ia, %c64, %ic, %c64) : (i64, i64, i64, i64, i64, i64) -> ()
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
    ins(%c : memref<8x64xf32>) outs(%y : memref<8x64xf32>) {
  ^bb0(%v: f32, %o: f32):
    %n = arith.negf %v : f32
    linalg.yield %n : f32
  }
  return
}
func.func private @mt_blas_gemm_f32(i64, i64, i64, i64, i64, i64)

// -----

// The GEMM writes the buffer the sum reads: the sum stays where it is (and
// the later kernel, which reads what the GEMM touches, stays after it).
// CHECK-LABEL: func.func @gemm_writes_partials
// CHECK: scf.parallel
// CHECK: call @mt_blas_gemm_f32
// CHECK: scf.parallel
func.func @gemm_writes_partials(%p: memref<4x16xf32> {llvm.noalias}, %g: memref<16xf32> {llvm.noalias}, %a: memref<8x64xf32> {llvm.noalias}, %y: memref<8x64xf32> {llvm.noalias}) {
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>], iterator_types = ["reduction", "parallel"]}
    ins(%p : memref<4x16xf32>) outs(%g : memref<16xf32>) {
  ^bb0(%v: f32, %s: f32):
    %t = arith.addf %s, %v : f32
    linalg.yield %t : f32
  }
  %pa = memref.extract_aligned_pointer_as_index %a : memref<8x64xf32> -> index
  %pp = memref.extract_aligned_pointer_as_index %p : memref<4x16xf32> -> index
  %ia = arith.index_cast %pa : index to i64
  %ip = arith.index_cast %pp : index to i64
  %c8 = arith.constant 8 : i64
  %c64 = arith.constant 64 : i64
  call @mt_blas_gemm_f32(%c8, %c64, %ia, %c64, %ip, %c64) : (i64, i64, i64, i64, i64, i64) -> ()
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
    ins(%a : memref<8x64xf32>) outs(%y : memref<8x64xf32>) {
  ^bb0(%v: f32, %o: f32):
    %n = arith.negf %v : f32
    linalg.yield %n : f32
  }
  return
}
func.func private @mt_blas_gemm_f32(i64, i64, i64, i64, i64, i64)

// -----

// Any other call may touch anything: nothing moves past it.
// CHECK-LABEL: func.func @unknown_call
// CHECK: scf.parallel
// CHECK: call @opaque
// CHECK: scf.parallel
func.func @unknown_call(%p: memref<4x16xf32> {llvm.noalias}, %g: memref<16xf32> {llvm.noalias}, %y: memref<512xf32> {llvm.noalias}, %x: memref<512xf32> {llvm.noalias}) {
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>], iterator_types = ["reduction", "parallel"]}
    ins(%p : memref<4x16xf32>) outs(%g : memref<16xf32>) {
  ^bb0(%v: f32, %s: f32):
    %t = arith.addf %s, %v : f32
    linalg.yield %t : f32
  }
  %c8 = arith.constant 8 : i64
  call @opaque(%c8) : (i64) -> ()
  linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]}
    ins(%x : memref<512xf32>) outs(%y : memref<512xf32>) {
  ^bb0(%v: f32, %o: f32):
    %n = arith.negf %v : f32
    linalg.yield %n : f32
  }
  return
}
func.func private @opaque(i64)

// -----

// A copy of a slice onto itself (a concat's piece bufferization wrote in
// place) is dropped; a copy between different columns stays a kernel.
// CHECK-LABEL: func.func @self_copy_dropped
// CHECK-NOT: memref.copy
// CHECK-COUNT-1: } {mapping = [#gpu.loop_dim_map<processor = block_x
// CHECK-NOT: mapping
// CHECK: return
func.func @self_copy_dropped(%qk: memref<4x8xf32> {llvm.noalias}) {
  %left = memref.subview %qk[0, 0] [4, 4] [1, 1] : memref<4x8xf32> to memref<4x4xf32, strided<[8, 1]>>
  %e = memref.expand_shape %left [[0], [1, 2]] output_shape [4, 2, 2] : memref<4x4xf32, strided<[8, 1]>> into memref<4x2x2xf32, strided<[8, 2, 1]>>
  %c = memref.collapse_shape %e [[0], [1, 2]] : memref<4x2x2xf32, strided<[8, 2, 1]>> into memref<4x4xf32, strided<[8, 1]>>
  %again = memref.subview %qk[0, 0] [4, 4] [1, 1] : memref<4x8xf32> to memref<4x4xf32, strided<[8, 1]>>
  memref.copy %c, %again : memref<4x4xf32, strided<[8, 1]>> to memref<4x4xf32, strided<[8, 1]>>
  %right = memref.subview %qk[0, 4] [4, 4] [1, 1] : memref<4x8xf32> to memref<4x4xf32, strided<[8, 1], offset: 4>>
  %other = memref.subview %qk[0, 2] [4, 4] [1, 1] : memref<4x8xf32> to memref<4x4xf32, strided<[8, 1], offset: 2>>
  memref.copy %other, %right : memref<4x4xf32, strided<[8, 1], offset: 2>> to memref<4x4xf32, strided<[8, 1], offset: 4>>
  return
}
