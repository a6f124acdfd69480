// RUN: mt-opt %s -split-input-file --mt-recompute-activations=all-gathers=true | FileCheck %s
// RUN: mt-opt %s -split-input-file --mt-recompute-activations | FileCheck %s --check-prefix=OFF
// RUN: mt-opt %s -split-input-file --mt-recompute-activations=granularity=selective | FileCheck %s --check-prefix=SEL
// RUN: mt-opt %s -split-input-file --mt-recompute-activations=granularity=full | FileCheck %s --check-prefix=FULL
// RUN: mt-opt %s -split-input-file --mt-recompute-activations="granularity=auto activation-budgets=12288" | FileCheck %s --check-prefix=AUTO
// RUN: mt-opt %s -split-input-file --mt-recompute-activations="granularity=auto activation-budgets=100000" | FileCheck %s --check-prefix=ROOM
// RUN: not mt-opt %s -split-input-file --mt-recompute-activations=granularity=auto 2>&1 | FileCheck %s --check-prefix=NOBUDGET
// NOBUDGET: error: mt-recompute-activations: granularity=auto needs activation-budgets

// The gathered input of a column-parallel linear is read by the backward's
// weight gradient. The pass gathers again right before that read, so the
// forward's gathered tensor dies in the forward and only the piece is kept.
mt.mesh @mesh axes = ["tp"] shape = [2]
// CHECK-LABEL: func.func @m_grad
// CHECK-SAME: (%[[X:.*]]: tensor<2x4x8xf32>, %[[W:.*]]: tensor<4x8xf32>, %[[DY:.*]]: tensor<2x8x4xf32>)
// CHECK-NEXT: %[[G:.*]] = mt.all_gather %[[X]] on @mesh axes = ["tp"] dim = 1 : tensor<2x4x8xf32> -> tensor<2x8x8xf32>
// CHECK-NEXT: %[[Y:.*]] = mt.linear %[[G]], %[[W]]
// CHECK-NEXT: %[[A:.*]] = mt.reshape %[[DY]] {mt.backward}
// CHECK-NEXT: %[[G2:.*]] = mt.all_gather %[[X]] on @mesh axes = ["tp"] dim = 1 {mt.backward, mt.recomputed} : tensor<2x4x8xf32> -> tensor<2x8x8xf32>
// CHECK-NEXT: %[[B:.*]] = mt.reshape %[[G2]] {mt.backward}
// CHECK-NEXT: %[[DW:.*]] = mt.matmul %[[A]], %[[B]] {mt.backward, transpose_lhs}
// CHECK-NEXT: return %[[Y]], %[[DW]]
// OFF-LABEL: func.func @m_grad
// OFF-COUNT-1: mt.all_gather
// OFF-NOT: mt.all_gather
func.func @m_grad(%x: tensor<2x4x8xf32>, %w: tensor<4x8xf32>, %dy: tensor<2x8x4xf32>) -> (tensor<2x8x4xf32>, tensor<4x8xf32>) attributes {mt.gradient_of = @m} {
  %g = mt.all_gather %x on @mesh axes = ["tp"] dim = 1 : tensor<2x4x8xf32> -> tensor<2x8x8xf32>
  %y = mt.linear %g, %w : tensor<2x8x8xf32>, tensor<4x8xf32> -> tensor<2x8x4xf32>
  %a = mt.reshape %dy {mt.backward} : tensor<2x8x4xf32> -> tensor<16x4xf32>
  %b = mt.reshape %g {mt.backward} : tensor<2x8x8xf32> -> tensor<16x8xf32>
  %dw = mt.matmul %a, %b {mt.backward, transpose_lhs} : tensor<16x4xf32>, tensor<16x8xf32> -> tensor<4x8xf32>
  return %y, %dw : tensor<2x8x4xf32>, tensor<4x8xf32>
}

// -----

// 16-bit activations with fp32 collectives: the linear reads a convert of
// the gathered tensor, and the backward reads that convert. The gather and
// its convert are recomputed together, so neither is kept.
mt.mesh @mesh axes = ["tp"] shape = [2]
// CHECK-LABEL: func.func @m16_grad
// OFF-LABEL: func.func @m16_grad
// CHECK-SAME: (%[[X:.*]]: tensor<2x4x8xf32>, %[[W:.*]]: tensor<4x8xbf16>, %[[DY:.*]]: tensor<2x8x4xbf16>)
// CHECK-NEXT: %[[G:.*]] = mt.all_gather %[[X]] on @mesh axes = ["tp"] dim = 1 : tensor<2x4x8xf32> -> tensor<2x8x8xf32>
// CHECK-NEXT: %[[C:.*]] = mt.convert %[[G]] : tensor<2x8x8xf32> -> tensor<2x8x8xbf16>
// CHECK-NEXT: %[[Y:.*]] = mt.linear %[[C]], %[[W]]
// CHECK-NEXT: %[[A:.*]] = mt.reshape %[[DY]] {mt.backward}
// CHECK-NEXT: %[[G2:.*]] = mt.all_gather %[[X]] on @mesh axes = ["tp"] dim = 1 {mt.backward, mt.recomputed} : tensor<2x4x8xf32> -> tensor<2x8x8xf32>
// CHECK-NEXT: %[[C2:.*]] = mt.convert %[[G2]] {mt.backward, mt.recomputed} : tensor<2x8x8xf32> -> tensor<2x8x8xbf16>
// CHECK-NEXT: %[[B:.*]] = mt.reshape %[[C2]] {mt.backward}
// CHECK-NEXT: %[[DW:.*]] = mt.matmul %[[A]], %[[B]] {mt.backward, transpose_lhs}
// CHECK-NEXT: return %[[Y]], %[[DW]]
func.func @m16_grad(%x: tensor<2x4x8xf32>, %w: tensor<4x8xbf16>, %dy: tensor<2x8x4xbf16>) -> (tensor<2x8x4xbf16>, tensor<4x8xf32>) attributes {mt.gradient_of = @m16} {
  %g = mt.all_gather %x on @mesh axes = ["tp"] dim = 1 : tensor<2x4x8xf32> -> tensor<2x8x8xf32>
  %c = mt.convert %g : tensor<2x8x8xf32> -> tensor<2x8x8xbf16>
  %y = mt.linear %c, %w : tensor<2x8x8xbf16>, tensor<4x8xbf16> -> tensor<2x8x4xbf16>
  %a = mt.reshape %dy {mt.backward} : tensor<2x8x4xbf16> -> tensor<16x4xbf16>
  %b = mt.reshape %c {mt.backward} : tensor<2x8x8xbf16> -> tensor<16x8xbf16>
  %dw = mt.matmul %a, %b {mt.backward, transpose_lhs} : tensor<16x4xbf16>, tensor<16x8xbf16> -> tensor<4x8xf32>
  return %y, %dw : tensor<2x8x4xbf16>, tensor<4x8xf32>
}

// -----

// Selective: the attention core (scores, softmax, context) is recomputed
// right before the layer's first backward reader, which then reads the
// clones; the context's clone is not read and is dropped. Only q, k and v
// stay alive into the backward.
// SEL-LABEL: func.func @attn_grad
// SEL-SAME: (%[[Q:.*]]: tensor<1x2x3x2xf32>, %[[K:.*]]: tensor<1x2x3x2xf32>, %[[V:.*]]: tensor<1x2x3x2xf32>, %[[DC:.*]]: tensor<1x2x3x2xf32>)
// SEL-NEXT: %[[S:.*]] = mt.attention_scores %[[Q]], %[[K]] {mt.layer = 0 : i64}
// SEL-NEXT: %[[P:.*]] = mt.softmax %[[S]]
// SEL-NEXT: %[[C:.*]] = mt.attention_context %[[P]], %[[V]]
// SEL-NEXT: %[[S2:.*]] = mt.attention_scores %[[Q]], %[[K]] {mt.backward, mt.layer = 0 : i64, mt.recomputed}
// SEL-NEXT: %[[P2:.*]] = mt.softmax %[[S2]] {mt.backward, mt.layer = 0 : i64, {{.*}}mt.recomputed
// SEL-NEXT: %[[DV:.*]] = mt.attention_kv_grad %[[P2]], %[[DC]]
// SEL-NEXT: %[[DP:.*]] = mt.attention_scores %[[DC]], %[[V]]
// SEL-NEXT: %[[DS:.*]] = mt.softmax_grad %[[DP]], %[[P2]]
// SEL-NEXT: return %[[C]], %[[DV]], %[[DS]]
// FULL-LABEL: func.func @attn_grad
// FULL: mt.attention_context
// FULL-NEXT: mt.attention_scores {{.*}}mt.backward
// FULL-NEXT: mt.softmax {{.*}}mt.backward
// FULL-NEXT: mt.attention_kv_grad
// OFF-LABEL: func.func @attn_grad
// OFF-COUNT-2: mt.attention_scores
// OFF-NOT: mt.attention_scores
func.func @attn_grad(%q: tensor<1x2x3x2xf32>, %k: tensor<1x2x3x2xf32>, %v: tensor<1x2x3x2xf32>, %dc: tensor<1x2x3x2xf32>) -> (tensor<1x2x3x2xf32>, tensor<1x2x3x2xf32>, tensor<1x2x3x3xf32>) attributes {mt.gradient_of = @attn} {
  %s = mt.attention_scores %q, %k {mt.layer = 0 : i64} : tensor<1x2x3x2xf32>, tensor<1x2x3x2xf32> -> tensor<1x2x3x3xf32>
  %p = mt.softmax %s {mt.layer = 0 : i64, scale = 0.5 : f64} : tensor<1x2x3x3xf32>
  %c = mt.attention_context %p, %v {mt.layer = 0 : i64} : tensor<1x2x3x3xf32>, tensor<1x2x3x2xf32> -> tensor<1x2x3x2xf32>
  %dv = mt.attention_kv_grad %p, %dc {mt.backward, mt.layer = 0 : i64} : tensor<1x2x3x3xf32>, tensor<1x2x3x2xf32> -> tensor<1x2x3x2xf32>
  %dp = mt.attention_scores %dc, %v {mt.backward, mt.layer = 0 : i64} : tensor<1x2x3x2xf32>, tensor<1x2x3x2xf32> -> tensor<1x2x3x3xf32>
  %ds = mt.softmax_grad %dp, %p {mt.backward, mt.layer = 0 : i64, scale = 0.5 : f64} : tensor<1x2x3x3xf32>
  return %c, %dv, %ds : tensor<1x2x3x2xf32>, tensor<1x2x3x2xf32>, tensor<1x2x3x3xf32>
}

// -----

// granularity=auto: h1, h2 and h3 (4096 bytes each) are kept for the
// backward and the step peaks at 16384 bytes. Under 12288 the cheapest plan
// computes the two GeLUs (1024 operations each) again right before their
// readers and keeps h2, whose linear costs 131072.
// AUTO-LABEL: func.func @c_grad
// AUTO-SAME: (%[[X:.*]]: tensor<16x64xf32>, %[[W:.*]]: tensor<64x64xf32>, %[[DY:.*]]: tensor<16x64xf32>)
// AUTO-SAME: mt.recompute_plan = {budget = 12288 : i64, cuts = {{[0-9]+}} : i64, fits = true, flops = 2048 : i64, peak = 12288 : i64}
// AUTO-NEXT: %[[H1:.*]] = mt.gelu %[[X]]
// AUTO-NEXT: %[[H2:.*]] = mt.linear %[[H1]], %[[W]]
// AUTO-NEXT: %[[H3:.*]] = mt.gelu %[[H2]]
// AUTO-NEXT: %[[Y:.*]] = mt.linear %[[H3]], %[[W]]
// AUTO-NEXT: %[[D3:.*]] = mt.matmul %[[DY]], %[[W]]
// AUTO-NEXT: %[[R3:.*]] = mt.gelu %[[H2]] approximate = none {mt.backward, mt.layer = 0 : i64, mt.recomputed}
// AUTO-NEXT: %[[DW2:.*]] = mt.matmul %[[DY]], %[[R3]]
// AUTO-NEXT: %[[D2:.*]] = mt.gelu_grad %[[D3]], %[[H2]]
// AUTO-NEXT: %[[D1:.*]] = mt.matmul %[[D2]], %[[W]]
// AUTO-NEXT: %[[R1:.*]] = mt.gelu %[[X]] approximate = none {mt.backward, mt.layer = 0 : i64, mt.recomputed}
// AUTO-NEXT: %[[DW1:.*]] = mt.matmul %[[D2]], %[[R1]]
// AUTO-NEXT: %[[DX:.*]] = mt.gelu_grad %[[D1]], %[[X]]
// AUTO-NEXT: return %[[Y]], %[[DX]], %[[DW1]], %[[DW2]]
// With room for everything nothing is recomputed.
// ROOM-LABEL: func.func @c_grad
// ROOM-SAME: mt.recompute_plan = {budget = 100000 : i64, cuts = {{[0-9]+}} : i64, fits = true, flops = 0 : i64, peak = 16384 : i64}
// ROOM-NOT: mt.recomputed
func.func @c_grad(%x: tensor<16x64xf32>, %w: tensor<64x64xf32>, %dy: tensor<16x64xf32>) -> (tensor<16x64xf32>, tensor<16x64xf32>, tensor<64x64xf32>, tensor<64x64xf32>) attributes {mt.gradient_of = @c} {
  %h1 = mt.gelu %x approximate = none {mt.layer = 0 : i64} : tensor<16x64xf32>
  %h2 = mt.linear %h1, %w {mt.layer = 0 : i64} : tensor<16x64xf32>, tensor<64x64xf32> -> tensor<16x64xf32>
  %h3 = mt.gelu %h2 approximate = none {mt.layer = 0 : i64} : tensor<16x64xf32>
  %y = mt.linear %h3, %w {mt.layer = 0 : i64} : tensor<16x64xf32>, tensor<64x64xf32> -> tensor<16x64xf32>
  %d3 = mt.matmul %dy, %w {mt.backward, mt.layer = 0 : i64} : tensor<16x64xf32>, tensor<64x64xf32> -> tensor<16x64xf32>
  %dw2 = mt.matmul %dy, %h3 {mt.backward, mt.layer = 0 : i64, transpose_lhs} : tensor<16x64xf32>, tensor<16x64xf32> -> tensor<64x64xf32>
  %d2 = mt.gelu_grad %d3, %h2 approximate = none {mt.backward, mt.layer = 0 : i64} : tensor<16x64xf32>
  %d1 = mt.matmul %d2, %w {mt.backward, mt.layer = 0 : i64} : tensor<16x64xf32>, tensor<64x64xf32> -> tensor<16x64xf32>
  %dw1 = mt.matmul %d2, %h1 {mt.backward, mt.layer = 0 : i64, transpose_lhs} : tensor<16x64xf32>, tensor<16x64xf32> -> tensor<64x64xf32>
  %dx = mt.gelu_grad %d1, %x approximate = none {mt.backward, mt.layer = 0 : i64} : tensor<16x64xf32>
  return %y, %dx, %dw1, %dw2 : tensor<16x64xf32>, tensor<16x64xf32>, tensor<64x64xf32>, tensor<64x64xf32>
}
