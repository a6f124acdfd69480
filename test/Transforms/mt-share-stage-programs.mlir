// RUN: mt-opt %s -mt-share-stage-programs | FileCheck %s

// Two stages that differ only in their layers (dropout keys, mt.layer,
// mt.stage, mt.first_layer) keep one function: its dropout layers become
// relative to the first, a layer-offset argument is added, and both callers
// are listed with their first layers; ops' layers become relative too
// (mt-outline-layers groups by them). A dropout outside the layers keeps
// its absolute key.
// CHECK-LABEL: func.func @stage1
// CHECK-SAME: (%[[X:.*]]: tensor<2x4xf32>, %[[W:.*]]: tensor<2x4xf32> {mt.first_layer = 3 : i64}, %[[SEED:.*]]: tensor<i64>, %[[OFFSET:.*]]: tensor<i64> {mt.layer_offset})
// CHECK-SAME: mt.shared_code = {stage1 = 3 : i64, stage2 = 5 : i64}
// CHECK: %[[A:.*]] = mt.dropout %[[X]] seed %[[SEED]] : tensor<i64> {layer = 0 : i64, mt.layer = 0 : i64, rate
// CHECK: %[[B:.*]] = mt.dropout %[[A]] seed %[[SEED]] : tensor<i64> {layer = 1 : i64, mt.layer = 1 : i64, rate
// CHECK: %[[C:.*]] = mt.dropout %[[B]] seed %[[SEED]] : tensor<i64> {rate
// CHECK: return %[[C]]
func.func @stage1(%x: tensor<2x4xf32>, %w: tensor<2x4xf32> {mt.first_layer = 3 : i64}, %seed: tensor<i64>) -> tensor<2x4xf32>
    attributes {mt.role = #mt<role forward>, mt.stage = 1 : i64} {
  %a = mt.dropout %x seed %seed : tensor<i64> {layer = 3 : i64, mt.layer = 3 : i64, rate = 1.0e-01 : f64, stream = 1 : i64} : tensor<2x4xf32>
  %b = mt.dropout %a seed %seed : tensor<i64> {layer = 4 : i64, mt.layer = 4 : i64, rate = 1.0e-01 : f64, stream = 1 : i64} : tensor<2x4xf32>
  %c = mt.dropout %b seed %seed : tensor<i64> {rate = 1.0e-01 : f64, stream = 0 : i64} : tensor<2x4xf32>
  return %c : tensor<2x4xf32>
}
// CHECK-NOT: func.func @stage2
func.func @stage2(%x: tensor<2x4xf32>, %w: tensor<2x4xf32> {mt.first_layer = 5 : i64}, %seed: tensor<i64>) -> tensor<2x4xf32>
    attributes {mt.role = #mt<role forward>, mt.stage = 2 : i64} {
  %a = mt.dropout %x seed %seed : tensor<i64> {layer = 5 : i64, mt.layer = 5 : i64, rate = 1.0e-01 : f64, stream = 1 : i64} : tensor<2x4xf32>
  %b = mt.dropout %a seed %seed : tensor<i64> {layer = 6 : i64, mt.layer = 6 : i64, rate = 1.0e-01 : f64, stream = 1 : i64} : tensor<2x4xf32>
  %c = mt.dropout %b seed %seed : tensor<i64> {rate = 1.0e-01 : f64, stream = 0 : i64} : tensor<2x4xf32>
  return %c : tensor<2x4xf32>
}

// The same layers spaced differently (layers 7 and 9): a program of its own,
// untouched.
// CHECK-LABEL: func.func @stage3
// CHECK-SAME: (%{{.*}}: tensor<2x4xf32>, %{{.*}}: tensor<2x4xf32> {mt.first_layer = 7 : i64}, %{{.*}}: tensor<i64>) -> tensor<2x4xf32>
// CHECK-SAME: attributes {mt.role = #mt<role forward>, mt.stage = 3 : i64} {
// CHECK: layer = 7 : i64, mt.layer = 7 : i64
// CHECK: layer = 9 : i64, mt.layer = 9 : i64
func.func @stage3(%x: tensor<2x4xf32>, %w: tensor<2x4xf32> {mt.first_layer = 7 : i64}, %seed: tensor<i64>) -> tensor<2x4xf32>
    attributes {mt.role = #mt<role forward>, mt.stage = 3 : i64} {
  %a = mt.dropout %x seed %seed : tensor<i64> {layer = 7 : i64, mt.layer = 7 : i64, rate = 1.0e-01 : f64, stream = 1 : i64} : tensor<2x4xf32>
  %b = mt.dropout %a seed %seed : tensor<i64> {layer = 9 : i64, mt.layer = 9 : i64, rate = 1.0e-01 : f64, stream = 1 : i64} : tensor<2x4xf32>
  %c = mt.dropout %b seed %seed : tensor<i64> {rate = 1.0e-01 : f64, stream = 0 : i64} : tensor<2x4xf32>
  return %c : tensor<2x4xf32>
}

// Equal programs without dropout share with no offset; a function without a
// role (not one the plan calls) is left alone.
// CHECK-LABEL: func.func @update1
// CHECK-SAME: (%{{.*}}: tensor<4xf32>) -> tensor<4xf32>
// CHECK-SAME: mt.shared_code = {update1 = 0 : i64, update2 = 0 : i64}
func.func @update1(%p: tensor<4xf32>) -> tensor<4xf32> attributes {mt.role = #mt<role optimizer>, mt.stage = 1 : i64} {
  %q = mt.add %p, %p : tensor<4xf32>, tensor<4xf32>
  return %q : tensor<4xf32>
}
// CHECK-NOT: func.func @update2
func.func @update2(%p: tensor<4xf32>) -> tensor<4xf32> attributes {mt.role = #mt<role optimizer>, mt.stage = 2 : i64} {
  %q = mt.add %p, %p : tensor<4xf32>, tensor<4xf32>
  return %q : tensor<4xf32>
}
// CHECK-LABEL: func.func @helper1
// CHECK-LABEL: func.func @helper2
func.func @helper1(%p: tensor<4xf32>) -> tensor<4xf32> {
  %q = mt.add %p, %p : tensor<4xf32>, tensor<4xf32>
  return %q : tensor<4xf32>
}
func.func @helper2(%p: tensor<4xf32>) -> tensor<4xf32> {
  %q = mt.add %p, %p : tensor<4xf32>, tensor<4xf32>
  return %q : tensor<4xf32>
}
