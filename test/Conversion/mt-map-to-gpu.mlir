// RUN: mt-opt %s -split-input-file --mt-map-to-gpu | FileCheck %s

// An elementwise op: one dimension, tiles of 256 on blocks, elements on
// threads, guarded where the last tile runs past the end.
// CHECK-LABEL: func.func @transpose
// CHECK: scf.parallel
// CHECK: scf.parallel
// CHECK: scf.if
// CHECK: memref.store
// CHECK: {mapping = [#gpu.loop_dim_map<processor = thread_x
// CHECK: {mapping = [#gpu.loop_dim_map<processor = block_x
func.func @transpose(%a: memref<8x4xf32>, %b: memref<4x8xf32>) {
  linalg.transpose ins(%a : memref<8x4xf32>) outs(%b : memref<4x8xf32>) permutation = [1, 0]
  return
}

// -----

// A sum of everything: in order, on one thread.
// CHECK-LABEL: func.func @sum
// CHECK: gpu.launch
// CHECK: scf.for
// CHECK: scf.for
// CHECK: gpu.terminator
func.func @sum(%a: memref<8x4xf32>, %out: memref<f32>) {
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> ()>], iterator_types = ["reduction", "reduction"]}
    ins(%a : memref<8x4xf32>) outs(%out : memref<f32>) {
  ^bb0(%x: f32, %y: f32):
    %s = arith.addf %x, %y : f32
    linalg.yield %s : f32
  }
  return
}

// -----

// A row kernel's loop over rows: the rows run in parallel.
// CHECK-LABEL: func.func @rows
// CHECK-NOT: scf.for
// CHECK: scf.parallel
// CHECK: memref.store
// CHECK: thread_x
func.func @rows(%a: memref<8x4xf32>, %out: memref<8x4xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %r = scf.for %i = %c0 to %c8 step %c1 iter_args(%o = %out) -> (memref<8x4xf32>) {
    %v = memref.load %a[%i, %c0] : memref<8x4xf32>
    memref.store %v, %o[%i, %c0] : memref<8x4xf32>
    scf.yield %o : memref<8x4xf32>
  } {mt.independent_iterations}
  return
}
