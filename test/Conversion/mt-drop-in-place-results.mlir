// RUN: mt-opt %s -split-input-file -verify-diagnostics --mt-drop-in-place-results | FileCheck %s

// A result bufferization already wrote in place: it is dropped, nothing
// else changes. Results not marked stay.
// CHECK-LABEL: func.func @in_place
// CHECK-SAME: (%[[ACC:.*]]: memref<4xf32>, %[[X:.*]]: memref<4xf32>) -> memref<4xf32>
// CHECK-NOT: memref.copy
// CHECK: return %[[X]] : memref<4xf32>
func.func @in_place(%acc: memref<4xf32>, %x: memref<4xf32>)
    -> (memref<4xf32> {mt.in_place_of = 0 : i64}, memref<4xf32>) {
  linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>],
                  iterator_types = ["parallel"]}
      ins(%x : memref<4xf32>) outs(%acc : memref<4xf32>) {
  ^bb0(%a: f32, %b: f32):
    %s = arith.addf %b, %a : f32
    linalg.yield %s : f32
  }
  return %acc, %x : memref<4xf32>, memref<4xf32>
}

// -----

// A result written elsewhere: copied into the argument before the return.
// CHECK-LABEL: func.func @copied
// CHECK-SAME: (%[[ACC:.*]]: memref<4xf32>)
// CHECK-NEXT: %[[T:.*]] = memref.alloc
// CHECK-NEXT: memref.copy %[[T]], %[[ACC]]
// CHECK-NEXT: return
// CHECK-NOT: memref
func.func @copied(%acc: memref<4xf32>) -> (memref<4xf32> {mt.in_place_of = 0 : i64}) {
  %t = memref.alloc() : memref<4xf32>
  return %t : memref<4xf32>
}

// -----

// An in-place update of one layer's slice leaves a copy of the slice onto
// itself: removed.
// CHECK-LABEL: func.func @slice_onto_itself
// CHECK-NOT: memref.copy
func.func @slice_onto_itself(%acc: memref<2x4xf32>) -> (memref<2x4xf32> {mt.in_place_of = 0 : i64}) {
  %a = memref.subview %acc[1, 0] [1, 4] [1, 1] : memref<2x4xf32> to memref<4xf32, strided<[1], offset: 4>>
  %b = memref.subview %acc[1, 0] [1, 4] [1, 1] : memref<2x4xf32> to memref<4xf32, strided<[1], offset: 4>>
  memref.copy %a, %b : memref<4xf32, strided<[1], offset: 4>> to memref<4xf32, strided<[1], offset: 4>>
  return %acc : memref<2x4xf32>
}

// -----

// A mark that names no argument of the result's type is an error.
func.func @bad_mark(%acc: memref<8xf32>) -> (memref<4xf32> {mt.in_place_of = 0 : i64}) {
  // expected-error @-1 {{mt-drop-in-place-results: result 0 is marked in place of argument 0, which does not exist or has another type}}
  %t = memref.alloc() : memref<4xf32>
  return %t : memref<4xf32>
}

// -----

// A buffer returned twice (a model whose metric is its loss): the second
// result is a copy, so each result has a buffer of its own.
// CHECK-LABEL: func.func @returned_twice
// CHECK-SAME: (%[[X:.*]]: memref<f32>) -> (memref<f32>, memref<f32>)
// CHECK: %[[COPY:.*]] = memref.alloc() : memref<f32>
// CHECK: memref.copy %[[X]], %[[COPY]] : memref<f32> to memref<f32>
// CHECK: return %[[X]], %[[COPY]] : memref<f32>, memref<f32>
func.func @returned_twice(%x: memref<f32>) -> (memref<f32>, memref<f32>) {
  return %x, %x : memref<f32>, memref<f32>
}

// -----

// A called function's in-place result: dropped from the callee and from
// every call, whose users read the buffer the call was given.
// CHECK-LABEL: func.func @calls
// CHECK-SAME: (%[[ACC:.*]]: memref<4xf32>)
// CHECK: call @update(%[[ACC]]) : (memref<4xf32>) -> ()
// CHECK-NEXT: call @update(%[[ACC]]) : (memref<4xf32>) -> ()
// CHECK-NEXT: return
// CHECK-LABEL: func.func private @update
// CHECK-SAME: (%{{.*}}: memref<4xf32>) {
func.func @calls(%acc: memref<4xf32>) -> (memref<4xf32> {mt.in_place_of = 0 : i64}) {
  %a = func.call @update(%acc) : (memref<4xf32>) -> memref<4xf32>
  %b = func.call @update(%a) : (memref<4xf32>) -> memref<4xf32>
  return %b : memref<4xf32>
}
func.func private @update(%acc: memref<4xf32>) -> (memref<4xf32> {mt.in_place_of = 0 : i64}) {
  linalg.copy ins(%acc : memref<4xf32>) outs(%acc : memref<4xf32>)
  return %acc : memref<4xf32>
}

// -----

// A temporary returned through a reshape: the function returns an
// allocation of the result's shape and computes into a view of it, so
// buffer-results-to-out-params makes that allocation the out-parameter
// instead of copying into it.
// CHECK-LABEL: func.func @reshaped
// CHECK: %[[WHOLE:.*]] = memref.alloc() : memref<2x4xf32>
// CHECK: %[[FLAT:.*]] = memref.collapse_shape %[[WHOLE]] {{\[\[}}0, 1]] : memref<2x4xf32> into memref<8xf32>
// CHECK: linalg.copy ins(%{{.*}} : memref<8xf32>) outs(%[[FLAT]] : memref<8xf32>)
// CHECK: return %[[WHOLE]] : memref<2x4xf32>
func.func @reshaped(%x: memref<8xf32>) -> memref<2x4xf32> {
  %t = memref.alloc() : memref<8xf32>
  linalg.copy ins(%x : memref<8xf32>) outs(%t : memref<8xf32>)
  %r = memref.expand_shape %t [[0, 1]] output_shape [2, 4] : memref<8xf32> into memref<2x4xf32>
  return %r : memref<2x4xf32>
}
