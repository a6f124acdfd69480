// RUN: mt-opt %s -mt-overlap-collectives | FileCheck %s

mt.mesh @mesh axes = ["tp"] shape = [2]

// Megatron's backward of a sequence-parallel column-parallel linear: the
// input gathered again for the weight gradient starts above the input
// gradient's GEMM, which does not need it; the input gradient's
// reduce-scatter starts above the weight gradient's GEMM. Each result is
// waited for right before its first use.
// CHECK-LABEL: func.func @column_parallel_backward
// CHECK-SAME: (%[[DY:.*]]: tensor<2x8x32xf32>, %[[W:.*]]: tensor<32x16xf32>, %[[XS:.*]]: tensor<2x4x16xf32>)
// CHECK-NEXT: %[[G:.*]] = mt.all_gather %[[XS]] on @mesh axes = ["tp"] dim = 1 {mt.backward, mt.layer = 0 : i64}
// CHECK-NEXT: %[[DX:.*]] = mt.matmul %[[DY]], %[[W]] {mt.backward, mt.layer = 0 : i64}
// CHECK-NEXT: %[[X:.*]] = mt.collective_wait %[[G]] {mt.backward, mt.layer = 0 : i64} : tensor<2x8x16xf32>
// CHECK-NEXT: %[[X2:.*]] = mt.reshape %[[X]]
// CHECK-NEXT: %[[DY2:.*]] = mt.reshape %[[DY]]
// CHECK-NEXT: %[[S:.*]] = mt.reduce_scatter %[[DX]] on @mesh axes = ["tp"] dim = 1 reduction = sum {mt.backward, mt.layer = 0 : i64}
// CHECK-NEXT: %[[DW:.*]] = mt.matmul %[[DY2]], %[[X2]] {mt.backward, mt.layer = 0 : i64, transpose_lhs}
// CHECK-NEXT: %[[DXS:.*]] = mt.collective_wait %[[S]] {mt.backward, mt.layer = 0 : i64} : tensor<2x4x16xf32>
// CHECK-NEXT: return %[[DW]], %[[DXS]]
func.func @column_parallel_backward(%dy: tensor<2x8x32xf32>, %w: tensor<32x16xf32>, %xs: tensor<2x4x16xf32>)
    -> (tensor<32x16xf32>, tensor<2x4x16xf32>) {
  %dx = mt.matmul %dy, %w {mt.backward, mt.layer = 0 : i64} : tensor<2x8x32xf32>, tensor<32x16xf32> -> tensor<2x8x16xf32>
  %g = mt.all_gather %xs on @mesh axes = ["tp"] dim = 1 {mt.backward, mt.layer = 0 : i64} : tensor<2x4x16xf32> -> tensor<2x8x16xf32>
  %x2 = mt.reshape %g {mt.backward, mt.layer = 0 : i64} : tensor<2x8x16xf32> -> tensor<16x16xf32>
  %dy2 = mt.reshape %dy {mt.backward, mt.layer = 0 : i64} : tensor<2x8x32xf32> -> tensor<16x32xf32>
  %dw = mt.matmul %dy2, %x2 {mt.backward, mt.layer = 0 : i64, transpose_lhs} : tensor<16x32xf32>, tensor<16x16xf32> -> tensor<32x16xf32>
  %s = mt.reduce_scatter %dx on @mesh axes = ["tp"] dim = 1 reduction = sum {mt.backward, mt.layer = 0 : i64} : tensor<2x8x16xf32> -> tensor<2x4x16xf32>
  return %dw, %s : tensor<32x16xf32>, tensor<2x4x16xf32>
}

// The forward gathers for the GEMM that reads the result at once: nothing
// to hide behind, so the collective stays whole. A matmul the collective
// depends on is not crossed.
// CHECK-LABEL: func.func @nothing_to_overlap
// CHECK-NEXT: %[[G:.*]] = mt.all_gather
// CHECK-NEXT: %[[Y:.*]] = mt.matmul %[[G]]
// CHECK-NEXT: %[[S:.*]] = mt.reduce_scatter %[[Y]]
// CHECK-NEXT: return %[[S]]
// CHECK-NOT: mt.collective_wait
func.func @nothing_to_overlap(%xs: tensor<2x4x16xf32>, %w: tensor<16x32xf32>) -> tensor<2x4x32xf32> {
  %g = mt.all_gather %xs on @mesh axes = ["tp"] dim = 1 : tensor<2x4x16xf32> -> tensor<2x8x16xf32>
  %y = mt.matmul %g, %w : tensor<2x8x16xf32>, tensor<16x32xf32> -> tensor<2x8x32xf32>
  %s = mt.reduce_scatter %y on @mesh axes = ["tp"] dim = 1 reduction = sum : tensor<2x8x32xf32> -> tensor<2x4x32xf32>
  return %s : tensor<2x4x32xf32>
}

// A start never crosses another layer's ops or an ordered op (here an
// all-reduce), and a wait stops at the end of its layer group: a start and
// its wait are outlined together (mt-outline-layers).
// CHECK-LABEL: func.func @stays_in_its_group
// CHECK-SAME: (%[[DY:.*]]: tensor<2x8x32xf32>, %[[W:.*]]: tensor<32x16xf32>, %[[XS:.*]]: tensor<2x4x16xf32>)
// CHECK-NEXT: %[[DX:.*]] = mt.matmul %[[DY]], %[[W]] {mt.backward, mt.layer = 1 : i64}
// CHECK-NEXT: %[[R:.*]] = mt.all_reduce %[[DX]]
// CHECK-NEXT: %[[G:.*]] = mt.all_gather %[[XS]]
// CHECK-NEXT: %[[N:.*]] = mt.mul %[[R]], %[[R]] {mt.backward, mt.layer = 0 : i64}
// CHECK-NEXT: %[[X:.*]] = mt.collective_wait %[[G]] {mt.backward, mt.layer = 0 : i64}
// CHECK-NEXT: %[[A:.*]] = mt.add %[[X]], %[[X]] {mt.backward, mt.layer = 1 : i64}
func.func @stays_in_its_group(%dy: tensor<2x8x32xf32>, %w: tensor<32x16xf32>, %xs: tensor<2x4x16xf32>)
    -> (tensor<2x8x16xf32>, tensor<2x8x16xf32>) {
  %dx = mt.matmul %dy, %w {mt.backward, mt.layer = 1 : i64} : tensor<2x8x32xf32>, tensor<32x16xf32> -> tensor<2x8x16xf32>
  %r = mt.all_reduce %dx on @mesh axes = ["tp"] reduction = sum {mt.backward, mt.layer = 0 : i64} : tensor<2x8x16xf32>
  %g = mt.all_gather %xs on @mesh axes = ["tp"] dim = 1 {mt.backward, mt.layer = 0 : i64} : tensor<2x4x16xf32> -> tensor<2x8x16xf32>
  %n = mt.mul %r, %r {mt.backward, mt.layer = 0 : i64} : tensor<2x8x16xf32>, tensor<2x8x16xf32>
  %a = mt.add %g, %g {mt.backward, mt.layer = 1 : i64} : tensor<2x8x16xf32>, tensor<2x8x16xf32>
  return %n, %a : tensor<2x8x16xf32>, tensor<2x8x16xf32>
}

// Without sequence parallelism the input gradient is all-reduced: it runs
// beside the weight gradient's GEMM.
// CHECK-LABEL: func.func @all_reduce_backward
// CHECK-SAME: (%[[DY:.*]]: tensor<16x32xf32>, %[[W:.*]]: tensor<32x16xf32>, %[[X:.*]]: tensor<16x16xf32>)
// CHECK-NEXT: %[[DX:.*]] = mt.matmul %[[DY]], %[[W]]
// CHECK-NEXT: %[[R:.*]] = mt.all_reduce %[[DX]] on @mesh axes = ["tp"] reduction = sum {mt.backward}
// CHECK-NEXT: %[[DW:.*]] = mt.matmul %[[DY]], %[[X]] {mt.backward, transpose_lhs}
// CHECK-NEXT: %[[DXR:.*]] = mt.collective_wait %[[R]] {mt.backward} : tensor<16x16xf32>
// CHECK-NEXT: return %[[DW]], %[[DXR]]
func.func @all_reduce_backward(%dy: tensor<16x32xf32>, %w: tensor<32x16xf32>, %x: tensor<16x16xf32>)
    -> (tensor<32x16xf32>, tensor<16x16xf32>) {
  %dx = mt.matmul %dy, %w {mt.backward} : tensor<16x32xf32>, tensor<32x16xf32> -> tensor<16x16xf32>
  %dw = mt.matmul %dy, %x {mt.backward, transpose_lhs} : tensor<16x32xf32>, tensor<16x16xf32> -> tensor<32x16xf32>
  %r = mt.all_reduce %dx on @mesh axes = ["tp"] reduction = sum {mt.backward} : tensor<16x16xf32>
  return %dw, %r : tensor<32x16xf32>, tensor<16x16xf32>
}
