// RUN: mt-opt %s -split-input-file -mt-parallelize-loops | FileCheck %s
// A loop marked mt.parallel_tasks whose carried buffers come back unchanged
// (directly or through an inner loop that carries them in place) becomes
// an scf.parallel; its results are the buffers it was given.

// CHECK-LABEL: func.func @tasks
// CHECK-SAME: (%[[OUT:[^:]+]]: memref<8x4xf32>
// CHECK-NOT: scf.for %{{.*}} = %{{.*}} to %c8
// CHECK: scf.parallel (%[[N:.*]]) = (%{{.*}}) to (%{{.*}}) step (%{{.*}}) {
// CHECK: %[[ROW:.*]] = memref.subview %[[OUT]][%[[N]], 0] [1, 4] [1, 1]
// CHECK: scf.for %{{.*}} = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%{{.*}} = %[[OUT]])
// CHECK: scf.reduce
// CHECK: return %[[OUT]]
func.func @tasks(%out: memref<8x4xf32>, %v: f32) -> memref<8x4xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  %r = scf.for %n = %c0 to %c8 step %c1 iter_args(%o = %out) -> (memref<8x4xf32>) {
    %row = memref.subview %o[%n, 0] [1, 4] [1, 1] : memref<8x4xf32> to memref<4xf32, strided<[1], offset: ?>>
    %inner = scf.for %j = %c0 to %c4 step %c1 iter_args(%a = %o) -> (memref<8x4xf32>) {
      memref.store %v, %row[%j] : memref<4xf32, strided<[1], offset: ?>>
      scf.yield %a : memref<8x4xf32>
    }
    scf.yield %inner : memref<8x4xf32>
  } {mt.parallel_tasks}
  return %r : memref<8x4xf32>
}

// -----

// Without the mark, or with a carried value that is not the buffer it was
// given, the loop stays sequential.
// CHECK-LABEL: func.func @unmarked
// CHECK-NOT: scf.parallel
// CHECK: scf.for
// CHECK-LABEL: func.func @replaced
// CHECK-NOT: scf.parallel
// CHECK: %[[R:.*]] = scf.for
// CHECK: } {mt.parallel_tasks}
// CHECK: return %[[R]]
func.func @unmarked(%out: memref<8xf32>, %v: f32) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  scf.for %n = %c0 to %c8 step %c1 {
    memref.store %v, %out[%n] : memref<8xf32>
  }
  return
}
func.func @replaced(%out: memref<8xf32>, %other: memref<8xf32>, %v: f32) -> memref<8xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %r = scf.for %n = %c0 to %c8 step %c1 iter_args(%o = %out) -> (memref<8xf32>) {
    memref.store %v, %o[%n] : memref<8xf32>
    scf.yield %other : memref<8xf32>
  } {mt.parallel_tasks}
  return %r : memref<8xf32>
}
