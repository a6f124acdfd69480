// RUN: mt-opt %s -split-input-file -mt-split-pipeline=stages=2 -verify-diagnostics | FileCheck %s

// Three layers on two stages: the middle-first rule gives 2 + 1. The first
// stage holds the embedding and layers 0-1 and returns its activation; the
// second receives it (mt.stage_input), holds layer 2 and the loss, and
// keeps drawing layer 2's dropout masks (first_layer = 2).
// CHECK-LABEL: func.func @m_stage0(
// CHECK-SAME: %[[TOK:[[:alnum:]_]+]]: tensor<2x4xi32> {mt.batch = "tokens"}
// CHECK-SAME: %[[WTE:[[:alnum:]_]+]]: tensor<16x8xf32> {mt.param = #mt.param<name = "wte"
// CHECK-SAME: %[[G:[[:alnum:]_]+]]: tensor<2x8xf32> {mt.first_layer = 0 : i64, mt.param = #mt.param<name = "h.g"
// CHECK-SAME: -> tensor<2x4x8xf32> attributes {mt.num_stages = 2 : i64, mt.pipeline_of = "m", mt.stage = 0 : i64}
// CHECK: %[[E:.*]] = mt.embedding %[[WTE]][%[[TOK]]]
// CHECK: %[[S:.*]] = mt.layer_stack (%{{.*}} = %[[E]] : tensor<2x4x8xf32>) layers (%{{.*}} = %[[G]] : tensor<2x8xf32>)
// CHECK: } attributes {first_layer = 0 : i64}
// CHECK: return %[[S]] : tensor<2x4x8xf32>
// CHECK-LABEL: func.func @m_stage1(
// CHECK-SAME: %[[IN:[[:alnum:]_]+]]: tensor<2x4x8xf32> {mt.stage_input}
// CHECK-SAME: %[[LAB:[[:alnum:]_]+]]: tensor<2x4xi32> {mt.batch = "labels"}
// CHECK-SAME: %[[WTE1:[[:alnum:]_]+]]: tensor<16x8xf32> {mt.param = #mt.param<name = "wte"
// CHECK-SAME: %[[G1:[[:alnum:]_]+]]: tensor<1x8xf32> {mt.first_layer = 2 : i64, mt.param = #mt.param<name = "h.g"
// CHECK-SAME: -> tensor<f32> attributes {mt.num_stages = 2 : i64, mt.pipeline_of = "m", mt.stage = 1 : i64}
// CHECK: %[[S1:.*]] = mt.layer_stack (%{{.*}} = %[[IN]] : tensor<2x4x8xf32>) layers (%{{.*}} = %[[G1]] : tensor<1x8xf32>)
// CHECK: } attributes {first_layer = 2 : i64}
// CHECK: %[[LOGITS:.*]] = mt.linear %[[S1]], %[[WTE1]]
// CHECK: %[[LOSS:.*]] = mt.cross_entropy %[[LOGITS]], %[[LAB]]
// CHECK: return %[[LOSS]]
// CHECK-NOT: func.func @m(
func.func @m(%tokens: tensor<2x4xi32> {mt.batch = "tokens"}, %labels: tensor<2x4xi32> {mt.batch = "labels"},
             %wte: tensor<16x8xf32> {mt.param = #mt.param<name = "wte", init = normal, std = 0.02>},
             %g: tensor<3x8xf32> {mt.param = #mt.param<name = "h.g", init = ones>}) -> tensor<f32> {
  %e = mt.embedding %wte[%tokens] : tensor<16x8xf32>, tensor<2x4xi32> -> tensor<2x4x8xf32>
  %h = mt.layer_stack (%x = %e : tensor<2x4x8xf32>) layers (%gl = %g : tensor<3x8xf32>) -> tensor<2x4x8xf32> {
    %y = mt.mul %x, %gl : tensor<2x4x8xf32>, tensor<8xf32>
    %z = mt.dropout %y {rate = 1.0e-01 : f64, stream = 0 : i64} : tensor<2x4x8xf32>
    mt.yield %z : tensor<2x4x8xf32>
  }
  %logits = mt.linear %h, %wte : tensor<2x4x8xf32>, tensor<16x8xf32> -> tensor<2x4x16xf32>
  %loss = mt.cross_entropy %logits, %labels : tensor<2x4x16xf32>, tensor<2x4xi32> -> tensor<f32>
  return %loss : tensor<f32>
}

// -----

// A value from before the stack used after it cannot cross stages.
func.func @skip(%tokens: tensor<2x4xi32> {mt.batch = "tokens"}, %labels: tensor<2x4xi32> {mt.batch = "labels"},
                %wte: tensor<16x8xf32> {mt.param = #mt.param<name = "wte", init = normal, std = 0.02>},
                %g: tensor<2x8xf32> {mt.param = #mt.param<name = "h.g", init = ones>}) -> tensor<f32> {
  %e = mt.embedding %wte[%tokens] : tensor<16x8xf32>, tensor<2x4xi32> -> tensor<2x4x8xf32>
  %h = mt.layer_stack (%x = %e : tensor<2x4x8xf32>) layers (%gl = %g : tensor<2x8xf32>) -> tensor<2x4x8xf32> {
    %y = mt.mul %x, %gl : tensor<2x4x8xf32>, tensor<8xf32>
    mt.yield %y : tensor<2x4x8xf32>
  }
  // expected-error @+1 {{mt-split-pipeline: this op after the layer stack uses a value computed before the layer stack (mt.embedding); only the stack's carried activation may cross pipeline stages}}
  %r = mt.add %h, %e : tensor<2x4x8xf32>, tensor<2x4x8xf32>
  %logits = mt.linear %r, %wte : tensor<2x4x8xf32>, tensor<16x8xf32> -> tensor<2x4x16xf32>
  %loss = mt.cross_entropy %logits, %labels : tensor<2x4x16xf32>, tensor<2x4xi32> -> tensor<f32>
  return %loss : tensor<f32>
}

// -----

// One layer cannot feed two stages.
// expected-error @+1 {{mt-split-pipeline: cannot cut 1 layers into 2 pipeline stages}}
func.func @short(%tokens: tensor<2x4xi32> {mt.batch = "tokens"}, %labels: tensor<2x4xi32> {mt.batch = "labels"},
                 %wte: tensor<16x8xf32> {mt.param = #mt.param<name = "wte", init = normal, std = 0.02>},
                 %g: tensor<1x8xf32> {mt.param = #mt.param<name = "h.g", init = ones>}) -> tensor<f32> {
  %e = mt.embedding %wte[%tokens] : tensor<16x8xf32>, tensor<2x4xi32> -> tensor<2x4x8xf32>
  %h = mt.layer_stack (%x = %e : tensor<2x4x8xf32>) layers (%gl = %g : tensor<1x8xf32>) -> tensor<2x4x8xf32> {
    %y = mt.mul %x, %gl : tensor<2x4x8xf32>, tensor<8xf32>
    mt.yield %y : tensor<2x4x8xf32>
  }
  %logits = mt.linear %h, %wte : tensor<2x4x8xf32>, tensor<16x8xf32> -> tensor<2x4x16xf32>
  %loss = mt.cross_entropy %logits, %labels : tensor<2x4x16xf32>, tensor<2x4xi32> -> tensor<f32>
  return %loss : tensor<f32>
}
