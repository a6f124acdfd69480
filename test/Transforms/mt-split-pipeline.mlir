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

// A value from before the stack used after it (a skip connection) crosses
// every boundary between: with the stack's activation, packed into one flat
// tensor (the embedding first, in the model's order) and unpacked again.
// CHECK-LABEL: func.func @skip_stage0(
// CHECK-SAME: -> tensor<128xf32>
// CHECK: %[[E:.*]] = mt.embedding
// CHECK: %[[S:.*]] = mt.layer_stack (%{{.*}} = %[[E]] : tensor<2x4x8xf32>)
// CHECK: %[[FE:.*]] = mt.reshape %[[E]] : tensor<2x4x8xf32> -> tensor<64xf32>
// CHECK: %[[FS:.*]] = mt.reshape %[[S]] : tensor<2x4x8xf32> -> tensor<64xf32>
// CHECK: %[[P:.*]] = mt.concat %[[FE]], %[[FS]] {dim = 0 : i64} : tensor<64xf32>, tensor<64xf32> -> tensor<128xf32>
// CHECK: return %[[P]] : tensor<128xf32>
// CHECK-LABEL: func.func @skip_stage1(
// CHECK-SAME: %[[IN:[[:alnum:]_]+]]: tensor<128xf32> {mt.stage_input}
// CHECK: %[[PARTS:.*]]:2 = mt.split %[[IN]] {dim = 0 : i64, sizes = array<i64: 64, 64>} : tensor<128xf32> -> tensor<64xf32>, tensor<64xf32>
// CHECK: %[[E1:.*]] = mt.reshape %[[PARTS]]#0 : tensor<64xf32> -> tensor<2x4x8xf32>
// CHECK: %[[H1:.*]] = mt.reshape %[[PARTS]]#1 : tensor<64xf32> -> tensor<2x4x8xf32>
// CHECK: %[[S1:.*]] = mt.layer_stack (%{{.*}} = %[[H1]] : tensor<2x4x8xf32>)
// CHECK: mt.add %[[S1]], %[[E1]]
func.func @skip(%tokens: tensor<2x4xi32> {mt.batch = "tokens"}, %labels: tensor<2x4xi32> {mt.batch = "labels"},
                %wte: tensor<16x8xf32> {mt.param = #mt.param<name = "wte", init = normal, std = 0.02>},
                %g: tensor<2x8xf32> {mt.param = #mt.param<name = "h.g", init = ones>}) -> tensor<f32> {
  %e = mt.embedding %wte[%tokens] : tensor<16x8xf32>, tensor<2x4xi32> -> tensor<2x4x8xf32>
  %h = mt.layer_stack (%x = %e : tensor<2x4x8xf32>) layers (%gl = %g : tensor<2x8xf32>) -> tensor<2x4x8xf32> {
    %y = mt.mul %x, %gl : tensor<2x4x8xf32>, tensor<8xf32>
    mt.yield %y : tensor<2x4x8xf32>
  }
  %r = mt.add %h, %e : tensor<2x4x8xf32>, tensor<2x4x8xf32>
  %logits = mt.linear %r, %wte : tensor<2x4x8xf32>, tensor<16x8xf32> -> tensor<2x4x16xf32>
  %loss = mt.cross_entropy %logits, %labels : tensor<2x4x16xf32>, tensor<2x4xi32> -> tensor<f32>
  return %loss : tensor<f32>
}

// -----

// An encoder and a decoder stack (T5) on two stages, one each: the ops
// between the stacks (the encoder's final scaling, the decoder's embedding)
// go with the decoder, the encoder's output crosses as the stage's only
// activation; the decoder attends to it. A constant is cloned where used.
// CHECK-LABEL: func.func @encdec_stage0(
// CHECK-SAME: -> tensor<2x4x8xf32>
// CHECK: %[[ENC:.*]] = mt.layer_stack
// CHECK: return %[[ENC]] : tensor<2x4x8xf32>
// CHECK-LABEL: func.func @encdec_stage1(
// CHECK-SAME: %[[IN:[[:alnum:]_]+]]: tensor<2x4x8xf32> {mt.stage_input}
// CHECK-SAME: %[[D:[[:alnum:]_]+]]: tensor<2x8xf32> {mt.first_layer = 0 : i64, mt.param = #mt.param<name = "dec.g"
// CHECK: %[[C:.*]] = arith.constant
// CHECK: %[[EO:.*]] = mt.mul %[[IN]], %[[C]]
// CHECK: %[[Y:.*]] = mt.embedding
// CHECK: mt.layer_stack (%{{.*}} = %[[Y]] : tensor<2x4x8xf32>) layers (%{{.*}} = %[[D]] : tensor<2x8xf32>)
// CHECK: mt.add %{{.*}}, %[[EO]]
func.func @encdec(%tokens: tensor<2x4xi32> {mt.batch = "tokens"}, %labels: tensor<2x4xi32> {mt.batch = "labels"},
                  %wte: tensor<16x8xf32> {mt.param = #mt.param<name = "wte", init = normal, std = 0.02>},
                  %ge: tensor<2x8xf32> {mt.param = #mt.param<name = "enc.g", init = ones>},
                  %gd: tensor<2x8xf32> {mt.param = #mt.param<name = "dec.g", init = ones>}) -> tensor<f32> {
  %e = mt.embedding %wte[%tokens] : tensor<16x8xf32>, tensor<2x4xi32> -> tensor<2x4x8xf32>
  %h = mt.layer_stack (%x = %e : tensor<2x4x8xf32>) layers (%gl = %ge : tensor<2x8xf32>) -> tensor<2x4x8xf32> {
    %y = mt.mul %x, %gl : tensor<2x4x8xf32>, tensor<8xf32>
    mt.yield %y : tensor<2x4x8xf32>
  }
  %half = arith.constant dense<0.5> : tensor<f32>
  %encoded = mt.mul %h, %half : tensor<2x4x8xf32>, tensor<f32>
  %d = mt.embedding %wte[%labels] : tensor<16x8xf32>, tensor<2x4xi32> -> tensor<2x4x8xf32>
  %o = mt.layer_stack (%x = %d : tensor<2x4x8xf32>) layers (%gl = %gd : tensor<2x8xf32>) -> tensor<2x4x8xf32> {
    %y = mt.mul %x, %gl : tensor<2x4x8xf32>, tensor<8xf32>
    %z = mt.add %y, %encoded : tensor<2x4x8xf32>, tensor<2x4x8xf32>
    mt.yield %z : tensor<2x4x8xf32>
  }
  %logits = mt.linear %o, %wte : tensor<2x4x8xf32>, tensor<16x8xf32> -> tensor<2x4x16xf32>
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
