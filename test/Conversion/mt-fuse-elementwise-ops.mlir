// RUN: mt-opt %s -split-input-file --mt-fuse-elementwise-ops | FileCheck %s

// A square into the sum that reads it: one op, the square in its body.
// CHECK-LABEL: func.func @square_into_sum
// CHECK-SAME: (%[[G:.*]]: tensor<64xf32>, %[[INIT:.*]]: tensor<f32>)
// CHECK: %[[S:.*]] = linalg.generic {{.*}} iterator_types = ["reduction"]} ins(%[[G]] : tensor<64xf32>) outs(%[[INIT]] : tensor<f32>)
// CHECK: ^bb0(%[[X:.*]]: f32, %[[ACC:.*]]: f32):
// CHECK: %[[SQ:.*]] = arith.mulf %[[X]], %[[X]] : f32
// CHECK: %[[NEXT:.*]] = arith.addf %[[ACC]], %[[SQ]] : f32
// CHECK: linalg.yield %[[NEXT]]
// CHECK-NOT: linalg.generic
// CHECK: return %[[S]]
func.func @square_into_sum(%g: tensor<64xf32>, %init: tensor<f32>) -> tensor<f32> {
  %e = tensor.empty() : tensor<64xf32>
  %sq = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]}
      ins(%g : tensor<64xf32>) outs(%e : tensor<64xf32>) {
  ^bb0(%x: f32, %o: f32):
    %m = arith.mulf %x, %x : f32
    linalg.yield %m : f32
  } -> tensor<64xf32>
  %s = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> ()>], iterator_types = ["reduction"]}
      ins(%sq : tensor<64xf32>) outs(%init : tensor<f32>) {
  ^bb0(%y: f32, %acc: f32):
    %a = arith.addf %acc, %y : f32
    linalg.yield %a : f32
  } -> tensor<f32>
  return %s : tensor<f32>
}

// -----

// A result read twice stays where it is (fusing would compute it twice).
// CHECK-LABEL: func.func @two_readers
// CHECK-COUNT-3: linalg.generic
// CHECK-NOT: linalg.generic
func.func @two_readers(%g: tensor<64xf32>) -> (tensor<64xf32>, tensor<64xf32>) {
  %e = tensor.empty() : tensor<64xf32>
  %sq = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]}
      ins(%g : tensor<64xf32>) outs(%e : tensor<64xf32>) {
  ^bb0(%x: f32, %o: f32):
    %m = arith.mulf %x, %x : f32
    linalg.yield %m : f32
  } -> tensor<64xf32>
  %a = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]}
      ins(%sq : tensor<64xf32>) outs(%e : tensor<64xf32>) {
  ^bb0(%x: f32, %o: f32):
    %n = arith.negf %x : f32
    linalg.yield %n : f32
  } -> tensor<64xf32>
  %b = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]}
      ins(%sq : tensor<64xf32>) outs(%e : tensor<64xf32>) {
  ^bb0(%x: f32, %o: f32):
    %n = math.sqrt %x : f32
    linalg.yield %n : f32
  } -> tensor<64xf32>
  return %a, %b : tensor<64xf32>, tensor<64xf32>
}

// -----

// A GEMM stays a GEMM: the cast of its operand is not folded into it, and
// the rounding of its product is not folded into the bias add after it.
// CHECK-LABEL: func.func @gemm_apart
// CHECK: %[[W16:.*]] = linalg.generic {{.*}} iterator_types = ["parallel", "parallel"]
// CHECK: arith.truncf
// CHECK: %[[P:.*]] = linalg.generic {{.*}} iterator_types = ["parallel", "parallel", "reduction"]} ins(%{{.*}}, %[[W16]] : tensor<8x16xbf16>, tensor<16x4xbf16>)
// CHECK: %[[R:.*]] = linalg.generic {{.*}} ins(%[[P]] : tensor<8x4xf32>)
// CHECK: arith.truncf
// CHECK: linalg.generic {{.*}} ins(%[[R]], %{{.*}} : tensor<8x4xbf16>, tensor<4xbf16>)
func.func @gemm_apart(%x: tensor<8x16xbf16>, %w: tensor<16x4xf32>, %bias: tensor<4xbf16>) -> tensor<8x4xbf16> {
  %e16 = tensor.empty() : tensor<16x4xbf16>
  %w16 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
      ins(%w : tensor<16x4xf32>) outs(%e16 : tensor<16x4xbf16>) {
  ^bb0(%a: f32, %o: bf16):
    %t = arith.truncf %a : f32 to bf16
    linalg.yield %t : bf16
  } -> tensor<16x4xbf16>
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<8x4xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<8x4xf32>) -> tensor<8x4xf32>
  %p = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d2, d1)>, affine_map<(d0, d1, d2) -> (d0, d1)>], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%x, %w16 : tensor<8x16xbf16>, tensor<16x4xbf16>) outs(%z : tensor<8x4xf32>) {
  ^bb0(%a: bf16, %b: bf16, %c: f32):
    %a32 = arith.extf %a : bf16 to f32
    %b32 = arith.extf %b : bf16 to f32
    %m = arith.mulf %a32, %b32 : f32
    %s = arith.addf %c, %m : f32
    linalg.yield %s : f32
  } -> tensor<8x4xf32>
  %eb = tensor.empty() : tensor<8x4xbf16>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
      ins(%p : tensor<8x4xf32>) outs(%eb : tensor<8x4xbf16>) {
  ^bb0(%a: f32, %o: bf16):
    %t = arith.truncf %a : f32 to bf16
    linalg.yield %t : bf16
  } -> tensor<8x4xbf16>
  %y = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
      ins(%r, %bias : tensor<8x4xbf16>, tensor<4xbf16>) outs(%eb : tensor<8x4xbf16>) {
  ^bb0(%a: bf16, %b: bf16, %o: bf16):
    %s = arith.addf %a, %b : bf16
    linalg.yield %s : bf16
  } -> tensor<8x4xbf16>
  return %y : tensor<8x4xbf16>
}

// -----

// A result read broadcast (a bias cast, added to every row) is not fused:
// the cast would be redone for each row.
// CHECK-LABEL: func.func @broadcast_reader
// CHECK: %[[B16:.*]] = linalg.generic {{.*}} ins(%{{.*}} : tensor<4xf32>)
// CHECK: linalg.generic {{.*}} ins(%{{.*}}, %[[B16]] : tensor<8x4xbf16>, tensor<4xbf16>)
func.func @broadcast_reader(%x: tensor<8x4xbf16>, %bias: tensor<4xf32>) -> tensor<8x4xbf16> {
  %e4 = tensor.empty() : tensor<4xbf16>
  %b16 = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]}
      ins(%bias : tensor<4xf32>) outs(%e4 : tensor<4xbf16>) {
  ^bb0(%a: f32, %o: bf16):
    %t = arith.truncf %a : f32 to bf16
    linalg.yield %t : bf16
  } -> tensor<4xbf16>
  %eb = tensor.empty() : tensor<8x4xbf16>
  %y = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
      ins(%x, %b16 : tensor<8x4xbf16>, tensor<4xbf16>) outs(%eb : tensor<8x4xbf16>) {
  ^bb0(%a: bf16, %b: bf16, %o: bf16):
    %s = arith.addf %a, %b : bf16
    linalg.yield %s : bf16
  } -> tensor<8x4xbf16>
  return %y : tensor<8x4xbf16>
}

// -----

// Nothing is folded: a key offset built from a scalar stays a scalar (a
// constant tensor would become a global buffer, host memory on a GPU).
// CHECK-LABEL: func.func @no_folding
// CHECK: %[[C:.*]] = arith.constant 3 : i64
// CHECK: tensor.from_elements %[[C]] : tensor<i64>
func.func @no_folding() -> tensor<i64> {
  %c = arith.constant 3 : i64
  %t = tensor.from_elements %c : tensor<i64>
  return %t : tensor<i64>
}

// -----

// A concat's piece made by a generic (a merge of heads, reshaped) is made
// straight into the concat's slice; the generic moves down to its insertion.
// CHECK-LABEL: func.func @concat_piece_in_place
// CHECK-SAME: (%[[X:[a-z0-9_]+]]: tensor<2x4x8x16xf32>, %[[Y:[a-z0-9_]+]]: tensor<2x8x64xf32>)
// CHECK: %[[ACC:.*]] = tensor.empty() : tensor<2x8x128xf32>
// CHECK: %[[SLICE:.*]] = tensor.extract_slice %[[ACC]][0, 0, 0] [2, 8, 64] [1, 1, 1]
// CHECK: %[[OUT:.*]] = tensor.expand_shape %[[SLICE]] {{\[\[}}0], [1], [2, 3]]
// CHECK: %[[G:.*]] = linalg.generic {{.*}} ins(%[[X]] : tensor<2x4x8x16xf32>) outs(%[[OUT]] : tensor<2x8x4x16xf32>)
// CHECK: %[[C:.*]] = tensor.collapse_shape %[[G]]
// CHECK: %[[ACC1:.*]] = tensor.insert_slice %[[C]] into %[[ACC]][0, 0, 0]
// CHECK: tensor.insert_slice %[[Y]] into %[[ACC1]][0, 0, 64]
func.func @concat_piece_in_place(%x: tensor<2x4x8x16xf32>, %y: tensor<2x8x64xf32>) -> tensor<2x8x128xf32> {
  %e = tensor.empty() : tensor<2x8x4x16xf32>
  %g = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d2, d1, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%x : tensor<2x4x8x16xf32>) outs(%e : tensor<2x8x4x16xf32>) {
  ^bb0(%a: f32, %b: f32):
    linalg.yield %a : f32
  } -> tensor<2x8x4x16xf32>
  %c = tensor.collapse_shape %g [[0], [1], [2, 3]] : tensor<2x8x4x16xf32> into tensor<2x8x64xf32>
  %acc = tensor.empty() : tensor<2x8x128xf32>
  %acc1 = tensor.insert_slice %c into %acc[0, 0, 0] [2, 8, 64] [1, 1, 1] : tensor<2x8x64xf32> into tensor<2x8x128xf32>
  %acc2 = tensor.insert_slice %y into %acc1[0, 0, 64] [2, 8, 64] [1, 1, 1] : tensor<2x8x64xf32> into tensor<2x8x128xf32>
  return %acc2 : tensor<2x8x128xf32>
}

// -----

// Inserted into a tensor whose other elements are still read: left as it is.
// CHECK-LABEL: func.func @insert_into_live_tensor
// CHECK: %[[E:.*]] = tensor.empty() : tensor<8x64xf32>
// CHECK: linalg.generic {{.*}} outs(%[[E]] : tensor<8x64xf32>)
func.func @insert_into_live_tensor(%x: tensor<8x64xf32>, %d: tensor<8x128xf32>) -> (tensor<8x128xf32>, tensor<8x128xf32>) {
  %e = tensor.empty() : tensor<8x64xf32>
  %g = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<8x64xf32>) outs(%e : tensor<8x64xf32>) {
  ^bb0(%a: f32, %b: f32):
    %n = arith.negf %a : f32
    linalg.yield %n : f32
  } -> tensor<8x64xf32>
  %r = tensor.insert_slice %g into %d[0, 0] [8, 64] [1, 1] : tensor<8x64xf32> into tensor<8x128xf32>
  return %r, %d : tensor<8x128xf32>, tensor<8x128xf32>
}

// -----

// A bias add read only by head splits, through a reshape, slices and
// reshapes: each transpose adds the bias itself, reading the same views of
// the product and of the bias (sliced and split along the dims it spans).
// CHECK-DAG: #[[$SPLIT:.*]] = affine_map<(d0, d1, d2, d3) -> (d0, d2, d1, d3)>
// CHECK-DAG: #[[$BIAS:.*]] = affine_map<(d0, d1, d2, d3) -> (d1, d3)>
// CHECK-DAG: #[[$OUT:.*]] = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
// CHECK-LABEL: func.func @bias_add_into_head_splits
// CHECK-SAME: (%[[P:[a-z0-9_]+]]: tensor<16x64xf32>, %[[B:[a-z0-9_]+]]: tensor<64xf32>)
// CHECK-NOT: tensor<16x64xf32>) outs
// CHECK: %[[P3:.*]] = tensor.expand_shape %[[P]] {{\[\[}}0, 1], [2]] output_shape [2, 8, 64]
// CHECK: %[[PQ:.*]] = tensor.extract_slice %[[P3]][0, 0, 0] [2, 8, 32] [1, 1, 1]
// CHECK: %[[PQ4:.*]] = tensor.expand_shape %[[PQ]] {{\[\[}}0], [1], [2, 3]] output_shape [2, 8, 2, 16]
// CHECK: %[[BQ:.*]] = tensor.extract_slice %[[B]][0] [32] [1]
// CHECK: %[[BQ2:.*]] = tensor.expand_shape %[[BQ]] {{\[\[}}0, 1]] output_shape [2, 16]
// CHECK: %[[Q:.*]] = linalg.generic {indexing_maps = [#[[$SPLIT]], #[[$BIAS]], #[[$OUT]]], {{.*}} ins(%[[PQ4]], %[[BQ2]] : tensor<2x8x2x16xf32>, tensor<2x16xf32>) outs({{.*}} : tensor<2x2x8x16xf32>)
// CHECK: arith.addf
// CHECK: tensor.extract_slice {{.*}}[0, 0, 32] [2, 8, 32] [1, 1, 1]
// CHECK: tensor.extract_slice %[[B]][32] [32] [1]
// CHECK: %[[K:.*]] = linalg.generic
// CHECK: arith.addf
// CHECK-NOT: linalg.transpose
// CHECK: return %[[Q]], %[[K]]
func.func @bias_add_into_head_splits(%p: tensor<16x64xf32>, %b: tensor<64xf32>) -> (tensor<2x2x8x16xf32>, tensor<2x2x8x16xf32>) {
  %e = tensor.empty() : tensor<16x64xf32>
  %sum = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
      ins(%p, %b : tensor<16x64xf32>, tensor<64xf32>) outs(%e : tensor<16x64xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %s = arith.addf %x, %y : f32
    linalg.yield %s : f32
  } -> tensor<16x64xf32>
  %s3 = tensor.expand_shape %sum [[0, 1], [2]] output_shape [2, 8, 64] : tensor<16x64xf32> into tensor<2x8x64xf32>
  %q = tensor.extract_slice %s3[0, 0, 0] [2, 8, 32] [1, 1, 1] : tensor<2x8x64xf32> to tensor<2x8x32xf32>
  %k = tensor.extract_slice %s3[0, 0, 32] [2, 8, 32] [1, 1, 1] : tensor<2x8x64xf32> to tensor<2x8x32xf32>
  %q4 = tensor.expand_shape %q [[0], [1], [2, 3]] output_shape [2, 8, 2, 16] : tensor<2x8x32xf32> into tensor<2x8x2x16xf32>
  %k4 = tensor.expand_shape %k [[0], [1], [2, 3]] output_shape [2, 8, 2, 16] : tensor<2x8x32xf32> into tensor<2x8x2x16xf32>
  %eq = tensor.empty() : tensor<2x2x8x16xf32>
  %ek = tensor.empty() : tensor<2x2x8x16xf32>
  %qh = linalg.transpose ins(%q4 : tensor<2x8x2x16xf32>) outs(%eq : tensor<2x2x8x16xf32>) permutation = [0, 2, 1, 3]
  %kh = linalg.transpose ins(%k4 : tensor<2x8x2x16xf32>) outs(%ek : tensor<2x2x8x16xf32>) permutation = [0, 2, 1, 3]
  return %qh, %kh : tensor<2x2x8x16xf32>, tensor<2x2x8x16xf32>
}

// -----

// The sum is also returned whole: it stays, and so do the transposes.
// CHECK-LABEL: func.func @bias_add_also_read_whole
// CHECK: linalg.generic
// CHECK: linalg.transpose
func.func @bias_add_also_read_whole(%p: tensor<8x32xf32>, %b: tensor<32xf32>) -> (tensor<2x8x16xf32>, tensor<8x32xf32>) {
  %e = tensor.empty() : tensor<8x32xf32>
  %sum = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
      ins(%p, %b : tensor<8x32xf32>, tensor<32xf32>) outs(%e : tensor<8x32xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %s = arith.addf %x, %y : f32
    linalg.yield %s : f32
  } -> tensor<8x32xf32>
  %s3 = tensor.expand_shape %sum [[0], [1, 2]] output_shape [8, 2, 16] : tensor<8x32xf32> into tensor<8x2x16xf32>
  %eh = tensor.empty() : tensor<2x8x16xf32>
  %h = linalg.transpose ins(%s3 : tensor<8x2x16xf32>) outs(%eh : tensor<2x8x16xf32>) permutation = [1, 0, 2]
  return %h, %sum : tensor<2x8x16xf32>, tensor<8x32xf32>
}

// -----

// A body that reads its position (a dropout's key) would see the
// transpose's positions: left apart.
// CHECK-LABEL: func.func @positions_stay
// CHECK: linalg.index
// CHECK: linalg.transpose
func.func @positions_stay(%p: tensor<8x32xf32>) -> tensor<2x8x16xf32> {
  %e = tensor.empty() : tensor<8x32xf32>
  %v = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
      ins(%p : tensor<8x32xf32>) outs(%e : tensor<8x32xf32>) {
  ^bb0(%x: f32, %o: f32):
    %i = linalg.index 1 : index
    %c = arith.index_cast %i : index to i32
    %f = arith.sitofp %c : i32 to f32
    %s = arith.addf %x, %f : f32
    linalg.yield %s : f32
  } -> tensor<8x32xf32>
  %s3 = tensor.expand_shape %v [[0], [1, 2]] output_shape [8, 2, 16] : tensor<8x32xf32> into tensor<8x2x16xf32>
  %eh = tensor.empty() : tensor<2x8x16xf32>
  %h = linalg.transpose ins(%s3 : tensor<8x2x16xf32>) outs(%eh : tensor<2x8x16xf32>) permutation = [1, 0, 2]
  return %h : tensor<2x8x16xf32>
}
