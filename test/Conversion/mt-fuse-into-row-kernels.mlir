// RUN: mt-opt %s -split-input-file --mt-fuse-into-row-kernels | FileCheck %s

// A consumer reading the row kernel's result through the reshape of its
// leading dimensions joins the last pass along the row: its body runs on the
// stored value, its position from the row split into the leading indices.
// CHECK-LABEL: func.func @consumer_joins_last_pass
// CHECK-SAME: (%[[X:.*]]: tensor<6x8xf32>, %[[S:.*]]: f32)
// CHECK: tensor.empty() : tensor<6x8xf32>
// CHECK: %[[E2:[a-z0-9_]+]] = tensor.empty() : tensor<6x8xf32>
// CHECK: %[[ROWS:[a-z0-9_]+]]:2 = scf.for %[[R:[a-z0-9_]+]] = {{.*}} iter_args(%[[O:[a-z0-9_]+]] = %{{.*}}, %[[O2:[a-z0-9_]+]] = %[[E2]])
// CHECK: %[[PASS:[a-z0-9_]+]]:2 = scf.for %[[J:[a-z0-9_]+]] = {{.*}} iter_args(%[[A:[a-z0-9_]+]] = %[[O]], %[[A2:[a-z0-9_]+]] = %[[O2]])
// CHECK: %[[V:.*]] = math.exp
// CHECK: %[[STORED:.*]] = tensor.insert %[[V]] into %[[A]][%[[R]], %[[J]]]
// CHECK: %[[C3:.*]] = arith.constant 3 : index
// CHECK: %[[I1:.*]] = arith.remui %[[R]], %[[C3]]
// CHECK: %[[I0:.*]] = arith.divui %[[R]], %[[C3]]
// CHECK: arith.index_cast %[[I0]]
// CHECK: arith.index_cast %[[I1]]
// CHECK: arith.index_cast %[[J]]
// CHECK: %[[W:.*]] = arith.mulf %[[V]], %[[S]]
// CHECK: %[[STORED2:.*]] = tensor.insert %{{.*}} into %[[A2]][%[[R]], %[[J]]]
// CHECK: scf.yield %[[STORED]], %[[STORED2]]
// CHECK: } {mt.along_row}
// CHECK: scf.yield %[[PASS]]#0, %[[PASS]]#1
// CHECK: } {mt.independent_iterations}
// CHECK: %[[OUT:.*]] = tensor.expand_shape %[[ROWS]]#1 {{\[\[}}0, 1], [2]] output_shape [2, 3, 8]
// CHECK-NOT: linalg.generic
// CHECK: return %[[ROWS]]#0, %[[OUT]]
func.func @consumer_joins_last_pass(%x: tensor<6x8xf32>, %s: f32) -> (tensor<6x8xf32>, tensor<2x3x8xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c6 = arith.constant 6 : index
  %c8 = arith.constant 8 : index
  %e = tensor.empty() : tensor<6x8xf32>
  %p = scf.for %r = %c0 to %c6 step %c1 iter_args(%o = %e) -> (tensor<6x8xf32>) {
    %row = scf.for %j = %c0 to %c8 step %c1 iter_args(%a = %o) -> (tensor<6x8xf32>) {
      %v0 = tensor.extract %x[%r, %j] : tensor<6x8xf32>
      %v = math.exp %v0 : f32
      %n = tensor.insert %v into %a[%r, %j] : tensor<6x8xf32>
      scf.yield %n : tensor<6x8xf32>
    } {mt.along_row}
    scf.yield %row : tensor<6x8xf32>
  } {mt.independent_iterations}
  %p3 = tensor.expand_shape %p [[0, 1], [2]] output_shape [2, 3, 8] : tensor<6x8xf32> into tensor<2x3x8xf32>
  %e3 = tensor.empty() : tensor<2x3x8xf32>
  %d = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%p3 : tensor<2x3x8xf32>) outs(%e3 : tensor<2x3x8xf32>) {
  ^bb0(%in: f32, %out: f32):
    %i0 = linalg.index 0 : index
    %i1 = linalg.index 1 : index
    %i2 = linalg.index 2 : index
    %a0 = arith.index_cast %i0 : index to i64
    %a1 = arith.index_cast %i1 : index to i64
    %a2 = arith.index_cast %i2 : index to i64
    %k0 = arith.addi %a0, %a1 : i64
    %k = arith.addi %k0, %a2 : i64
    %c5 = arith.constant 5 : i64
    %keep = arith.cmpi ult, %k, %c5 : i64
    %w = arith.mulf %in, %s : f32
    %zero = arith.constant 0.0 : f32
    %y = arith.select %keep, %w, %zero : f32
    linalg.yield %y : f32
  } -> tensor<2x3x8xf32>
  return %p, %d : tensor<6x8xf32>, tensor<2x3x8xf32>
}

// -----

// A producer whose only reader is the row kernel is computed at each of its
// reads (two passes here), from its own inputs at the same element.
// CHECK-LABEL: func.func @producer_into_reads
// CHECK-SAME: (%[[G:.*]]: tensor<2x3x8xf32>, %[[Y:.*]]: tensor<6x8xf32>)
// CHECK-NOT: linalg.generic
// CHECK: scf.for %[[R:[a-z0-9_]+]] = {{.*}} iter_args
// CHECK: %[[C3:.*]] = arith.constant 3 : index
// CHECK: %[[I1:.*]] = arith.remui %[[R]], %[[C3]]
// CHECK: %[[I0:.*]] = arith.divui %[[R]], %[[C3]]
// CHECK: scf.for %[[J:[a-z0-9_]+]] =
// CHECK: %[[GV:.*]] = tensor.extract %[[G]][%[[I0]], %[[I1]], %[[J]]]
// CHECK: %[[NEG:.*]] = arith.negf %[[GV]]
// CHECK: arith.mulf %[[NEG]],
// CHECK: } {mt.along_row}
// CHECK: scf.for %[[J2:[a-z0-9_]+]] =
// CHECK: %[[GV2:.*]] = tensor.extract %[[G]][%{{.*}}, %{{.*}}, %[[J2]]]
// CHECK: arith.negf %[[GV2]]
// CHECK: } {mt.along_row}
// CHECK-NOT: tensor.collapse_shape
func.func @producer_into_reads(%g: tensor<2x3x8xf32>, %y: tensor<6x8xf32>) -> tensor<6x8xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c6 = arith.constant 6 : index
  %c8 = arith.constant 8 : index
  %zero = arith.constant 0.0 : f32
  %e3 = tensor.empty() : tensor<2x3x8xf32>
  %ng = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%g : tensor<2x3x8xf32>) outs(%e3 : tensor<2x3x8xf32>) {
  ^bb0(%in: f32, %out: f32):
    %n = arith.negf %in : f32
    linalg.yield %n : f32
  } -> tensor<2x3x8xf32>
  %dy = tensor.collapse_shape %ng [[0, 1], [2]] : tensor<2x3x8xf32> into tensor<6x8xf32>
  %e = tensor.empty() : tensor<6x8xf32>
  %dx = scf.for %r = %c0 to %c6 step %c1 iter_args(%o = %e) -> (tensor<6x8xf32>) {
    %sum = scf.for %j = %c0 to %c8 step %c1 iter_args(%acc = %zero) -> (f32) {
      %a = tensor.extract %dy[%r, %j] : tensor<6x8xf32>
      %b = tensor.extract %y[%r, %j] : tensor<6x8xf32>
      %m = arith.mulf %a, %b : f32
      %s = arith.addf %acc, %m : f32
      scf.yield %s : f32
    } {mt.along_row}
    %row = scf.for %j = %c0 to %c8 step %c1 iter_args(%a = %o) -> (tensor<6x8xf32>) {
      %v = tensor.extract %dy[%r, %j] : tensor<6x8xf32>
      %d = arith.subf %v, %sum : f32
      %n = tensor.insert %d into %a[%r, %j] : tensor<6x8xf32>
      scf.yield %n : tensor<6x8xf32>
    } {mt.along_row}
    scf.yield %row : tensor<6x8xf32>
  } {mt.independent_iterations}
  return %dx : tensor<6x8xf32>
}

// -----

// A consumer reading something made after the row kernel from the kernel's
// result (here the result itself, twice) stays as it is; so does a reader
// outside any row kernel.
// CHECK-LABEL: func.func @not_fused
// CHECK: scf.for
// CHECK: linalg.generic
// CHECK: linalg.generic
func.func @not_fused(%x: tensor<6x8xf32>) -> (tensor<6x8xf32>, tensor<6x8xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c6 = arith.constant 6 : index
  %c8 = arith.constant 8 : index
  %e = tensor.empty() : tensor<6x8xf32>
  %p = scf.for %r = %c0 to %c6 step %c1 iter_args(%o = %e) -> (tensor<6x8xf32>) {
    %row = scf.for %j = %c0 to %c8 step %c1 iter_args(%a = %o) -> (tensor<6x8xf32>) {
      %v = tensor.extract %x[%r, %j] : tensor<6x8xf32>
      %n = tensor.insert %v into %a[%r, %j] : tensor<6x8xf32>
      scf.yield %n : tensor<6x8xf32>
    } {mt.along_row}
    scf.yield %row : tensor<6x8xf32>
  } {mt.independent_iterations}
  %sq = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
      ins(%p, %p : tensor<6x8xf32>, tensor<6x8xf32>) outs(%e : tensor<6x8xf32>) {
  ^bb0(%a: f32, %b: f32, %out: f32):
    %m = arith.mulf %a, %b : f32
    linalg.yield %m : f32
  } -> tensor<6x8xf32>
  %neg = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<6x8xf32>) outs(%e : tensor<6x8xf32>) {
  ^bb0(%a: f32, %out: f32):
    %n = arith.negf %a : f32
    linalg.yield %n : f32
  } -> tensor<6x8xf32>
  return %sq, %neg : tensor<6x8xf32>, tensor<6x8xf32>
}

// -----

// The rounding of a GEMM's fp32 product stays apart from the row kernel
// that reads it: it becomes the GEMM's own 16-bit output
// (mt-convert-contractions-to-blas).
// CHECK-LABEL: func.func @gemm_rounding_stays
// CHECK: linalg.matmul
// CHECK: %[[ROUNDED:.*]] = linalg.generic
// CHECK: arith.truncf
// CHECK: tensor.extract %[[ROUNDED]]
func.func @gemm_rounding_stays(%a: tensor<6x4xbf16>, %b: tensor<4x8xbf16>, %init: tensor<6x8xf32>) -> tensor<6x8xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c6 = arith.constant 6 : index
  %c8 = arith.constant 8 : index
  %s = linalg.matmul ins(%a, %b : tensor<6x4xbf16>, tensor<4x8xbf16>) outs(%init : tensor<6x8xf32>) -> tensor<6x8xf32>
  %e16 = tensor.empty() : tensor<6x8xbf16>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
      ins(%s : tensor<6x8xf32>) outs(%e16 : tensor<6x8xbf16>) {
  ^bb0(%in: f32, %out: bf16):
    %t = arith.truncf %in : f32 to bf16
    linalg.yield %t : bf16
  } -> tensor<6x8xbf16>
  %e = tensor.empty() : tensor<6x8xf32>
  %p = scf.for %i = %c0 to %c6 step %c1 iter_args(%o = %e) -> (tensor<6x8xf32>) {
    %row = scf.for %j = %c0 to %c8 step %c1 iter_args(%acc = %o) -> (tensor<6x8xf32>) {
      %v = tensor.extract %r[%i, %j] : tensor<6x8xbf16>
      %w = arith.extf %v : bf16 to f32
      %n = tensor.insert %w into %acc[%i, %j] : tensor<6x8xf32>
      scf.yield %n : tensor<6x8xf32>
    } {mt.along_row}
    scf.yield %row : tensor<6x8xf32>
  } {mt.independent_iterations}
  return %p : tensor<6x8xf32>
}
