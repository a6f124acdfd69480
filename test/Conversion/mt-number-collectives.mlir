// RUN: mt-opt %s -split-input-file -mt-number-collectives | FileCheck %s
// RUN: mt-opt %s -split-input-file -mt-number-collectives -mt-lower-to-linalg | FileCheck %s --check-prefix=CALLS
// RUN: not mt-opt %s -split-input-file -mt-lower-to-linalg 2>&1 | FileCheck %s --check-prefix=UNNUMBERED

// Collectives are numbered in the order the module lists them, across its
// functions; the lowering passes each number to the runtime as the call's
// last argument (its label, the same on every rank).
mt.mesh @mesh axes = ["tp"] shape = [2]
// CHECK-LABEL: func.func @first
// CHECK: %[[R:.*]] = mt.all_reduce %{{.*}} on @mesh axes = ["tp"] reduction = sum {mt.collective = 0 : i64}
// CHECK: %[[S:.*]] = mt.reduce_scatter %[[R]] on @mesh axes = ["tp"] dim = 0 reduction = sum {mt.collective = 1 : i64}
// CHECK-LABEL: func.func @second
// CHECK: mt.all_gather %{{.*}} on @mesh axes = ["tp"] dim = 0 {mt.collective = 2 : i64}
// (The printer names an i64 constant after its value: %c<n>_i64.)
// CALLS-LABEL: func.func @first
// CALLS: call @mt_rt_all_reduce({{.*}}, %c0_i64{{(_[0-9]+)?}}) :
// CALLS: call @mt_rt_reduce_scatter({{.*}}, %c1_i64{{(_[0-9]+)?}}) :
// CALLS-LABEL: func.func @second
// CALLS: call @mt_rt_all_gather({{.*}}, %c2_i64{{(_[0-9]+)?}}) :
func.func @first(%x: tensor<4xf32>) -> tensor<2xf32> {
  %r = mt.all_reduce %x on @mesh axes = ["tp"] reduction = sum : tensor<4xf32>
  %s = mt.reduce_scatter %r on @mesh axes = ["tp"] dim = 0 reduction = sum : tensor<4xf32> -> tensor<2xf32>
  return %s : tensor<2xf32>
}
func.func @second(%x: tensor<2xf32>) -> tensor<4xf32> {
  %g = mt.all_gather %x on @mesh axes = ["tp"] dim = 0 : tensor<2xf32> -> tensor<4xf32>
  return %g : tensor<4xf32>
}

// -----

// Lowered without numbers, a collective is an error that names the pass.
mt.mesh @mesh axes = ["tp"] shape = [2]
// UNNUMBERED: error: mt-lower-to-linalg: the collective has no `mt.collective` label; run mt-number-collectives first
func.func @unnumbered(%x: tensor<4xf32>) -> tensor<4xf32> {
  %r = mt.all_reduce %x on @mesh axes = ["tp"] reduction = sum : tensor<4xf32>
  return %r : tensor<4xf32>
}
