// RUN: mt-opt %s -split-input-file -mt-interleave-row-reductions=lanes=4 | FileCheck %s

// A row's maximum and sum of exponentials (cross-entropy): 10 columns are
// two blocks of 4 in four partial results each, combined pairwise, then
// the two leftover columns.
// CHECK-LABEL: func.func @row_sum
// CHECK: %[[LANES:.*]]:4 = scf.for %[[B:.*]] = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%[[A0:.*]] = %[[INIT:.*]], %[[A1:.*]] = %[[INIT]], %[[A2:.*]] = %[[INIT]], %[[A3:.*]] = %[[INIT]]) -> (f32, f32, f32, f32) {
// CHECK: %[[FIRST:.*]] = arith.muli %[[B]], %[[C4:.*]] : index
// CHECK: %[[J0:.*]] = arith.addi %[[FIRST]], %{{.*}} : index
// CHECK: tensor.extract %{{.*}}[%[[J0]]]
// CHECK: %[[N0:.*]] = arith.addf %[[A0]], %{{.*}} : f32
// CHECK: %[[N1:.*]] = arith.addf %[[A1]], %{{.*}} : f32
// CHECK: %[[N2:.*]] = arith.addf %[[A2]], %{{.*}} : f32
// CHECK: %[[N3:.*]] = arith.addf %[[A3]], %{{.*}} : f32
// CHECK: scf.yield %[[N0]], %[[N1]], %[[N2]], %[[N3]] : f32, f32, f32, f32
// CHECK: } {mt.along_row}
// CHECK: %[[S01:.*]] = arith.addf %[[LANES]]#0, %[[LANES]]#1 : f32
// CHECK: %[[S23:.*]] = arith.addf %[[LANES]]#2, %[[LANES]]#3 : f32
// CHECK: %[[S:.*]] = arith.addf %[[S01]], %[[S23]] : f32
// CHECK: %[[TAIL:.*]] = scf.for %{{.*}} = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%[[T:.*]] = %[[S]]) -> (f32) {
// CHECK: arith.addf %[[T]], %{{.*}} : f32
// CHECK: } {mt.along_row}
// CHECK: return %[[TAIL]] : f32
func.func @row_sum(%x: tensor<10xf32>) -> f32 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c10 = arith.constant 10 : index
  %zero = arith.constant 0.0 : f32
  %s = scf.for %j = %c0 to %c10 step %c1 iter_args(%a = %zero) -> (f32) {
    %e = tensor.extract %x[%j] : tensor<10xf32>
    %x2 = math.exp %e : f32
    %n = arith.addf %a, %x2 : f32
    scf.yield %n : f32
  } {mt.along_row}
  return %s : f32
}

// -----

// A row written as it is summed (residual add + layer norm): the row is
// threaded through the columns in order, only the sum goes into lanes.
// CHECK-LABEL: func.func @write_and_sum
// CHECK: %[[R:.*]]:5 = scf.for %{{.*}} iter_args(%[[ROW:.*]] = %{{.*}}, %[[A0:.*]] = %{{.*}}, %[[A1:.*]] = %{{.*}}, %[[A2:.*]] = %{{.*}}, %[[A3:.*]] = %{{.*}}) -> (tensor<8xf32>, f32, f32, f32, f32) {
// CHECK: %[[W0:.*]] = tensor.insert %{{.*}} into %[[ROW]]
// CHECK: %[[W1:.*]] = tensor.insert %{{.*}} into %[[W0]]
// CHECK: %[[W2:.*]] = tensor.insert %{{.*}} into %[[W1]]
// CHECK: %[[W3:.*]] = tensor.insert %{{.*}} into %[[W2]]
// CHECK: scf.yield %[[W3]], %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} : tensor<8xf32>, f32, f32, f32, f32
// CHECK: return %[[R]]#0, %{{.*}} : tensor<8xf32>, f32
func.func @write_and_sum(%x: tensor<8xf32>, %out: tensor<8xf32>) -> (tensor<8xf32>, f32) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %zero = arith.constant 0.0 : f32
  %r:2 = scf.for %j = %c0 to %c8 step %c1 iter_args(%row = %out, %s = %zero) -> (tensor<8xf32>, f32) {
    %e = tensor.extract %x[%j] : tensor<8xf32>
    %v = arith.addf %e, %e : f32
    %w = tensor.insert %v into %row[%j] : tensor<8xf32>
    %s2 = arith.addf %s, %v : f32
    scf.yield %w, %s2 : tensor<8xf32>, f32
  } {mt.along_row}
  return %r#0, %r#1 : tensor<8xf32>, f32
}

// -----

// A running sum written out (a prefix sum) is not a reduction: left as it is.
// CHECK-LABEL: func.func @prefix
// CHECK: scf.for %{{.*}} iter_args(%{{.*}} = %{{.*}}, %{{.*}} = %{{.*}}) -> (tensor<16xf32>, f32) {
// CHECK-NOT: scf.for
func.func @prefix(%x: tensor<16xf32>, %out: tensor<16xf32>) -> tensor<16xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  %zero = arith.constant 0.0 : f32
  %r:2 = scf.for %j = %c0 to %c16 step %c1 iter_args(%row = %out, %s = %zero) -> (tensor<16xf32>, f32) {
    %e = tensor.extract %x[%j] : tensor<16xf32>
    %s2 = arith.addf %s, %e : f32
    %w = tensor.insert %s2 into %row[%j] : tensor<16xf32>
    scf.yield %w, %s2 : tensor<16xf32>, f32
  } {mt.along_row}
  return %r#0 : tensor<16xf32>
}

// -----

// A loop that is not along a row, and one too narrow for two blocks, stay.
// CHECK-LABEL: func.func @untouched
// CHECK-COUNT-2: scf.for
// CHECK-NOT: scf.for
func.func @untouched(%x: tensor<16xf32>) -> (f32, f32) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c7 = arith.constant 7 : index
  %c16 = arith.constant 16 : index
  %zero = arith.constant 0.0 : f32
  %a = scf.for %j = %c0 to %c16 step %c1 iter_args(%acc = %zero) -> (f32) {
    %e = tensor.extract %x[%j] : tensor<16xf32>
    %n = arith.addf %acc, %e : f32
    scf.yield %n : f32
  }
  %b = scf.for %j = %c0 to %c7 step %c1 iter_args(%acc = %zero) -> (f32) {
    %e = tensor.extract %x[%j] : tensor<16xf32>
    %n = arith.maximumf %acc, %e : f32
    scf.yield %n : f32
  } {mt.along_row}
  return %a, %b : f32, f32
}
