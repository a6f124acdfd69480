// RUN: mt-opt %s -split-input-file -mt-lower-to-linalg -verify-diagnostics | FileCheck %s

// A linear layer: rows flattened, a contraction over in_features, the bias
// broadcast, the result reshaped back; the function is exported.
// CHECK-LABEL: func.func @linear
// CHECK-SAME: attributes {llvm.emit_c_interface}
// CHECK: %[[X2:.*]] = tensor.collapse_shape %{{.*}} {{\[\[}}0, 1, 2]] : tensor<2x3x4xf32> into tensor<24xf32>
// CHECK: %[[X:.*]] = tensor.expand_shape %[[X2]] {{\[\[}}0, 1]] output_shape [6, 4] : tensor<24xf32> into tensor<6x4xf32>
// CHECK: %[[Z:.*]] = linalg.fill
// CHECK: %[[Y:.*]] = linalg.generic {{.*}} iterator_types = ["parallel", "parallel", "reduction"]} ins(%[[X]], %{{.*}} : tensor<6x4xf32>, tensor<5x4xf32>) outs(%[[Z]] : tensor<6x5xf32>)
// CHECK: arith.mulf
// CHECK: arith.addf
// CHECK: %[[B:.*]] = linalg.generic {{.*}} ins(%[[Y]], %{{.*}} : tensor<6x5xf32>, tensor<5xf32>)
// CHECK-NOT: mt.
func.func @linear(%x: tensor<2x3x4xf32>, %w: tensor<5x4xf32>, %b: tensor<5xf32>) -> tensor<2x3x5xf32> {
  %y = mt.linear %x, %w, %b : tensor<2x3x4xf32>, tensor<5x4xf32>, tensor<5xf32> -> tensor<2x3x5xf32>
  return %y : tensor<2x3x5xf32>
}

// -----

// Dropout: a hash of the key and the element index decides each element.
// CHECK-LABEL: func.func @dropout
// CHECK: linalg.generic
// CHECK: linalg.index 0
// CHECK: arith.shrui
// CHECK: arith.cmpi sge
// CHECK: arith.select
func.func @dropout(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %y = mt.dropout %x {rate = 0.25 : f64, stream = 3 : i64, layer = 1 : i64} : tensor<4x8xf32>
  return %y : tensor<4x8xf32>
}

// -----

// Dynamic sizes must be fixed first.
func.func @dynamic(%x: tensor<?x8xf32>) -> tensor<?x8xf32> {
  // expected-error @+1 {{mt-lower-to-linalg: run mt-specialize-shapes first}}
  %y = mt.gelu %x approximate = tanh : tensor<?x8xf32>
  return %y : tensor<?x8xf32>
}

// -----

mt.mesh @mesh axes = ["tp"] shape = [2]
func.func @collective(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{mt-lower-to-linalg: 'mt.recv' has no CPU lowering (the runtime's pipeline scheduler moves activations between stages)}}
  %y = mt.recv on @mesh axis = "tp" offset = -1 channel = 0 : tensor<4xf32>
  return %y : tensor<4xf32>
}
