// RUN: mt-opt %s -split-input-file -verify-diagnostics -mt-derive-gradients -mt-split-stage-step | FileCheck %s

// A stage before the last: the forward returns its output and then what the
// backward reads (the gelu's input and output), in forward order; the backward
// takes them as mt.saved arguments and has no forward op left. The bf16
// copy of the weight is made again in the backward instead of being kept
// per micro-batch, and so is the rate-0 dropout (its input is kept).
// CHECK-LABEL: func.func @f_stage0(
// CHECK-SAME: %[[X:[[:alnum:]_]+]]: tensor<2x4xf32> {mt.stage_input}
// CHECK-SAME: %[[W:[[:alnum:]_]+]]: tensor<4xf32> {mt.param
// CHECK-SAME: -> (tensor<2x4xbf16>, tensor<2x4xbf16> {mt.saved = 0 : i64}, tensor<2x4xbf16> {mt.saved = 1 : i64})
// CHECK: %[[H:.*]] = mt.convert %[[X]]
// CHECK: %[[G:.*]] = mt.gelu %[[H]]
// CHECK: %[[WB:.*]] = mt.convert %[[W]]
// CHECK: %[[D:.*]] = mt.dropout %[[G]]
// CHECK: %[[Y:.*]] = mt.mul %[[D]], %[[WB]]
// CHECK: return %[[Y]], %[[H]], %[[G]]

// CHECK-LABEL: func.func @f_stage0_grad(
// CHECK-SAME: %{{[[:alnum:]_]+}}: tensor<2x4xf32> {mt.stage_input}
// CHECK-SAME: %[[BW:[[:alnum:]_]+]]: tensor<4xf32> {mt.param
// CHECK-SAME: %[[DY:[[:alnum:]_]+]]: tensor<2x4xbf16> {mt.cotangent}
// CHECK-SAME: %[[SH:[[:alnum:]_]+]]: tensor<2x4xbf16> {mt.saved = 0 : i64, mt.saved_from = "mt.convert"}
// CHECK-SAME: %[[SG:[[:alnum:]_]+]]: tensor<2x4xbf16> {mt.saved = 1 : i64, mt.saved_from = "mt.gelu"}
// CHECK-SAME: -> (tensor<4xf32> {mt.grad_of = "w"}, tensor<2x4xf32> {mt.stage_input_grad})
// CHECK-NOT: mt.gelu %
// CHECK: %[[BWB:.*]] = mt.convert %[[BW]] {mt.backward}
// CHECK: %[[BD:.*]] = mt.dropout %[[SG]] {mt.backward
// CHECK: mt.mul %[[DY]], %[[BWB]] {mt.backward}
// CHECK: mt.mul %[[DY]], %[[BD]] {mt.backward}
// CHECK: mt.gelu_grad %{{.*}}, %[[SH]]
// CHECK: return
func.func @f_stage0(%x: tensor<2x4xf32> {mt.stage_input},
                    %w: tensor<4xf32> {mt.param = #mt.param<name = "w", init = ones>}) -> tensor<2x4xbf16>
    attributes {mt.stage = 0 : i64, mt.num_stages = 2 : i64, mt.pipeline_of = "f"} {
  %h = mt.convert %x : tensor<2x4xf32> -> tensor<2x4xbf16>
  %g = mt.gelu %h approximate = tanh : tensor<2x4xbf16>
  %wb = mt.convert %w : tensor<4xf32> -> tensor<4xbf16>
  %d = mt.dropout %g {rate = 0.0 : f64, stream = 0 : i64} : tensor<2x4xbf16>
  %y = mt.mul %d, %wb : tensor<2x4xbf16>, tensor<4xbf16>
  return %y : tensor<2x4xbf16>
}

// -----

// The last stage returns the loss: it has no cotangent, and its training
// step keeps computing its forward (the schedule runs them back to back).
// CHECK-LABEL: func.func @f_stage1(
// CHECK-SAME: -> tensor<f32>
// CHECK-LABEL: func.func @f_stage1_grad(
// CHECK-NOT: mt.saved
// CHECK: mt.mul %
// CHECK: mt.cross_entropy %
// CHECK: mt.cross_entropy_grad
func.func @f_stage1(%x: tensor<2x4xf32> {mt.stage_input},
                    %w: tensor<4xf32> {mt.param = #mt.param<name = "w", init = ones>},
                    %labels: tensor<2xi32> {mt.batch = "labels"}) -> tensor<f32>
    attributes {mt.stage = 1 : i64, mt.num_stages = 2 : i64, mt.pipeline_of = "f"} {
  %y = mt.mul %x, %w : tensor<2x4xf32>, tensor<4xf32>
  %loss = mt.cross_entropy %y, %labels : tensor<2x4xf32>, tensor<2xi32> -> tensor<f32>
  return %loss : tensor<f32>
}
