// RUN: mt-opt %s -split-input-file -mt-unroll-layers -verify-diagnostics | FileCheck %s

// Two layers: each reads its slice of the stacked weight, its dropout is
// keyed by its layer index, every op is marked with its layer (mt.layer),
// and the carried value threads through.
// CHECK-LABEL: func.func @two_layers
// CHECK-SAME: (%[[X:.*]]: tensor<2x4xf32>, %[[G:.*]]: tensor<2x4xf32>)
// CHECK-NEXT: %[[G0:.*]] = mt.slice_layer %[[G]] {layer = 0 : i64} : tensor<2x4xf32> -> tensor<4xf32>
// CHECK-NEXT: %[[M0:.*]] = mt.mul %[[X]], %[[G0]] {mt.layer = 0 : i64} : tensor<2x4xf32>, tensor<4xf32>
// CHECK-NEXT: %[[D0:.*]] = mt.dropout %[[M0]] {layer = 0 : i64, mt.layer = 0 : i64, rate = 5.000000e-01 : f64, stream = 1 : i64}
// CHECK-NEXT: %[[G1:.*]] = mt.slice_layer %[[G]] {layer = 1 : i64} : tensor<2x4xf32> -> tensor<4xf32>
// CHECK-NEXT: %[[M1:.*]] = mt.mul %[[D0]], %[[G1]] {mt.layer = 1 : i64} : tensor<2x4xf32>, tensor<4xf32>
// CHECK-NEXT: %[[D1:.*]] = mt.dropout %[[M1]] {layer = 1 : i64, mt.layer = 1 : i64, rate = 5.000000e-01 : f64, stream = 1 : i64}
// CHECK-NEXT: return %[[D1]]
// CHECK-NOT: mt.layer_stack
func.func @two_layers(%x: tensor<2x4xf32>, %g: tensor<2x4xf32>) -> tensor<2x4xf32> {
  %h = mt.layer_stack (%hid = %x : tensor<2x4xf32>) layers (%gl = %g : tensor<2x4xf32>) -> tensor<2x4xf32> {
    %m = mt.mul %hid, %gl : tensor<2x4xf32>, tensor<4xf32>
    %d = mt.dropout %m {rate = 0.5 : f64, stream = 1 : i64} : tensor<2x4xf32>
    mt.yield %d : tensor<2x4xf32>
  }
  return %h : tensor<2x4xf32>
}

// -----

// Dropout outside the stack keeps no layer index.
// CHECK-LABEL: func.func @outside
// CHECK: mt.dropout %{{.*}} {rate = 1.000000e-01 : f64, stream = 0 : i64}
// CHECK: mt.slice_layer
func.func @outside(%x: tensor<2x4xf32>, %g: tensor<1x4xf32>) -> tensor<2x4xf32> {
  %d = mt.dropout %x {rate = 0.1 : f64, stream = 0 : i64} : tensor<2x4xf32>
  %h = mt.layer_stack (%hid = %d : tensor<2x4xf32>) layers (%gl = %g : tensor<1x4xf32>) -> tensor<2x4xf32> {
    %m = mt.mul %hid, %gl : tensor<2x4xf32>, tensor<4xf32>
    mt.yield %m : tensor<2x4xf32>
  }
  return %h : tensor<2x4xf32>
}
