// RUN: mt-opt %s -mt-outline-layers | FileCheck %s

// Two identical layers become two calls of one private function that takes
// the stacked parameter whole with the layer's slot, and the layer as its
// dropout key offset.
// CHECK-LABEL: func.func @forward
// CHECK-SAME: (%[[X:.*]]: tensor<2x4xf32>, %[[W:.*]]: tensor<2x4xf32> {mt.first_layer = 0 : i64}, %[[SEED:.*]]: tensor<i64>)
// CHECK-DAG: %[[C0:.*]] = arith.constant 0 : index
// CHECK-DAG: %[[L0:.*]] = arith.constant 0 : i64
// CHECK: %[[Y0:.*]] = call @forward_layer(%[[W]], %[[X]], %[[SEED]], %[[C0]], %[[L0]]) {mt.layer = 0 : i64}
// CHECK-DAG: %[[C1:.*]] = arith.constant 1 : index
// CHECK-DAG: %[[L1:.*]] = arith.constant 1 : i64
// CHECK: %[[Y1:.*]] = call @forward_layer(%[[W]], %[[Y0]], %[[SEED]], %[[C1]], %[[L1]]) {mt.layer = 1 : i64}
// CHECK: %[[Z:.*]] = mt.dropout %[[Y1]] seed %[[SEED]] : tensor<i64> {rate
// CHECK: return %[[Z]]
func.func @forward(%x: tensor<2x4xf32>, %w: tensor<2x4xf32> {mt.first_layer = 0 : i64}, %seed: tensor<i64>) -> tensor<2x4xf32>
    attributes {mt.role = #mt<role forward>} {
  %w0 = mt.slice_layer %w {layer = 0 : i64} : tensor<2x4xf32> -> tensor<4xf32>
  %a0 = mt.add %x, %w0 {mt.layer = 0 : i64} : tensor<2x4xf32>, tensor<4xf32>
  %d0 = mt.dropout %a0 seed %seed : tensor<i64> {layer = 0 : i64, mt.layer = 0 : i64, rate = 1.0e-01 : f64, stream = 1 : i64} : tensor<2x4xf32>
  %w1 = mt.slice_layer %w {layer = 1 : i64} : tensor<2x4xf32> -> tensor<4xf32>
  %a1 = mt.add %d0, %w1 {mt.layer = 1 : i64} : tensor<2x4xf32>, tensor<4xf32>
  %d1 = mt.dropout %a1 seed %seed : tensor<i64> {layer = 1 : i64, mt.layer = 1 : i64, rate = 1.0e-01 : f64, stream = 1 : i64} : tensor<2x4xf32>
  %z = mt.dropout %d1 seed %seed : tensor<i64> {rate = 1.0e-01 : f64, stream = 0 : i64} : tensor<2x4xf32>
  return %z : tensor<2x4xf32>
}

// A shared stage program (layers relative, an offset argument): the same
// layer code, called with its own offset plus the layer.
// CHECK-LABEL: func.func @shared
// CHECK-SAME: %[[OFF:[^:]*]]: tensor<i64> {mt.layer_offset})
// CHECK: %[[B0:.*]] = tensor.extract %[[OFF]][] : tensor<i64>
// CHECK: %[[S0:.*]] = arith.addi %[[B0]], %{{.*}} : i64
// CHECK: %[[O0:.*]] = tensor.from_elements %[[S0]] : tensor<i64>
// CHECK: %[[Y0:.*]] = call @shared_layer(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %[[O0]]) {mt.layer = 0 : i64}
// CHECK: call @shared_layer(%{{.*}}, %[[Y0]], {{.*}}) {mt.layer = 1 : i64}
func.func @shared(%x: tensor<2x4xf32>, %w: tensor<2x4xf32> {mt.first_layer = 2 : i64}, %seed: tensor<i64>, %off: tensor<i64> {mt.layer_offset}) -> tensor<2x4xf32>
    attributes {mt.role = #mt<role eval>} {
  %w0 = mt.slice_layer %w {layer = 0 : i64} : tensor<2x4xf32> -> tensor<4xf32>
  %a0 = mt.add %x, %w0 {mt.layer = 0 : i64} : tensor<2x4xf32>, tensor<4xf32>
  %d0 = mt.dropout %a0 seed %seed : tensor<i64> {layer = 0 : i64, mt.layer = 0 : i64, rate = 1.0e-01 : f64, stream = 1 : i64} : tensor<2x4xf32>
  %w1 = mt.slice_layer %w {layer = 1 : i64} : tensor<2x4xf32> -> tensor<4xf32>
  %a1 = mt.add %d0, %w1 {mt.layer = 1 : i64} : tensor<2x4xf32>, tensor<4xf32>
  %d1 = mt.dropout %a1 seed %seed : tensor<i64> {layer = 1 : i64, mt.layer = 1 : i64, rate = 1.0e-01 : f64, stream = 1 : i64} : tensor<2x4xf32>
  return %d1 : tensor<2x4xf32>
}

// A backward: each layer accumulates into its slot of a stacked
// accumulator. The updated accumulator comes back from the call (marked in
// place of its argument), the gradient signal stays in the caller, after
// its layer's call.
// CHECK-LABEL: func.func @step
// CHECK-SAME: (%[[G:.*]]: tensor<2x4xf32>, %[[ACC:.*]]: tensor<2x4xf32> {mt.accumulator_of = "w"})
// CHECK: %[[R1:.*]]:2 = call @step_layer(%[[G]], %[[ACC]], %{{.*}}) {mt.layer = 1 : i64}
// CHECK: mt.gradient_ready %[[R1]]#0 {accumulator = 1 : i64, index = 0 : i64
// CHECK: %[[R0:.*]]:2 = call @step_layer(%[[R1]]#1, %[[R1]]#0, %{{.*}}) {mt.layer = 0 : i64}
// CHECK: mt.gradient_ready %[[R0]]#0 {accumulator = 1 : i64, index = 1 : i64
// CHECK: return %[[R0]]#1, %[[R0]]#0
func.func @step(%g: tensor<2x4xf32>, %acc: tensor<2x4xf32> {mt.accumulator_of = "w"}) -> (tensor<2x4xf32>, tensor<2x4xf32> {mt.in_place_of = 1 : i64})
    attributes {mt.role = #mt<role train_step>} {
  %s1 = mt.sum_to %g {mt.backward, mt.layer = 1 : i64} : tensor<2x4xf32> -> tensor<4xf32>
  %t1 = mt.slice_layer %acc {layer = 1 : i64, mt.backward, mt.layer = 1 : i64} : tensor<2x4xf32> -> tensor<4xf32>
  %u1 = mt.accumulate %s1 into %t1 {mt.backward, mt.layer = 1 : i64} : tensor<4xf32>
  %acc1 = mt.insert_layer %u1 into %acc {layer = 1 : i64, mt.backward, mt.layer = 1 : i64} : tensor<4xf32> into tensor<2x4xf32>
  mt.gradient_ready %acc1 {accumulator = 1 : i64, index = 0 : i64, layer = 1 : i64, mt.backward} : tensor<2x4xf32>
  %h1 = mt.add %g, %g {mt.backward, mt.layer = 1 : i64} : tensor<2x4xf32>, tensor<2x4xf32>
  %s0 = mt.sum_to %h1 {mt.backward, mt.layer = 0 : i64} : tensor<2x4xf32> -> tensor<4xf32>
  %t0 = mt.slice_layer %acc1 {layer = 0 : i64, mt.backward, mt.layer = 0 : i64} : tensor<2x4xf32> -> tensor<4xf32>
  %u0 = mt.accumulate %s0 into %t0 {mt.backward, mt.layer = 0 : i64} : tensor<4xf32>
  %acc0 = mt.insert_layer %u0 into %acc1 {layer = 0 : i64, mt.backward, mt.layer = 0 : i64} : tensor<4xf32> into tensor<2x4xf32>
  mt.gradient_ready %acc0 {accumulator = 1 : i64, index = 1 : i64, layer = 0 : i64, mt.backward} : tensor<2x4xf32>
  %h0 = mt.add %h1, %h1 {mt.backward, mt.layer = 0 : i64} : tensor<2x4xf32>, tensor<2x4xf32>
  return %h0, %acc0 : tensor<2x4xf32>, tensor<2x4xf32>
}

// Layers whose code differs stay as they are.
// CHECK-LABEL: func.func @different
// CHECK-NOT: call
// CHECK: mt.add {{.*}}mt.layer = 0
// CHECK: mt.mul {{.*}}mt.layer = 1
func.func @different(%x: tensor<4xf32>) -> tensor<4xf32> attributes {mt.role = #mt<role forward>} {
  %a = mt.add %x, %x {mt.layer = 0 : i64} : tensor<4xf32>, tensor<4xf32>
  %b = mt.mul %a, %a {mt.layer = 1 : i64} : tensor<4xf32>, tensor<4xf32>
  return %b : tensor<4xf32>
}

// Layers that need each other's results (no order calls them in) stay as
// they are.
// CHECK-LABEL: func.func @tangled
// CHECK-NOT: call
// CHECK: return
func.func @tangled(%x: tensor<4xf32>) -> tensor<4xf32> attributes {mt.role = #mt<role forward>} {
  %a = mt.add %x, %x {mt.layer = 0 : i64} : tensor<4xf32>, tensor<4xf32>
  %b = mt.add %a, %a {mt.layer = 1 : i64} : tensor<4xf32>, tensor<4xf32>
  %c = mt.add %b, %b {mt.layer = 0 : i64} : tensor<4xf32>, tensor<4xf32>
  %d = mt.add %c, %c {mt.layer = 1 : i64} : tensor<4xf32>, tensor<4xf32>
  return %d : tensor<4xf32>
}

// The layer code: slices and inserts at the slot argument, dropout keys
// relative to the offset argument; the inputs, distinct values live at the
// call, do not alias.
// CHECK-LABEL: func.func private @forward_layer
// CHECK-SAME: (%[[W:[^:]*]]: tensor<2x4xf32> {llvm.noalias}, %[[X:[^:]*]]: tensor<2x4xf32> {llvm.noalias}, %[[SEED:[^:]*]]: tensor<i64> {llvm.noalias}, %[[SLOT:[^:]*]]: index, %{{.*}}: i64 {mt.layer_offset}) -> tensor<2x4xf32>
// CHECK: %[[P:.*]] = tensor.extract_slice %[[W]][%[[SLOT]], 0] [1, 4] [1, 1] : tensor<2x4xf32> to tensor<4xf32>
// CHECK: %[[A:.*]] = mt.add %[[X]], %[[P]] : tensor<2x4xf32>, tensor<4xf32>
// CHECK: %[[D:.*]] = mt.dropout %[[A]] seed %[[SEED]] : tensor<i64> {layer = 0 : i64, rate
// CHECK: return %[[D]]

// CHECK-LABEL: func.func private @step_layer
// CHECK-SAME: (%[[G:[^:]*]]: tensor<2x4xf32> {llvm.noalias}, %[[ACC:[^:]*]]: tensor<2x4xf32> {llvm.noalias}, %[[SLOT:[^:]*]]: index) -> (tensor<2x4xf32> {mt.in_place_of = 1 : i64}, tensor<2x4xf32>)
// CHECK: %[[S:.*]] = mt.sum_to %[[G]] {mt.backward}
// CHECK: %[[T:.*]] = tensor.extract_slice %[[ACC]][%[[SLOT]], 0] [1, 4] [1, 1]
// CHECK: %[[U:.*]] = mt.accumulate %[[S]] into %[[T]]
// CHECK: %[[N:.*]] = tensor.insert_slice %[[U]] into %[[ACC]][%[[SLOT]], 0] [1, 4] [1, 1]
// CHECK: %[[H:.*]] = mt.add %[[G]], %[[G]]
// CHECK: return %[[N]], %[[H]]
