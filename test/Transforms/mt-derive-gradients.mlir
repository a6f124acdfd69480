// RUN: mt-opt %s -split-input-file -mt-derive-gradients -verify-diagnostics | FileCheck %s

// Linear with bias into cross-entropy: dlogits, then dW = dy^T x, db = sum dy.
// The input batch gets no gradient.
// CHECK-LABEL: func.func @linear_grad
// CHECK-SAME: (%[[W:.*]]: tensor<4x8xf32> {{.*}}, %[[B:.*]]: tensor<4xf32> {{.*}}, %[[X:.*]]: tensor<2x8xf32>, %[[L:.*]]: tensor<2xi32>) -> (tensor<f32>, tensor<4x8xf32> {mt.grad_of = "w"}, tensor<4xf32> {mt.grad_of = "b"}) attributes {mt.gradient_of = @linear}
// CHECK: %[[Y:.*]] = mt.linear %[[X]], %[[W]], %[[B]]
// CHECK: %[[LOSS:.*]] = mt.cross_entropy %[[Y]], %[[L]]
// CHECK: %[[ONE:.*]] = arith.constant {{.*}}dense<1.000000e+00>{{.*}}: tensor<f32>
// CHECK: %[[DY:.*]] = mt.cross_entropy_grad %[[ONE]], %[[Y]], %[[L]]
// CHECK-NOT: mt.matmul %[[DY]], %[[W]]
// CHECK: %[[DW:.*]] = mt.matmul %[[DY]], %[[X]] {{.*}}transpose_lhs}{{.*}}: tensor<2x4xf32>, tensor<2x8xf32> -> tensor<4x8xf32>
// CHECK: %[[DB:.*]] = mt.sum_to %[[DY]]{{.*}}: tensor<2x4xf32> -> tensor<4xf32>
// CHECK: return %[[LOSS]], %[[DW]], %[[DB]]
func.func @linear(%w: tensor<4x8xf32> {mt.param = #mt.param<name = "w", init = normal, std = 0.02>},
                  %b: tensor<4xf32> {mt.param = #mt.param<name = "b", init = zeros>},
                  %x: tensor<2x8xf32>, %labels: tensor<2xi32>) -> tensor<f32> {
  %y = mt.linear %x, %w, %b : tensor<2x8xf32>, tensor<4x8xf32>, tensor<4xf32> -> tensor<2x4xf32>
  %loss = mt.cross_entropy %y, %labels : tensor<2x4xf32>, tensor<2xi32> -> tensor<f32>
  return %loss : tensor<f32>
}

// -----

// Embedding, position embedding with broadcast add, layer norm, GeLU, a
// value used twice (residual): its adjoints are summed.
// CHECK-LABEL: func.func @embed_grad
// CHECK-SAME: (%[[WTE:.*]]: tensor<10x4xf32> {{.*}}, %[[WPE:.*]]: tensor<8x4xf32> {{.*}}, %[[G:.*]]: tensor<4xf32> {{.*}}, %[[BETA:.*]]: tensor<4xf32> {{.*}}, %[[T:.*]]: tensor<2x3xi32>)
// CHECK: %[[E:.*]] = mt.embedding %[[WTE]][%[[T]]]
// CHECK: %[[P:.*]] = mt.position_embedding %[[WPE]] for %[[T]]
// CHECK: %[[H:.*]] = mt.add %[[E]], %[[P]]
// CHECK: %[[N:.*]] = mt.layer_norm %[[H]], %[[G]], %[[BETA]]
// CHECK: %[[A:.*]] = mt.gelu %[[N]] approximate = tanh
// CHECK: %[[R:.*]] = mt.add %[[H]], %[[A]]
// CHECK: %[[DLOG:.*]] = mt.cross_entropy_grad
// CHECK: %[[DR:.*]] = mt.matmul %[[DLOG]], %[[WTE]]{{.*}}: tensor<2x3x10xf32>, tensor<10x4xf32> -> tensor<2x3x4xf32>
// CHECK: %[[DA:.*]] = mt.gelu_grad %[[DR]], %[[N]] approximate = tanh
// CHECK: %[[DH:.*]], %[[DG:.*]], %[[DBETA:.*]] = mt.layer_norm_grad %[[DA]], %[[H]], %[[G]] {{.*}}epsilon = 1.000000e-05 : f64
// CHECK: %[[DHSUM:.*]] = mt.add %[[DR]], %[[DH]]
// CHECK: %[[DP:.*]] = mt.sum_to %[[DHSUM]]{{.*}}: tensor<2x3x4xf32> -> tensor<3x4xf32>
// CHECK: %[[DWPE:.*]] = mt.position_embedding_grad %[[DP]]{{.*}}: tensor<3x4xf32> -> tensor<8x4xf32>
// CHECK: %[[DE:.*]] = mt.embedding_grad %[[DHSUM]][%[[T]]]{{.*}}: tensor<2x3x4xf32>, tensor<2x3xi32> -> tensor<10x4xf32>
// CHECK: %[[DWTE:.*]] = mt.add %{{.*}}, %[[DE]]{{.*}}: tensor<10x4xf32>, tensor<10x4xf32>
// CHECK: return %{{.*}}, %[[DWTE]], %[[DWPE]], %[[DG]], %[[DBETA]]
func.func @embed(%wte: tensor<10x4xf32> {mt.param = #mt.param<name = "wte", init = normal, std = 0.02>},
                 %wpe: tensor<8x4xf32> {mt.param = #mt.param<name = "wpe", init = normal, std = 0.02>},
                 %g: tensor<4xf32> {mt.param = #mt.param<name = "g", init = ones>},
                 %beta: tensor<4xf32> {mt.param = #mt.param<name = "beta", init = zeros>},
                 %tokens: tensor<2x3xi32>) -> tensor<f32> {
  %e = mt.embedding %wte[%tokens] : tensor<10x4xf32>, tensor<2x3xi32> -> tensor<2x3x4xf32>
  %p = mt.position_embedding %wpe for %tokens : tensor<8x4xf32>, tensor<2x3xi32> -> tensor<3x4xf32>
  %h = mt.add %e, %p : tensor<2x3x4xf32>, tensor<3x4xf32>
  %n = mt.layer_norm %h, %g, %beta {epsilon = 1.0e-5 : f64} : tensor<2x3x4xf32>, tensor<4xf32>
  %a = mt.gelu %n approximate = tanh : tensor<2x3x4xf32>
  %r = mt.add %h, %a : tensor<2x3x4xf32>, tensor<2x3x4xf32>
  %logits = mt.linear %r, %wte : tensor<2x3x4xf32>, tensor<10x4xf32> -> tensor<2x3x10xf32>
  %loss = mt.cross_entropy %logits, %tokens : tensor<2x3x10xf32>, tensor<2x3xi32> -> tensor<f32>
  return %loss : tensor<f32>
}

// -----

// Attention with grouped-query heads, rotary positions, causal softmax and
// dropout: the VJPs reuse forward ops (context for dq, scores for dprobs,
// the same dropout key, the inverse rotation).
// CHECK-LABEL: func.func @attention_grad
// CHECK: %[[QH:.*]] = mt.split_heads %{{.*}} {{.*}}num_heads = 4 : i64
// CHECK: %[[KH:.*]] = mt.split_heads %{{.*}} {{.*}}num_heads = 2 : i64
// CHECK: %[[QR:.*]] = mt.rotary %[[QH]]
// CHECK: %[[S:.*]] = mt.attention_scores %[[QR]], %[[KH]]
// CHECK: %[[P:.*]] = mt.softmax %[[S]] {{.*}}mask = #mt<mask causal>, scale = 5.000000e-01 : f64
// CHECK: %[[PD:.*]] = mt.dropout %[[P]] {{.*}}rate = 1.000000e-01 : f64, stream = 5 : i64
// CHECK: %[[C:.*]] = mt.attention_context %[[PD]], %[[KH]]
// CHECK: %[[DCH:.*]] = mt.split_heads %{{.*}} {{.*}}num_heads = 4 : i64{{.*}}: tensor<1x3x8xf32> -> tensor<1x4x3x2xf32>
// CHECK-DAG: %[[DPD:.*]] = mt.attention_scores %[[DCH]], %[[KH]]{{.*}}: tensor<1x4x3x2xf32>, tensor<1x2x3x2xf32> -> tensor<1x4x3x3xf32>
// CHECK-DAG: %[[DV:.*]] = mt.attention_kv_grad %[[PD]], %[[DCH]]{{.*}}: tensor<1x4x3x3xf32>, tensor<1x4x3x2xf32> -> tensor<1x2x3x2xf32>
// CHECK: %[[DP:.*]] = mt.dropout %[[DPD]] {{.*}}rate = 1.000000e-01 : f64, stream = 5 : i64
// CHECK: %[[DS:.*]] = mt.softmax_grad %[[DP]], %[[P]] {{.*}}scale = 5.000000e-01 : f64
// CHECK-DAG: %[[DQR:.*]] = mt.attention_context %[[DS]], %[[KH]]
// CHECK-DAG: %[[DK:.*]] = mt.attention_kv_grad %[[DS]], %[[QR]]{{.*}}: tensor<1x4x3x3xf32>, tensor<1x4x3x2xf32> -> tensor<1x2x3x2xf32>
// CHECK: %[[DKV:.*]] = mt.add %[[DV]], %[[DK]]
// CHECK: mt.rotary %[[DQR]] {inverse{{.*}}: tensor<1x4x3x2xf32>
// CHECK: mt.merge_heads %[[DKV]]{{.*}}: tensor<1x2x3x2xf32> -> tensor<1x3x4xf32>
func.func @attention(%wq: tensor<8x8xf32> {mt.param = #mt.param<name = "wq", init = normal, std = 0.02>},
                     %wk: tensor<4x8xf32> {mt.param = #mt.param<name = "wk", init = normal, std = 0.02>},
                     %x: tensor<1x3x8xf32>, %labels: tensor<1x3xi32>) -> tensor<f32> {
  %q = mt.linear %x, %wq : tensor<1x3x8xf32>, tensor<8x8xf32> -> tensor<1x3x8xf32>
  %k = mt.linear %x, %wk : tensor<1x3x8xf32>, tensor<4x8xf32> -> tensor<1x3x4xf32>
  %qh = mt.split_heads %q {num_heads = 4 : i64} : tensor<1x3x8xf32> -> tensor<1x4x3x2xf32>
  %kh = mt.split_heads %k {num_heads = 2 : i64} : tensor<1x3x4xf32> -> tensor<1x2x3x2xf32>
  %qr = mt.rotary %qh : tensor<1x4x3x2xf32>
  %s = mt.attention_scores %qr, %kh : tensor<1x4x3x2xf32>, tensor<1x2x3x2xf32> -> tensor<1x4x3x3xf32>
  %p = mt.softmax %s {mask = #mt<mask causal>, scale = 0.5 : f64} : tensor<1x4x3x3xf32>
  %pd = mt.dropout %p {rate = 0.1 : f64, stream = 5 : i64} : tensor<1x4x3x3xf32>
  %c = mt.attention_context %pd, %kh : tensor<1x4x3x3xf32>, tensor<1x2x3x2xf32> -> tensor<1x4x3x2xf32>
  %m = mt.merge_heads %c : tensor<1x4x3x2xf32> -> tensor<1x3x8xf32>
  %loss = mt.cross_entropy %m, %labels : tensor<1x3x8xf32>, tensor<1x3xi32> -> tensor<f32>
  return %loss : tensor<f32>
}

// -----

// Stacked weights: per-layer slices' adjoints are stacked back; a layer
// that does not use its slice contributes zeros; split's unused piece too.
// CHECK-LABEL: func.func @layers_grad
// CHECK-DAG: %[[ZERO:.*]] = mt.zeros{{.*}}: tensor<2x2xf32>
// CHECK-DAG: %[[CAT:.*]] = mt.concat %{{.*}}, %[[ZERO]] {{.*}}dim = 1 : i64{{.*}}: tensor<2x2xf32>, tensor<2x2xf32> -> tensor<2x4xf32>
// CHECK: %[[D1:.*]] = mt.sum_to %{{.*}}{{.*}}: tensor<2x4xf32> -> tensor<4xf32>
// CHECK: %[[D0:.*]] = mt.sum_to %{{.*}}{{.*}}: tensor<2x4xf32> -> tensor<4xf32>
// CHECK: %[[STACK:.*]] = mt.stack_layers %[[D0]], %[[D1]]{{.*}}: tensor<4xf32>, tensor<4xf32> -> tensor<2x4xf32>
// CHECK: return %{{.*}}, %[[STACK]]
func.func @layers(%g: tensor<2x4xf32> {mt.param = #mt.param<name = "g", init = ones>},
                  %x: tensor<2x4xf32>, %labels: tensor<2xi32>) -> tensor<f32> {
  %g0 = mt.slice_layer %g {layer = 0 : i64} : tensor<2x4xf32> -> tensor<4xf32>
  %h0 = mt.mul %x, %g0 : tensor<2x4xf32>, tensor<4xf32>
  %g1 = mt.slice_layer %g {layer = 1 : i64} : tensor<2x4xf32> -> tensor<4xf32>
  %h1 = mt.mul %h0, %g1 : tensor<2x4xf32>, tensor<4xf32>
  %a, %b = mt.split %h1 {dim = 1 : i64, sizes = array<i64: 2, 2>} : tensor<2x4xf32> -> tensor<2x2xf32>, tensor<2x2xf32>
  %loss = mt.cross_entropy %a, %labels : tensor<2x2xf32>, tensor<2xi32> -> tensor<f32>
  return %loss : tensor<f32>
}

// -----

// Preconditions and unsupported ops are reported, not mis-differentiated.
func.func @dynamic(%w: tensor<4x8xf32> {mt.param = #mt.param<name = "w", init = zeros>},
                   %x: tensor<?x8xf32>, %labels: tensor<?xi32>) -> tensor<f32> {
  // expected-error @+1 {{mt-derive-gradients: run mt-specialize-shapes first}}
  %y = mt.linear %x, %w : tensor<?x8xf32>, tensor<4x8xf32> -> tensor<?x4xf32>
  %loss = mt.cross_entropy %y, %labels : tensor<?x4xf32>, tensor<?xi32> -> tensor<f32>
  return %loss : tensor<f32>
}

// -----

mt.mesh @mesh axes = ["tp"] shape = [2]
func.func @collective(%w: tensor<4x8xf32> {mt.param = #mt.param<name = "w", init = zeros>},
                      %x: tensor<2x8xf32>, %labels: tensor<2xi32>) -> tensor<f32> {
  %y = mt.linear %x, %w : tensor<2x8xf32>, tensor<4x8xf32> -> tensor<2x4xf32>
  // expected-error @+1 {{mt-derive-gradients: only a sum all-reduce is differentiable}}
  %r = mt.all_reduce %y on @mesh axes = ["tp"] reduction = max : tensor<2x4xf32>
  %loss = mt.cross_entropy %r, %labels : tensor<2x4xf32>, tensor<2xi32> -> tensor<f32>
  return %loss : tensor<f32>
}

// -----

// A pipeline stage before the last returns its activation: its gradient
// function takes the activation's cotangent (mt.cotangent) as the seed, and
// also returns the cotangent of its stage input (for the previous stage),
// and the stage's output again (mt.stage_output, for mt-split-stage-step).
// CHECK-LABEL: func.func @stage_grad(
// CHECK-SAME: %[[IN:[[:alnum:]_]+]]: tensor<2x4xf32> {mt.stage_input}
// CHECK-SAME: %[[W:[[:alnum:]_]+]]: tensor<4xf32> {mt.param
// CHECK-SAME: %[[DY:[[:alnum:]_]+]]: tensor<2x4xf32> {mt.cotangent}
// CHECK-SAME: -> (tensor<4xf32> {mt.grad_of = "w"}, tensor<2x4xf32> {mt.stage_input_grad}, tensor<2x4xf32> {mt.stage_output})
// CHECK: %[[Y:.*]] = mt.mul %[[IN]], %[[W]]
// CHECK-DAG: %[[DX:.*]] = mt.mul %[[DY]], %[[W]]
// CHECK-DAG: %[[P:.*]] = mt.mul %[[DY]], %[[IN]]
// CHECK: %[[DW:.*]] = mt.sum_to %[[P]]
// CHECK: return %[[DW]], %[[DX]], %[[Y]]
func.func @stage(%x: tensor<2x4xf32> {mt.stage_input},
                 %w: tensor<4xf32> {mt.param = #mt.param<name = "w", init = ones>}) -> tensor<2x4xf32> {
  %y = mt.mul %x, %w : tensor<2x4xf32>, tensor<4xf32>
  return %y : tensor<2x4xf32>
}

// -----

// Collectives' vector-Jacobian products (tensor parallelism): mt.vary's is a
// sum all-reduce (Megatron's f), a sum all-reduce's is the identity (g), and
// all-gather and reduce-scatter swap.
mt.mesh @mesh axes = ["tp"] shape = [2]
// CHECK-LABEL: func.func @tp_region_grad
// CHECK-SAME: (%[[W:.*]]: tensor<4x8xf32> {{.*}}, %[[X:.*]]: tensor<2x8xf32> {{.*}}, %[[L:.*]]: tensor<2xi32>)
// CHECK: %[[XV:.*]] = mt.vary %[[X]]
// CHECK: %[[R:.*]] = mt.all_reduce %{{.*}} on @mesh axes = ["tp"] reduction = sum
// CHECK: %[[DR:.*]] = mt.cross_entropy_grad %{{.*}}, %[[R]], %[[L]]
// CHECK: %[[DG:.*]] = mt.all_gather %[[DR]] on @mesh axes = ["tp"] dim = 0{{.*}}: tensor<2x4xf32> -> tensor<4x4xf32>
// CHECK: %[[DY:.*]] = mt.reduce_scatter %[[DG]] on @mesh axes = ["tp"] dim = 0 reduction = sum{{.*}}: tensor<4x4xf32> -> tensor<2x4xf32>
// CHECK: %[[DXV:.*]] = mt.matmul %[[DY]], %[[W]]
// CHECK: %[[DW:.*]] = mt.matmul %[[DY]], %[[XV]] {{.*}}transpose_lhs}
// CHECK: %[[DX:.*]] = mt.all_reduce %[[DXV]] on @mesh axes = ["tp"] reduction = sum{{.*}}: tensor<2x8xf32>
// CHECK: return %{{.*}}, %[[DW]], %[[DX]]
func.func @tp_region(%w: tensor<4x8xf32> {mt.param = #mt.param<name = "w", init = zeros>},
                     %x: tensor<2x8xf32> {mt.param = #mt.param<name = "x", init = zeros>}, %labels: tensor<2xi32>) -> tensor<f32> {
  %xv = mt.vary %x on @mesh axes = ["tp"] : tensor<2x8xf32>
  %y = mt.linear %xv, %w : tensor<2x8xf32>, tensor<4x8xf32> -> tensor<2x4xf32>
  %g = mt.all_gather %y on @mesh axes = ["tp"] dim = 0 : tensor<2x4xf32> -> tensor<4x4xf32>
  %s = mt.reduce_scatter %g on @mesh axes = ["tp"] dim = 0 reduction = sum : tensor<4x4xf32> -> tensor<2x4xf32>
  %r = mt.all_reduce %s on @mesh axes = ["tp"] reduction = sum : tensor<2x4xf32>
  %loss = mt.cross_entropy %r, %labels : tensor<2x4xf32>, tensor<2xi32> -> tensor<f32>
  return %loss : tensor<f32>
}

// -----

// fp16's loss scale: the backward starts from the mt.batch = "loss_scale"
// argument instead of 1, and converts carry the gradient back to the fp32
// parameter.
// CHECK-LABEL: func.func @scaled_grad
// CHECK-SAME: (%[[W:.*]]: tensor<4x8xf32> {{.*}}, %[[X:.*]]: tensor<2x8xf16>, %[[L:.*]]: tensor<2xi32>, %[[S:.*]]: tensor<f32> {mt.batch = "loss_scale"})
// CHECK: %[[W16:.*]] = mt.convert %[[W]] : tensor<4x8xf32> -> tensor<4x8xf16>
// CHECK: %[[LOSS:.*]] = mt.cross_entropy
// CHECK-NOT: arith.constant
// CHECK: %[[DY:.*]] = mt.cross_entropy_grad %[[S]],
// CHECK: %[[DW16:.*]] = mt.matmul
// CHECK: %[[DW:.*]] = mt.convert %[[DW16]] {mt.backward} : tensor<4x8xf16> -> tensor<4x8xf32>
// CHECK: return %[[LOSS]], %[[DW]]
func.func @scaled(%w: tensor<4x8xf32> {mt.param = #mt.param<name = "w", init = normal, std = 0.02>},
                  %x: tensor<2x8xf16>, %labels: tensor<2xi32>,
                  %scale: tensor<f32> {mt.batch = "loss_scale"}) -> tensor<f32> {
  %w16 = mt.convert %w : tensor<4x8xf32> -> tensor<4x8xf16>
  %y = mt.linear %x, %w16 : tensor<2x8xf16>, tensor<4x8xf16> -> tensor<2x4xf16>
  %y32 = mt.convert %y : tensor<2x4xf16> -> tensor<2x4xf32>
  %loss = mt.cross_entropy %y32, %labels : tensor<2x4xf32>, tensor<2xi32> -> tensor<f32>
  return %loss : tensor<f32>
}

// -----

// A metric after the loss (mt.metric) passes through to the gradient
// function, after the loss and before the gradients, undifferentiated: only
// the loss seeds the backward.
// CHECK-LABEL: func.func @metric_grad
// CHECK-SAME: -> (tensor<f32>, tensor<f32> {mt.metric = "part"}, tensor<4x8xf32> {mt.grad_of = "w"})
// CHECK: %[[PART:.*]] = mt.cross_entropy
// CHECK: %[[LOSS:.*]] = mt.add %[[PART]], %[[PART]]
// CHECK: return %[[LOSS]], %[[PART]], %{{.*}} : tensor<f32>, tensor<f32>, tensor<4x8xf32>
func.func @metric(%w: tensor<4x8xf32> {mt.param = #mt.param<name = "w", init = normal, std = 0.02>},
                  %x: tensor<2x8xf32>, %labels: tensor<2xi32>) -> (tensor<f32>, tensor<f32> {mt.metric = "part"}) {
  %y = mt.linear %x, %w : tensor<2x8xf32>, tensor<4x8xf32> -> tensor<2x4xf32>
  %part = mt.cross_entropy %y, %labels : tensor<2x4xf32>, tensor<2xi32> -> tensor<f32>
  %loss = mt.add %part, %part : tensor<f32>, tensor<f32>
  return %loss, %part : tensor<f32>, tensor<f32>
}

// -----

// A relative position bias at a run-time position (mt-build-inference's)
// is for inference: it has no gradient.
func.func @bias_at_position(%t: tensor<32x2xf32> {mt.param = #mt.param<name = "t", init = zeros>},
                            %x: tensor<1x2x1x4xf32>, %pos: tensor<i64>, %labels: tensor<1xi32>) -> tensor<f32> {
  // expected-error @+1 {{a bias at a run-time position is for inference: it has no gradient}}
  %b = mt.relative_position_bias %x, %t position %pos : tensor<i64> : tensor<1x2x1x4xf32>, tensor<32x2xf32>
  %r = mt.reshape %b : tensor<1x2x1x4xf32> -> tensor<1x8xf32>
  %loss = mt.cross_entropy %r, %labels : tensor<1x8xf32>, tensor<1xi32> -> tensor<f32>
  return %loss : tensor<f32>
}
