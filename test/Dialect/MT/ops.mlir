// Every mt op and attribute prints, parses back and prints the same.
// RUN: mt-opt %s | mt-opt | FileCheck %s
// RUN: mt-opt %s --mlir-print-op-generic | mt-opt | FileCheck %s

// CHECK: mt.mesh @mesh axes = ["dp", "pp", "tp"] shape = [2, 2, 2]
mt.mesh @mesh axes = ["dp", "pp", "tp"] shape = [2, 2, 2]

// CHECK-LABEL: func.func @embeddings
// CHECK-SAME: (%[[TABLE:.*]]: tensor<100x8xf32> {mt.param = #mt.param<name = "wte", init = normal, std = 2.000000e-02>}, %[[POS:.*]]: tensor<16x8xf32> {mt.param = #mt.param<name = "wpe", init = zeros>}, %[[IDS:.*]]: tensor<2x16xi32>)
func.func @embeddings(%table: tensor<100x8xf32> {mt.param = #mt.param<name = "wte", init = normal, std = 0.02>},
                      %pos: tensor<16x8xf32> {mt.param = #mt.param<name = "wpe", init = zeros>},
                      %ids: tensor<2x16xi32>) -> tensor<2x16x8xf32> {
  // CHECK: %[[E:.*]] = mt.embedding %[[TABLE]][%[[IDS]]] : tensor<100x8xf32>, tensor<2x16xi32> -> tensor<2x16x8xf32>
  %e = mt.embedding %table[%ids] : tensor<100x8xf32>, tensor<2x16xi32> -> tensor<2x16x8xf32>
  // CHECK: %[[P:.*]] = mt.position_embedding %[[POS]] for %[[IDS]] : tensor<16x8xf32>, tensor<2x16xi32> -> tensor<16x8xf32>
  %p = mt.position_embedding %pos for %ids : tensor<16x8xf32>, tensor<2x16xi32> -> tensor<16x8xf32>
  // CHECK: %[[S:.*]] = mt.add %[[E]], %[[P]] : tensor<2x16x8xf32>, tensor<16x8xf32>
  %s = mt.add %e, %p : tensor<2x16x8xf32>, tensor<16x8xf32>
  // CHECK: mt.mul %[[S]], %[[S]] : tensor<2x16x8xf32>, tensor<2x16x8xf32>
  %m = mt.mul %s, %s : tensor<2x16x8xf32>, tensor<2x16x8xf32>
  return %m : tensor<2x16x8xf32>
}

// CHECK-LABEL: func.func @dense
func.func @dense(%x: tensor<2x16x8xf32>, %w: tensor<24x8xf32>, %b: tensor<24xf32>,
                 %a: tensor<4x16x32xf32>, %c: tensor<4x8x32xf32>) -> (tensor<2x16x24xf32>, tensor<4x16x8xf32>) {
  // CHECK: %[[Y:.*]] = mt.linear %{{.*}}, %{{.*}}, %{{.*}} : tensor<2x16x8xf32>, tensor<24x8xf32>, tensor<24xf32> -> tensor<2x16x24xf32>
  %y = mt.linear %x, %w, %b : tensor<2x16x8xf32>, tensor<24x8xf32>, tensor<24xf32> -> tensor<2x16x24xf32>
  // CHECK: mt.linear %{{.*}}, %{{.*}} : tensor<2x16x8xf32>, tensor<24x8xf32> -> tensor<2x16x24xf32>
  %z = mt.linear %x, %w : tensor<2x16x8xf32>, tensor<24x8xf32> -> tensor<2x16x24xf32>
  // CHECK: mt.split %[[Y]] {dim = 2 : i64, sizes = array<i64: 8, 16>} : tensor<2x16x24xf32> -> tensor<2x16x8xf32>, tensor<2x16x16xf32>
  %p:2 = mt.split %y {dim = 2 : i64, sizes = array<i64: 8, 16>} : tensor<2x16x24xf32> -> tensor<2x16x8xf32>, tensor<2x16x16xf32>
  // CHECK: mt.matmul %{{.*}}, %{{.*}} {transpose_rhs} : tensor<4x16x32xf32>, tensor<4x8x32xf32> -> tensor<4x16x8xf32>
  %mm = mt.matmul %a, %c {transpose_rhs} : tensor<4x16x32xf32>, tensor<4x8x32xf32> -> tensor<4x16x8xf32>
  // CHECK: mt.matmul %{{.*}}, %{{.*}} plus %[[MM:.*]] : tensor<4x16x8xf32> {transpose_rhs} : tensor<4x16x32xf32>, tensor<4x8x32xf32> -> tensor<4x16x8xf32>
  %acc = mt.matmul %a, %c plus %mm : tensor<4x16x8xf32> {transpose_rhs} : tensor<4x16x32xf32>, tensor<4x8x32xf32> -> tensor<4x16x8xf32>
  return %z, %acc : tensor<2x16x24xf32>, tensor<4x16x8xf32>
}

// CHECK-LABEL: func.func @norms_and_activations
func.func @norms_and_activations(%x: tensor<2x16x8xbf16>, %g: tensor<8xbf16>, %b: tensor<8xbf16>,
                                 %seed: tensor<i64>) -> tensor<2x16x8xbf16> {
  // CHECK: %[[LN:.*]] = mt.layer_norm %{{.*}}, %{{.*}}, %{{.*}} {epsilon = 1.000000e-05 : f64} : tensor<2x16x8xbf16>, tensor<8xbf16>
  %ln = mt.layer_norm %x, %g, %b {epsilon = 1.0e-5 : f64} : tensor<2x16x8xbf16>, tensor<8xbf16>
  // CHECK: %[[SUM:.*]], %[[ALN:.*]] = mt.add_layer_norm %[[LN]], %{{.*}}, %{{.*}}, %{{.*}} {epsilon = 1.000000e-05 : f64} : tensor<2x16x8xbf16>, tensor<8xbf16>
  %sum, %aln = mt.add_layer_norm %ln, %x, %g, %b {epsilon = 1.0e-5 : f64} : tensor<2x16x8xbf16>, tensor<8xbf16>
  // CHECK: %[[RMS:.*]] = mt.rms_norm %[[LN]], %{{.*}} {epsilon = 9.9999999999999995E-7 : f64} : tensor<2x16x8xbf16>, tensor<8xbf16>
  %rms = mt.rms_norm %ln, %g {epsilon = 1.0e-6 : f64} : tensor<2x16x8xbf16>, tensor<8xbf16>
  // CHECK: %[[G1:.*]] = mt.gelu %[[RMS]] approximate = tanh : tensor<2x16x8xbf16>
  %g1 = mt.gelu %rms approximate = tanh : tensor<2x16x8xbf16>
  // CHECK: %[[S1:.*]] = mt.silu %[[G1]] : tensor<2x16x8xbf16>
  %s1 = mt.silu %g1 : tensor<2x16x8xbf16>
  // CHECK: mt.silu_grad %[[S1]], %[[G1]] : tensor<2x16x8xbf16>
  %s1g = mt.silu_grad %s1, %g1 : tensor<2x16x8xbf16>
  // CHECK: %[[T1:.*]] = mt.tanh %[[G1]] : tensor<2x16x8xbf16>
  %t1 = mt.tanh %g1 : tensor<2x16x8xbf16>
  // CHECK: mt.tanh_grad %[[T1]], %[[G1]] : tensor<2x16x8xbf16>
  %t1g = mt.tanh_grad %t1, %g1 : tensor<2x16x8xbf16>
  // CHECK: %[[R1:.*]] = mt.relu %[[G1]] : tensor<2x16x8xbf16>
  %r1 = mt.relu %g1 : tensor<2x16x8xbf16>
  // CHECK: mt.relu_grad %[[R1]], %[[G1]] : tensor<2x16x8xbf16>
  %r1g = mt.relu_grad %r1, %g1 : tensor<2x16x8xbf16>
  // CHECK: mt.bias_gelu %[[G1]], %{{.*}} approximate = tanh : tensor<2x16x8xbf16>, tensor<8xbf16>
  %bg = mt.bias_gelu %g1, %b approximate = tanh : tensor<2x16x8xbf16>, tensor<8xbf16>
  // CHECK: mt.bias_gelu_grad %[[G1]], %[[G1]], %{{.*}} approximate = none : tensor<2x16x8xbf16>, tensor<8xbf16>
  %bgg = mt.bias_gelu_grad %g1, %g1, %b approximate = none : tensor<2x16x8xbf16>, tensor<8xbf16>
  // CHECK: mt.bias_dropout_add %[[G1]], %{{.*}}, %[[G1]] seed %{{.*}} : tensor<i64> {rate = 1.000000e-01 : f64, stream = 3 : i64} : tensor<2x16x8xbf16>, tensor<8xbf16>
  %bda = mt.bias_dropout_add %g1, %b, %g1 seed %seed : tensor<i64> {rate = 0.1 : f64, stream = 3 : i64} : tensor<2x16x8xbf16>, tensor<8xbf16>
  // CHECK: %[[G2:.*]] = mt.gelu %[[G1]] approximate = none : tensor<2x16x8xbf16>
  %g2 = mt.gelu %g1 approximate = none : tensor<2x16x8xbf16>
  // CHECK: %[[D1:.*]] = mt.dropout %[[G2]] {rate = 1.000000e-01 : f64, stream = 0 : i64} : tensor<2x16x8xbf16>
  %d1 = mt.dropout %g2 {rate = 0.1 : f64, stream = 0 : i64} : tensor<2x16x8xbf16>
  // CHECK: %[[D2:.*]] = mt.dropout %[[D1]] seed %{{.*}} : tensor<i64> {rate = 2.000000e-01 : f64, stream = 1 : i64} : tensor<2x16x8xbf16>
  %d2 = mt.dropout %d1 seed %seed : tensor<i64> {rate = 0.2 : f64, stream = 1 : i64} : tensor<2x16x8xbf16>
  // CHECK: %[[M:.*]] = mt.dropout_mask seed %{{.*}} : tensor<i64> {layer = 1 : i64, rate = 1.000000e-01 : f64, stream = 2 : i64} : tensor<2x16x8xi1>
  %mask = mt.dropout_mask seed %seed : tensor<i64> {layer = 1 : i64, rate = 0.1 : f64, stream = 2 : i64} : tensor<2x16x8xi1>
  // CHECK: mt.masked_scale %[[D2]], %[[M]] {scale = 1.250000e+00 : f64} : tensor<2x16x8xbf16>, tensor<2x16x8xi1>
  %ms = mt.masked_scale %d2, %mask {scale = 1.25 : f64} : tensor<2x16x8xbf16>, tensor<2x16x8xi1>
  // CHECK: mt.dropout %[[D2]] {layer = 3 : i64, rate = 1.000000e-01 : f64, stream = 0 : i64} : tensor<2x16x8xbf16>
  %d3 = mt.dropout %d2 {rate = 0.1 : f64, stream = 0 : i64, layer = 3 : i64} : tensor<2x16x8xbf16>
  return %d3 : tensor<2x16x8xbf16>
}

// CHECK-LABEL: func.func @attention
func.func @attention(%q: tensor<2x8x16x4xf32>, %k: tensor<2x2x16x4xf32>, %v: tensor<2x2x16x4xf32>,
                     %keep: tensor<2x16xi1>) -> tensor<2x16x32xf32> {
  // CHECK: %[[QR:.*]] = mt.rotary %{{.*}} : tensor<2x8x16x4xf32>
  %qr = mt.rotary %q {base = 10000.0 : f64} : tensor<2x8x16x4xf32>
  // CHECK: %[[KR:.*]] = mt.rotary %{{.*}} {position_offset = 3 : i64, rotary_dim = 2 : i64} : tensor<2x2x16x4xf32>
  %kr = mt.rotary %k {rotary_dim = 2 : i64, position_offset = 3 : i64} : tensor<2x2x16x4xf32>
  // CHECK: mt.rotary %[[KR]] {inverse, position_offset = 3 : i64, rotary_dim = 2 : i64} : tensor<2x2x16x4xf32>
  %kinv = mt.rotary %kr {inverse, rotary_dim = 2 : i64, position_offset = 3 : i64} : tensor<2x2x16x4xf32>
  // CHECK: %[[S:.*]] = mt.attention_scores %[[QR]], %[[KR]] : tensor<2x8x16x4xf32>, tensor<2x2x16x4xf32> -> tensor<2x8x16x16xf32>
  %s = mt.attention_scores %qr, %kr : tensor<2x8x16x4xf32>, tensor<2x2x16x4xf32> -> tensor<2x8x16x16xf32>
  // CHECK: %[[A:.*]] = mt.alibi %[[S]] {num_heads = 8 : i64} : tensor<2x8x16x16xf32>
  %a = mt.alibi %s {num_heads = 8 : i64} : tensor<2x8x16x16xf32>
  // CHECK: %[[P:.*]] = mt.softmax %[[A]] key_mask %{{.*}} : tensor<2x16xi1> {mask = #mt<mask causal>, scale = 5.000000e-01 : f64} : tensor<2x8x16x16xf32>
  %p = mt.softmax %a key_mask %keep : tensor<2x16xi1> {mask = #mt<mask causal>, scale = 0.5 : f64} : tensor<2x8x16x16xf32>
  // CHECK: mt.softmax %[[P]] : tensor<2x8x16x16xf32>
  %p2 = mt.softmax %p : tensor<2x8x16x16xf32>
  // CHECK: %[[LP:.*]] = mt.log_softmax %[[A]] : tensor<2x8x16x16xf32>
  %lp = mt.log_softmax %a : tensor<2x8x16x16xf32>
  // CHECK: mt.log_softmax_grad %[[P]], %[[LP]] : tensor<2x8x16x16xf32>
  %dlp = mt.log_softmax_grad %p, %lp : tensor<2x8x16x16xf32>
  // CHECK: %[[C:.*]] = mt.attention_context %{{.*}}, %{{.*}} : tensor<2x8x16x16xf32>, tensor<2x2x16x4xf32> -> tensor<2x8x16x4xf32>
  %c = mt.attention_context %p2, %v : tensor<2x8x16x16xf32>, tensor<2x2x16x4xf32> -> tensor<2x8x16x4xf32>
  // CHECK: %[[M:.*]] = mt.merge_heads %[[C]] : tensor<2x8x16x4xf32> -> tensor<2x16x32xf32>
  %m = mt.merge_heads %c : tensor<2x8x16x4xf32> -> tensor<2x16x32xf32>
  // CHECK: mt.split_heads %[[M]] {num_heads = 8 : i64} : tensor<2x16x32xf32> -> tensor<2x8x16x4xf32>
  %h = mt.split_heads %m {num_heads = 8 : i64} : tensor<2x16x32xf32> -> tensor<2x8x16x4xf32>
  return %m : tensor<2x16x32xf32>
}

// CHECK-LABEL: func.func @loss
func.func @loss(%logits: tensor<2x16x100xf32>, %labels: tensor<2x16xi64>, %mask: tensor<2x16xf32>) -> (tensor<f32>, tensor<f32>) {
  // CHECK: mt.cross_entropy %{{.*}}, %{{.*}} mask %{{.*}} : tensor<2x16x100xf32>, tensor<2x16xi64>, tensor<2x16xf32> -> tensor<f32>
  %l = mt.cross_entropy %logits, %labels mask %mask : tensor<2x16x100xf32>, tensor<2x16xi64>, tensor<2x16xf32> -> tensor<f32>
  // CHECK: mt.cross_entropy %{{.*}}, %{{.*}} {num_classes = 97 : i64} : tensor<2x16x100xf32>, tensor<2x16xi64> -> tensor<f32>
  %l2 = mt.cross_entropy %logits, %labels {num_classes = 97 : i64} : tensor<2x16x100xf32>, tensor<2x16xi64> -> tensor<f32>
  // CHECK: mt.accuracy %{{.*}}, %{{.*}} mask %{{.*}} {num_classes = 97 : i64} : tensor<2x16x100xf32>, tensor<2x16xi64>, tensor<2x16xf32> -> tensor<f32>
  %acc = mt.accuracy %logits, %labels mask %mask {num_classes = 97 : i64} : tensor<2x16x100xf32>, tensor<2x16xi64>, tensor<2x16xf32> -> tensor<f32>
  return %l, %l2 : tensor<f32>, tensor<f32>
}

// CHECK-LABEL: func.func @fused_loss
func.func @fused_loss(%d: tensor<f32>, %logits: tensor<2x16x100xbf16>, %labels: tensor<2x16xi64>, %mask: tensor<2x16xf32>) -> (tensor<f32>, tensor<2x16x100xbf16>) {
  // CHECK: %{{.*}}, %{{.*}} = mt.fused_cross_entropy %{{.*}}, %{{.*}}, %{{.*}} mask %{{.*}} {num_classes = 97 : i64} : tensor<f32>, tensor<2x16x100xbf16>, tensor<2x16xi64>, tensor<2x16xf32> -> tensor<f32>, tensor<2x16x100xbf16>
  %l, %g = mt.fused_cross_entropy %d, %logits, %labels mask %mask {num_classes = 97 : i64} : tensor<f32>, tensor<2x16x100xbf16>, tensor<2x16xi64>, tensor<2x16xf32> -> tensor<f32>, tensor<2x16x100xbf16>
  return %l, %g : tensor<f32>, tensor<2x16x100xbf16>
}

// CHECK-LABEL: func.func @layers
func.func @layers(%x: tensor<?x?x8xf32>, %g: tensor<3x8xf32>, %b: tensor<3x8xf32>) -> tensor<?x?x8xf32> {
  // CHECK: %[[OUT:.*]] = mt.layer_stack (%[[H:.*]] = %{{.*}} : tensor<?x?x8xf32>) layers (%[[GL:.*]] = %{{.*}} : tensor<3x8xf32>, %[[BL:.*]] = %{{.*}} : tensor<3x8xf32>) -> tensor<?x?x8xf32> {
  // CHECK-NEXT: %[[Y:.*]] = mt.layer_norm %[[H]], %[[GL]], %[[BL]]
  // CHECK-NEXT: mt.yield %[[Y]] : tensor<?x?x8xf32>
  // CHECK-NEXT: }
  %out = mt.layer_stack (%h = %x : tensor<?x?x8xf32>) layers (%gl = %g : tensor<3x8xf32>, %bl = %b : tensor<3x8xf32>) -> tensor<?x?x8xf32> {
    %y = mt.layer_norm %h, %gl, %bl {epsilon = 1.0e-5 : f64} : tensor<?x?x8xf32>, tensor<8xf32>
    mt.yield %y : tensor<?x?x8xf32>
  }
  return %out : tensor<?x?x8xf32>
}

// CHECK-LABEL: func.func @collectives
func.func @collectives(%x: tensor<4x16x8xf32>) -> tensor<4x16x8xf32> {
  // CHECK: %[[S:.*]] = mt.shard %{{.*}} : tensor<4x16x8xf32> to #mt.sharding<@mesh, [dp, _, tp]>
  %s = mt.shard %x : tensor<4x16x8xf32> to #mt.sharding<@mesh, [dp, _, tp]>
  // CHECK: mt.shard %[[S]] : tensor<4x16x8xf32> to #mt.sharding<@mesh, [{dp, pp}, _, _], partial = [tp]>
  %s2 = mt.shard %s : tensor<4x16x8xf32> to #mt.sharding<@mesh, [{dp, pp}, _, _], partial = [tp]>
  // CHECK: %[[R:.*]] = mt.all_reduce %{{.*}} on @mesh axes = ["tp"] reduction = sum : tensor<4x16x8xf32>
  %r = mt.all_reduce %s2 on @mesh axes = ["tp"] reduction = sum : tensor<4x16x8xf32>
  // CHECK: %[[RS:.*]] = mt.reduce_scatter %[[R]] on @mesh axes = ["tp"] dim = 1 reduction = sum : tensor<4x16x8xf32> -> tensor<4x8x8xf32>
  %rs = mt.reduce_scatter %r on @mesh axes = ["tp"] dim = 1 reduction = sum : tensor<4x16x8xf32> -> tensor<4x8x8xf32>
  // CHECK: %[[AG:.*]] = mt.all_gather %[[RS]] on @mesh axes = ["tp"] dim = 1 : tensor<4x8x8xf32> -> tensor<4x16x8xf32>
  %ag = mt.all_gather %rs on @mesh axes = ["tp"] dim = 1 : tensor<4x8x8xf32> -> tensor<4x16x8xf32>
  // CHECK: %[[AGW:.*]] = mt.collective_wait %[[AG]] : tensor<4x16x8xf32>
  %agw = mt.collective_wait %ag : tensor<4x16x8xf32>
  // CHECK: mt.all_reduce %[[AGW]] on @mesh axes = ["dp", "pp"] reduction = max : tensor<4x16x8xf32>
  %mx = mt.all_reduce %agw on @mesh axes = ["dp", "pp"] reduction = max : tensor<4x16x8xf32>
  // CHECK: mt.send %{{.*}} on @mesh axis = "pp" offset = 1 channel = 0 : tensor<4x16x8xf32>
  mt.send %mx on @mesh axis = "pp" offset = 1 channel = 0 : tensor<4x16x8xf32>
  // CHECK: mt.recv on @mesh axis = "pp" offset = -1 channel = 0 : tensor<4x16x8xf32>
  %in = mt.recv on @mesh axis = "pp" offset = -1 channel = 0 : tensor<4x16x8xf32>
  return %in : tensor<4x16x8xf32>
}

// CHECK-LABEL: func.func @tensor_ops
// CHECK-SAME: (%[[X:.*]]: tensor<2x16x8xf32>, %[[Y:.*]]: tensor<2x16x4xf32>, %[[W:.*]]: tensor<3x8x8xf32>)
func.func @tensor_ops(%x: tensor<2x16x8xf32>, %y: tensor<2x16x4xf32>, %w: tensor<3x8x8xf32>)
    -> (tensor<8xf32>, tensor<32x8xf32>, tensor<2x16x12xf32>, tensor<8xf32>, tensor<3x8x8xf32>) {
  // CHECK: %[[Z:.*]] = mt.zeros : tensor<8xf32>
  %z = mt.zeros : tensor<8xf32>
  // CHECK: %[[R:.*]] = mt.reshape %[[X]] : tensor<2x16x8xf32> -> tensor<32x8xf32>
  %r = mt.reshape %x : tensor<2x16x8xf32> -> tensor<32x8xf32>
  // CHECK: %[[C:.*]] = mt.concat %[[X]], %[[Y]] {dim = 2 : i64} : tensor<2x16x8xf32>, tensor<2x16x4xf32> -> tensor<2x16x12xf32>
  %c = mt.concat %x, %y {dim = 2 : i64} : tensor<2x16x8xf32>, tensor<2x16x4xf32> -> tensor<2x16x12xf32>
  // CHECK: %[[S:.*]] = mt.sum_to %[[X]] : tensor<2x16x8xf32> -> tensor<8xf32>
  %s = mt.sum_to %x : tensor<2x16x8xf32> -> tensor<8xf32>
  // CHECK: %[[L0:.*]] = mt.slice_layer %[[W]] {layer = 0 : i64} : tensor<3x8x8xf32> -> tensor<8x8xf32>
  %l0 = mt.slice_layer %w {layer = 0 : i64} : tensor<3x8x8xf32> -> tensor<8x8xf32>
  // CHECK: %[[L2:.*]] = mt.slice_layer %[[W]] {layer = 2 : i64} : tensor<3x8x8xf32> -> tensor<8x8xf32>
  %l2 = mt.slice_layer %w {layer = 2 : i64} : tensor<3x8x8xf32> -> tensor<8x8xf32>
  // CHECK: %[[ST:.*]] = mt.stack_layers %[[L0]], %[[L2]], %[[L0]] : tensor<8x8xf32>, tensor<8x8xf32>, tensor<8x8xf32> -> tensor<3x8x8xf32>
  %st = mt.stack_layers %l0, %l2, %l0 : tensor<8x8xf32>, tensor<8x8xf32>, tensor<8x8xf32> -> tensor<3x8x8xf32>
  // CHECK: %[[IN:.*]] = mt.insert_layer %[[L2]] into %[[ST]] {layer = 1 : i64} : tensor<8x8xf32> into tensor<3x8x8xf32>
  %in = mt.insert_layer %l2 into %st {layer = 1 : i64} : tensor<8x8xf32> into tensor<3x8x8xf32>
  // CHECK: return %[[Z]], %[[R]], %[[C]], %[[S]], %[[IN]]
  return %z, %r, %c, %s, %in : tensor<8xf32>, tensor<32x8xf32>, tensor<2x16x12xf32>, tensor<8xf32>, tensor<3x8x8xf32>
}

// CHECK-LABEL: func.func @embedding_grads
// CHECK-SAME: (%[[DE:.*]]: tensor<2x16x8xf32>, %[[IDS:.*]]: tensor<2x16xi32>, %[[DP:.*]]: tensor<16x8xf32>)
func.func @embedding_grads(%de: tensor<2x16x8xf32>, %ids: tensor<2x16xi32>, %dp: tensor<16x8xf32>)
    -> (tensor<100x8xf32>, tensor<32x8xf32>) {
  // CHECK: %[[DWTE:.*]] = mt.embedding_grad %[[DE]][%[[IDS]]] : tensor<2x16x8xf32>, tensor<2x16xi32> -> tensor<100x8xf32>
  %dwte = mt.embedding_grad %de[%ids] : tensor<2x16x8xf32>, tensor<2x16xi32> -> tensor<100x8xf32>
  // CHECK: %[[DWPE:.*]] = mt.position_embedding_grad %[[DP]] : tensor<16x8xf32> -> tensor<32x8xf32>
  %dwpe = mt.position_embedding_grad %dp : tensor<16x8xf32> -> tensor<32x8xf32>
  // CHECK: %[[ACC:.*]] = mt.embedding_grad %[[DE]][%[[IDS]]] plus %[[DWTE]] : tensor<100x8xf32> : tensor<2x16x8xf32>, tensor<2x16xi32> -> tensor<100x8xf32>
  %acc = mt.embedding_grad %de[%ids] plus %dwte : tensor<100x8xf32> : tensor<2x16x8xf32>, tensor<2x16xi32> -> tensor<100x8xf32>
  // CHECK: %[[ACC2:.*]] = mt.accumulate %[[DWTE]] into %[[ACC]] : tensor<100x8xf32>
  %acc2 = mt.accumulate %dwte into %acc : tensor<100x8xf32>
  // CHECK: return %[[ACC2]], %[[DWPE]]
  return %acc2, %dwpe : tensor<100x8xf32>, tensor<32x8xf32>
}

// CHECK-LABEL: func.func @gradient_ready
// CHECK-SAME: (%[[ACC:.*]]: tensor<2x8xf32>)
// CHECK: mt.gradient_ready %[[ACC]] {accumulator = 0 : i64, index = 0 : i64, layer = 1 : i64} : tensor<2x8xf32>
func.func @gradient_ready(%acc: tensor<2x8xf32>) {
  mt.gradient_ready %acc {accumulator = 0 : i64, index = 0 : i64, layer = 1 : i64} : tensor<2x8xf32>
  return
}

// CHECK-LABEL: func.func @norm_and_activation_grads
// CHECK-SAME: (%[[DY:.*]]: tensor<2x16x8xbf16>, %[[X:.*]]: tensor<2x16x8xbf16>, %[[G:.*]]: tensor<8xbf16>)
func.func @norm_and_activation_grads(%dy: tensor<2x16x8xbf16>, %x: tensor<2x16x8xbf16>, %g: tensor<8xbf16>)
    -> (tensor<2x16x8xbf16>, tensor<8xbf16>, tensor<8xbf16>, tensor<8xbf16>) {
  // CHECK: %[[DX:[[:alnum:]_]+]], %[[DG:[[:alnum:]_]+]], %[[DB:[[:alnum:]_]+]] = mt.layer_norm_grad %[[DY]], %[[X]], %[[G]] {epsilon = 1.000000e-05 : f64} : tensor<2x16x8xbf16>, tensor<8xbf16>
  %dx, %dg, %db = mt.layer_norm_grad %dy, %x, %g {epsilon = 1.0e-5 : f64} : tensor<2x16x8xbf16>, tensor<8xbf16>
  // CHECK: mt.layer_norm_grad %[[DY]], %[[X]], %[[G]] plus %[[DX]] : tensor<2x16x8xbf16> {epsilon = 1.000000e-05 : f64} : tensor<2x16x8xbf16>, tensor<8xbf16>
  %px, %pg, %pb = mt.layer_norm_grad %dy, %x, %g plus %dx : tensor<2x16x8xbf16> {epsilon = 1.0e-5 : f64} : tensor<2x16x8xbf16>, tensor<8xbf16>
  // CHECK: %[[RX:[[:alnum:]_]+]], %[[RG:[[:alnum:]_]+]] = mt.rms_norm_grad %[[DX]], %[[X]], %[[G]] {epsilon = 9.9999999999999995E-7 : f64} : tensor<2x16x8xbf16>, tensor<8xbf16>
  %rx, %rg = mt.rms_norm_grad %dx, %x, %g {epsilon = 1.0e-6 : f64} : tensor<2x16x8xbf16>, tensor<8xbf16>
  // CHECK: %[[GT:.*]] = mt.gelu_grad %[[RX]], %[[X]] approximate = tanh : tensor<2x16x8xbf16>
  %gt = mt.gelu_grad %rx, %x approximate = tanh : tensor<2x16x8xbf16>
  // CHECK: %[[GN:.*]] = mt.gelu_grad %[[GT]], %[[X]] approximate = none : tensor<2x16x8xbf16>
  %gn = mt.gelu_grad %gt, %x approximate = none : tensor<2x16x8xbf16>
  // CHECK: return %[[GN]], %[[DG]], %[[DB]], %[[RG]]
  return %gn, %dg, %db, %rg : tensor<2x16x8xbf16>, tensor<8xbf16>, tensor<8xbf16>, tensor<8xbf16>
}

// CHECK-LABEL: func.func @attention_and_loss_grads
// CHECK-SAME: (%[[DP:.*]]: tensor<2x8x16x16xf32>, %[[P:.*]]: tensor<2x8x16x16xf32>, %[[Q:.*]]: tensor<2x8x16x4xf32>, %[[DL:.*]]: tensor<f32>, %[[LOGITS:.*]]: tensor<2x16x100xf32>, %[[LABELS:.*]]: tensor<2x16xi64>, %[[MASK:.*]]: tensor<2x16xf32>)
func.func @attention_and_loss_grads(%dp: tensor<2x8x16x16xf32>, %p: tensor<2x8x16x16xf32>, %q: tensor<2x8x16x4xf32>,
                                    %dl: tensor<f32>, %logits: tensor<2x16x100xf32>, %labels: tensor<2x16xi64>,
                                    %mask: tensor<2x16xf32>)
    -> (tensor<2x2x16x4xf32>, tensor<2x16x100xf32>, tensor<2x16x100xf32>) {
  // CHECK: %[[DS:.*]] = mt.softmax_grad %[[DP]], %[[P]] : tensor<2x8x16x16xf32>
  %ds = mt.softmax_grad %dp, %p : tensor<2x8x16x16xf32>
  // CHECK: %[[DS2:.*]] = mt.softmax_grad %[[DS]], %[[P]] {scale = 5.000000e-01 : f64} : tensor<2x8x16x16xf32>
  %ds2 = mt.softmax_grad %ds, %p {scale = 0.5 : f64} : tensor<2x8x16x16xf32>
  // CHECK: %[[DK:.*]] = mt.attention_kv_grad %[[DS2]], %[[Q]] : tensor<2x8x16x16xf32>, tensor<2x8x16x4xf32> -> tensor<2x2x16x4xf32>
  %dk = mt.attention_kv_grad %ds2, %q : tensor<2x8x16x16xf32>, tensor<2x8x16x4xf32> -> tensor<2x2x16x4xf32>
  // CHECK: %[[CE:.*]] = mt.cross_entropy_grad %[[DL]], %[[LOGITS]], %[[LABELS]] mask %[[MASK]] : tensor<f32>, tensor<2x16x100xf32>, tensor<2x16xi64>, tensor<2x16xf32> -> tensor<2x16x100xf32>
  %ce = mt.cross_entropy_grad %dl, %logits, %labels mask %mask : tensor<f32>, tensor<2x16x100xf32>, tensor<2x16xi64>, tensor<2x16xf32> -> tensor<2x16x100xf32>
  // CHECK: %[[CE2:.*]] = mt.cross_entropy_grad %[[DL]], %[[LOGITS]], %[[LABELS]] {num_classes = 97 : i64} : tensor<f32>, tensor<2x16x100xf32>, tensor<2x16xi64> -> tensor<2x16x100xf32>
  %ce2 = mt.cross_entropy_grad %dl, %logits, %labels {num_classes = 97 : i64} : tensor<f32>, tensor<2x16x100xf32>, tensor<2x16xi64> -> tensor<2x16x100xf32>
  // CHECK: return %[[DK]], %[[CE]], %[[CE2]]
  return %dk, %ce, %ce2 : tensor<2x2x16x4xf32>, tensor<2x16x100xf32>, tensor<2x16x100xf32>
}

// CHECK-LABEL: func.func @optimizer
func.func @optimizer(%p: tensor<4x2xf32>, %g: tensor<4x2xf32>, %m: tensor<4x2xf32>, %v: tensor<4x2xf32>,
                     %h: tensor<8xf32>) -> tensor<4x2xf32> {
  // CHECK: %[[P:[[:alnum:]_]+]], %[[M:[[:alnum:]_]+]], %[[V:[[:alnum:]_]+]] = mt.adamw %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} {decay} : tensor<4x2xf32>, tensor<8xf32>
  %p2, %m2, %v2 = mt.adamw %p, %g, %m, %v, %h {decay} : tensor<4x2xf32>, tensor<8xf32>
  // CHECK: mt.adamw %[[P]], %{{.*}}, %[[M]], %[[V]], %{{.*}} : tensor<4x2xf32>, tensor<8xf32>
  %p3, %m3, %v3 = mt.adamw %p2, %g, %m2, %v2, %h : tensor<4x2xf32>, tensor<8xf32>
  return %p3 : tensor<4x2xf32>
}

// CHECK-LABEL: func.func @tensor_parallel
func.func @tensor_parallel(%x: tensor<2x4x8xf32>, %t: tensor<16x8xf32>, %ids: tensor<2x4xi32>,
                           %seed: tensor<i64>, %l: tensor<2x4x16xf32>, %m: tensor<2x4xf32>)
    -> (tensor<2x4x8xf32>, tensor<2x2x8xf32>, tensor<2x4x8xf32>, tensor<16x8xf32>, tensor<f32>, tensor<2x4x16xf32>, tensor<2x4x8xf32>) {
  // CHECK: %[[I:.*]] = mt.axis_index on @mesh axis = "tp" : tensor<i64>
  %i = mt.axis_index on @mesh axis = "tp" : tensor<i64>
  // CHECK: mt.vary %{{.*}} on @mesh axes = ["tp"] : tensor<2x4x8xf32>
  %v = mt.vary %x on @mesh axes = ["tp"] : tensor<2x4x8xf32>
  // CHECK: %[[P:.*]] = mt.shard_slice %{{.*}}[%[[I]] : tensor<i64>] dim = 1 parts = 2 : tensor<2x4x8xf32> -> tensor<2x2x8xf32>
  %p = mt.shard_slice %v[%i : tensor<i64>] dim = 1 parts = 2 : tensor<2x4x8xf32> -> tensor<2x2x8xf32>
  // CHECK: mt.shard_slice_grad %[[P]][%[[I]] : tensor<i64>] dim = 1 parts = 2 : tensor<2x2x8xf32> -> tensor<2x4x8xf32>
  %pg = mt.shard_slice_grad %p[%i : tensor<i64>] dim = 1 parts = 2 : tensor<2x2x8xf32> -> tensor<2x4x8xf32>
  // CHECK: mt.embedding %{{.*}}[%{{.*}}] shard %[[I]] : tensor<i64> : tensor<16x8xf32>, tensor<2x4xi32> -> tensor<2x4x8xf32>
  %e = mt.embedding %t[%ids] shard %i : tensor<i64> : tensor<16x8xf32>, tensor<2x4xi32> -> tensor<2x4x8xf32>
  // CHECK: mt.embedding_grad %{{.*}}[%{{.*}}] shard %[[I]] : tensor<i64> : tensor<2x4x8xf32>, tensor<2x4xi32> -> tensor<16x8xf32>
  %eg = mt.embedding_grad %e[%ids] shard %i : tensor<i64> : tensor<2x4x8xf32>, tensor<2x4xi32> -> tensor<16x8xf32>
  // CHECK: mt.dropout %{{.*}} seed %{{.*}} : tensor<i64> shard %[[I]] : tensor<i64> {rate = 1.000000e-01 : f64, shard_dim = 1 : i64, shard_parts = 2 : i64, stream = 0 : i64} : tensor<2x4x8xf32>
  %d = mt.dropout %x seed %seed : tensor<i64> shard %i : tensor<i64> {rate = 0.1 : f64, stream = 0 : i64, shard_dim = 1 : i64, shard_parts = 2 : i64} : tensor<2x4x8xf32>
  // CHECK: %[[MX:.*]] = mt.vocab_parallel_max %{{.*}}[%[[I]] : tensor<i64>] {num_classes = 30 : i64} : tensor<2x4x16xf32> -> tensor<2x4xf32>
  %mx = mt.vocab_parallel_max %l[%i : tensor<i64>] {num_classes = 30 : i64} : tensor<2x4x16xf32> -> tensor<2x4xf32>
  // CHECK: %[[SE:.*]], %[[LL:.*]] = mt.vocab_parallel_stats %{{.*}}[%[[I]] : tensor<i64>], %{{.*}}, %[[MX]] {num_classes = 30 : i64}
  %se, %ll = mt.vocab_parallel_stats %l[%i : tensor<i64>], %ids, %mx {num_classes = 30 : i64} : tensor<2x4x16xf32>, tensor<2x4xi32>, tensor<2x4xf32> -> tensor<2x4xf32>, tensor<2x4xf32>
  // CHECK: mt.cross_entropy_from_stats %[[SE]], %[[LL]], %[[MX]] mask %{{.*}} : tensor<2x4xf32> : tensor<2x4xf32>, tensor<2x4xf32>, tensor<2x4xf32> -> tensor<f32>
  %loss = mt.cross_entropy_from_stats %se, %ll, %mx mask %m : tensor<2x4xf32> : tensor<2x4xf32>, tensor<2x4xf32>, tensor<2x4xf32> -> tensor<f32>
  // CHECK: mt.accuracy_from_stats %[[LL]], %[[MX]] mask %{{.*}} : tensor<2x4xf32> : tensor<2x4xf32>, tensor<2x4xf32> -> tensor<f32>
  %acc = mt.accuracy_from_stats %ll, %mx mask %m : tensor<2x4xf32> : tensor<2x4xf32>, tensor<2x4xf32> -> tensor<f32>
  // CHECK: %[[DS:.*]], %[[DL:.*]] = mt.cross_entropy_from_stats_grad %{{.*}}, %[[SE]] mask %{{.*}} : tensor<2x4xf32> : tensor<f32>, tensor<2x4xf32> -> tensor<2x4xf32>, tensor<2x4xf32>
  %ds, %dl = mt.cross_entropy_from_stats_grad %loss, %se mask %m : tensor<2x4xf32> : tensor<f32>, tensor<2x4xf32> -> tensor<2x4xf32>, tensor<2x4xf32>
  // CHECK: mt.vocab_parallel_stats_grad %[[DS]], %[[DL]], %{{.*}}[%[[I]] : tensor<i64>], %{{.*}}, %[[MX]] {num_classes = 30 : i64}
  %dlog = mt.vocab_parallel_stats_grad %ds, %dl, %l[%i : tensor<i64>], %ids, %mx {num_classes = 30 : i64} : tensor<2x4xf32>, tensor<2x4xf32>, tensor<2x4x16xf32>, tensor<2x4xi32>, tensor<2x4xf32> -> tensor<2x4x16xf32>
  return %v, %p, %pg, %eg, %loss, %dlog, %d : tensor<2x4x8xf32>, tensor<2x2x8xf32>, tensor<2x4x8xf32>, tensor<16x8xf32>, tensor<f32>, tensor<2x4x16xf32>, tensor<2x4x8xf32>
}

// CHECK-LABEL: func.func @convert
// CHECK-SAME: (%[[W:.*]]: tensor<8x4xf32>)
func.func @convert(%w: tensor<8x4xf32>) -> tensor<8x4xf32> {
  // CHECK: %[[H:.*]] = mt.convert %[[W]] : tensor<8x4xf32> -> tensor<8x4xbf16>
  %h = mt.convert %w : tensor<8x4xf32> -> tensor<8x4xbf16>
  // CHECK: %[[F:.*]] = mt.convert %[[H]] : tensor<8x4xbf16> -> tensor<8x4xf32>
  %f = mt.convert %h : tensor<8x4xbf16> -> tensor<8x4xf32>
  return %f : tensor<8x4xf32>
}

// CHECK-LABEL: func.func @matmul_bf16_into_f32
func.func @matmul_bf16_into_f32(%a: tensor<16x8xbf16>, %b: tensor<16x4xbf16>, %acc: tensor<8x4xf32>) -> tensor<8x4xf32> {
  // CHECK: mt.matmul %{{.*}}, %{{.*}} plus %{{.*}} : tensor<8x4xf32> {transpose_lhs} : tensor<16x8xbf16>, tensor<16x4xbf16> -> tensor<8x4xf32>
  %c = mt.matmul %a, %b plus %acc : tensor<8x4xf32> {transpose_lhs} : tensor<16x8xbf16>, tensor<16x4xbf16> -> tensor<8x4xf32>
  return %c : tensor<8x4xf32>
}

// CHECK-LABEL: func.func @kv_cache
// CHECK-SAME: (%[[WPE:.*]]: tensor<32x8xf32>, %[[TOK:.*]]: tensor<2x1xi32>, %[[POS:.*]]: tensor<i64>, %[[Q:.*]]: tensor<2x4x1x2xf32>, %[[K:.*]]: tensor<2x4x1x2xf32>, %[[CACHE:.*]]: tensor<2x4x32x2xf32>)
func.func @kv_cache(%wpe: tensor<32x8xf32>, %tok: tensor<2x1xi32>, %pos: tensor<i64>,
                    %q: tensor<2x4x1x2xf32>, %k: tensor<2x4x1x2xf32>, %cache: tensor<2x4x32x2xf32>)
    -> (tensor<1x8xf32>, tensor<2x4x1x32xf32>) {
  // CHECK: %[[P:.*]] = mt.position_embedding %[[WPE]] for %[[TOK]] at %[[POS]] : tensor<i64> : tensor<32x8xf32>, tensor<2x1xi32> -> tensor<1x8xf32>
  %p = mt.position_embedding %wpe for %tok at %pos : tensor<i64> : tensor<32x8xf32>, tensor<2x1xi32> -> tensor<1x8xf32>
  // CHECK: %[[C:.*]] = mt.cache_insert %[[K]] into %[[CACHE]] at %[[POS]] : tensor<2x4x1x2xf32> into tensor<2x4x32x2xf32>, tensor<i64>
  %c = mt.cache_insert %k into %cache at %pos : tensor<2x4x1x2xf32> into tensor<2x4x32x2xf32>, tensor<i64>
  // CHECK: %[[S:.*]] = mt.attention_scores %[[Q]], %[[C]]
  %s = mt.attention_scores %q, %c : tensor<2x4x1x2xf32>, tensor<2x4x32x2xf32> -> tensor<2x4x1x32xf32>
  // CHECK: mt.rotary %[[K]] at %[[POS]] : tensor<i64> : tensor<2x4x1x2xf32>
  %kr = mt.rotary %k at %pos : tensor<i64> {base = 1.0e+04 : f64} : tensor<2x4x1x2xf32>
  // CHECK: %[[B:.*]] = mt.alibi %[[S]] position %[[POS]] : tensor<i64> {num_heads = 4 : i64} : tensor<2x4x1x32xf32>
  %b = mt.alibi %s position %pos : tensor<i64> {num_heads = 4 : i64} : tensor<2x4x1x32xf32>
  // CHECK: %[[BS:.*]] = mt.alibi %[[B]] shard %[[POS]] : tensor<i64> {num_heads = 8 : i64} : tensor<2x4x1x32xf32>
  %bs = mt.alibi %b shard %pos : tensor<i64> {num_heads = 8 : i64} : tensor<2x4x1x32xf32>
  // CHECK: mt.softmax %[[BS]] position %[[POS]] : tensor<i64> {mask = #mt<mask causal>} : tensor<2x4x1x32xf32>
  %w = mt.softmax %bs position %pos : tensor<i64> {mask = #mt<mask causal>} : tensor<2x4x1x32xf32>
  return %p, %w : tensor<1x8xf32>, tensor<2x4x1x32xf32>
}

// CHECK-LABEL: func.func @relative_position_bias
// CHECK-SAME: (%[[S:.*]]: tensor<2x8x16x16xf32>, %[[T:.*]]: tensor<32x8xf32>, %[[U:.*]]: tensor<16x8xf32>)
func.func @relative_position_bias(%s: tensor<2x8x16x16xf32>, %t: tensor<32x8xf32>, %u: tensor<16x8xf32>)
    -> (tensor<2x8x16x16xf32>, tensor<32x8xf32>) {
  // CHECK: %[[B:.*]] = mt.relative_position_bias %[[S]], %[[T]] {bidirectional} : tensor<2x8x16x16xf32>, tensor<32x8xf32>
  %b = mt.relative_position_bias %s, %t {bidirectional, max_distance = 128 : i64} : tensor<2x8x16x16xf32>, tensor<32x8xf32>
  // CHECK: %[[C:.*]] = mt.relative_position_bias %[[B]], %[[U]] {max_distance = 20 : i64} : tensor<2x8x16x16xf32>, tensor<16x8xf32>
  %c = mt.relative_position_bias %b, %u {max_distance = 20 : i64} : tensor<2x8x16x16xf32>, tensor<16x8xf32>
  // CHECK: %[[G:.*]] = mt.relative_position_bias_grad %[[C]] {bidirectional} : tensor<2x8x16x16xf32> -> tensor<32x8xf32>
  %g = mt.relative_position_bias_grad %c {bidirectional, max_distance = 128 : i64} : tensor<2x8x16x16xf32> -> tensor<32x8xf32>
  return %c, %g : tensor<2x8x16x16xf32>, tensor<32x8xf32>
}

// CHECK-LABEL: func.func @fused_attention
func.func @fused_attention(%q: tensor<2x8x16x4xf32>, %k: tensor<2x2x16x4xf32>, %v: tensor<2x2x16x4xf32>,
                           %keep: tensor<2x16xi1>, %seed: tensor<i64>, %r: tensor<i64>)
    -> (tensor<2x16x32xf32>, tensor<2x8x16x4xf32>, tensor<2x8x16x4xf32>) {
  // CHECK: %[[O:.*]], %[[L:.*]] = mt.fused_attention %{{.*}}, %{{.*}}, %{{.*}} key_mask %{{.*}} : tensor<2x16xi1> seed %{{.*}} : tensor<i64> shard %{{.*}} : tensor<i64> {block_keys = 4 : i64, layer = 2 : i64, mask = #mt<mask causal>, rate = 1.000000e-01 : f64, scale = 5.000000e-01 : f64, shard_dim = 1 : i64, shard_parts = 2 : i64, stream = 1 : i64} : tensor<2x8x16x4xf32>, tensor<2x2x16x4xf32>, tensor<2x2x16x4xf32> -> tensor<2x16x32xf32>, tensor<2x8x16xf32>
  %o, %lse = mt.fused_attention %q, %k, %v key_mask %keep : tensor<2x16xi1> seed %seed : tensor<i64> shard %r : tensor<i64> {scale = 0.5 : f64, mask = #mt<mask causal>, rate = 0.1 : f64, stream = 1 : i64, layer = 2 : i64, shard_dim = 1 : i64, shard_parts = 2 : i64, block_keys = 4 : i64} : tensor<2x8x16x4xf32>, tensor<2x2x16x4xf32>, tensor<2x2x16x4xf32> -> tensor<2x16x32xf32>, tensor<2x8x16xf32>
  // CHECK: mt.fused_attention_grad %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %[[O]], %[[L]] key_mask %{{.*}} : tensor<2x16xi1> seed %{{.*}} : tensor<i64> shard %{{.*}} : tensor<i64> {{{.*}}rate = 1.000000e-01 : f64{{.*}}} : tensor<2x16x32xf32>, tensor<2x8x16x4xf32>, tensor<2x2x16x4xf32>, tensor<2x2x16x4xf32>, tensor<2x8x16xf32>
  %dq, %dk, %dv = mt.fused_attention_grad %o, %q, %k, %v, %o, %lse key_mask %keep : tensor<2x16xi1> seed %seed : tensor<i64> shard %r : tensor<i64> {scale = 0.5 : f64, mask = #mt<mask causal>, rate = 0.1 : f64, stream = 1 : i64, layer = 2 : i64, shard_dim = 1 : i64, shard_parts = 2 : i64, block_keys = 4 : i64} : tensor<2x16x32xf32>, tensor<2x8x16x4xf32>, tensor<2x2x16x4xf32>, tensor<2x2x16x4xf32>, tensor<2x8x16xf32>
  // CHECK: %[[O2:.*]], %{{.*}} = mt.fused_attention %{{.*}}, %{{.*}}, %{{.*}} : tensor<2x8x16x4xf32>, tensor<2x2x16x4xf32>, tensor<2x2x16x4xf32> -> tensor<2x8x16x4xf32>, tensor<2x8x16xf32>
  %o2, %lse2 = mt.fused_attention %q, %k, %v : tensor<2x8x16x4xf32>, tensor<2x2x16x4xf32>, tensor<2x2x16x4xf32> -> tensor<2x8x16x4xf32>, tensor<2x8x16xf32>
  return %o, %dq, %o2 : tensor<2x16x32xf32>, tensor<2x8x16x4xf32>, tensor<2x8x16x4xf32>
}

// CHECK-LABEL: func.func @warp_task
func.func @warp_task(%a: vector<8xbf16>, %b: vector<4xbf16>, %c: vector<4xf32>, %n: index) -> vector<4xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  // CHECK: scf.for %[[TASK:.*]] = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%[[ACC:.*]] = %{{.*}})
  %r = scf.for %task = %c0 to %n step %c1 iter_args(%acc = %c) -> (vector<4xf32>) {
    // CHECK: %{{.*}} = mt.lane_id %[[TASK]]
    %lane = mt.lane_id %task
    // CHECK: %{{.*}} = mt.warp_mma %{{.*}}, %{{.*}}, %[[ACC]] {shape = array<i64: 16, 8, 16>} : vector<8xbf16>, vector<4xbf16>, vector<4xf32> -> vector<4xf32>
    %d = mt.warp_mma %a, %b, %acc {shape = array<i64: 16, 8, 16>} : vector<8xbf16>, vector<4xbf16>, vector<4xf32> -> vector<4xf32>
    scf.yield %d : vector<4xf32>
  } {mt.warp_tasks = 4 : i64}
  return %r : vector<4xf32>
}
