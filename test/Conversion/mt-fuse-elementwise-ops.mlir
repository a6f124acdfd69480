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
