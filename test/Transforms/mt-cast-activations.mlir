// RUN: mt-opt %s -split-input-file -verify-diagnostics --mt-cast-activations | FileCheck %s

// A tied embedding: the gather stays fp32 and its rows are rounded after;
// the LM head's linear runs in bf16 on its own convert of the table (one
// per use, so each use's gradient returns to fp32 before they are summed);
// the loss reads fp32 logits.
// CHECK-LABEL: func.func @tied
// CHECK-SAME: (%[[TOK:.+]]: tensor<2x8xi32>, %[[MASK:.+]]: tensor<2x8xf32>, %[[WTE:.+]]: tensor<64x16xf32>, %[[B:.+]]: tensor<16xf32>)
// CHECK: %[[E:.+]] = mt.embedding %[[WTE]][%[[TOK]]] : tensor<64x16xf32>, tensor<2x8xi32> -> tensor<2x8x16xf32>
// CHECK: %[[E16:.+]] = mt.convert %[[E]] {mt.layer = 3 : i64} : tensor<2x8x16xf32> -> tensor<2x8x16xbf16>
// CHECK: %[[B16:.+]] = mt.convert %[[B]] {mt.layer = 3 : i64} : tensor<16xf32> -> tensor<16xbf16>
// CHECK: %[[H:.+]] = mt.add %[[E16]], %[[B16]] {mt.layer = 3 : i64} : tensor<2x8x16xbf16>, tensor<16xbf16>
// CHECK: %[[W16:.+]] = mt.convert %[[WTE]] : tensor<64x16xf32> -> tensor<64x16xbf16>
// CHECK: %[[L:.+]] = mt.linear %[[H]], %[[W16]] : tensor<2x8x16xbf16>, tensor<64x16xbf16> -> tensor<2x8x64xbf16>
// CHECK: %[[L32:.+]] = mt.convert %[[L]] : tensor<2x8x64xbf16> -> tensor<2x8x64xf32>
// CHECK: %[[LOSS:.+]] = mt.cross_entropy %[[L32]], %[[TOK]] mask %[[MASK]] : tensor<2x8x64xf32>, tensor<2x8xi32>, tensor<2x8xf32> -> tensor<f32>
// CHECK: return %[[LOSS]] : tensor<f32>
func.func @tied(%tokens: tensor<2x8xi32>, %mask: tensor<2x8xf32>, %wte: tensor<64x16xf32>, %b: tensor<16xf32>) -> tensor<f32> {
  %e = mt.embedding %wte[%tokens] : tensor<64x16xf32>, tensor<2x8xi32> -> tensor<2x8x16xf32>
  %h = mt.add %e, %b {mt.layer = 3 : i64} : tensor<2x8x16xf32>, tensor<16xf32>
  %logits = mt.linear %h, %wte : tensor<2x8x16xf32>, tensor<64x16xf32> -> tensor<2x8x64xf32>
  %loss = mt.cross_entropy %logits, %tokens mask %mask : tensor<2x8x64xf32>, tensor<2x8xi32>, tensor<2x8xf32> -> tensor<f32>
  return %loss : tensor<f32>
}

// -----

// A collective keeps fp32: its 16-bit operand is converted back, and the
// op after it converts its result again.
// CHECK-LABEL: func.func @all_reduce
// CHECK: %[[Y:.+]] = mt.linear %{{.+}}, %{{.+}} : tensor<8x16xbf16>, tensor<16x16xbf16> -> tensor<8x16xbf16>
// CHECK: %[[Y32:.+]] = mt.convert %[[Y]] : tensor<8x16xbf16> -> tensor<8x16xf32>
// CHECK: %[[S:.+]] = mt.all_reduce %[[Y32]] on @mesh
// CHECK: %[[S16:.+]] = mt.convert %[[S]] : tensor<8x16xf32> -> tensor<8x16xbf16>
// CHECK: %[[G:.+]] = mt.gelu %[[S16]] approximate = tanh : tensor<8x16xbf16>
// CHECK: %[[G32:.+]] = mt.convert %[[G]] : tensor<8x16xbf16> -> tensor<8x16xf32>
// CHECK: return %[[G32]] : tensor<8x16xf32>
mt.mesh @mesh axes = ["tp"] shape = [2]
func.func @all_reduce(%x: tensor<8x16xf32>, %w: tensor<16x16xf32>) -> tensor<8x16xf32> {
  %y = mt.linear %x, %w : tensor<8x16xf32>, tensor<16x16xf32> -> tensor<8x16xf32>
  %s = mt.all_reduce %y on @mesh axes = ["tp"] reduction = sum : tensor<8x16xf32>
  %g = mt.gelu %s approximate = tanh : tensor<8x16xf32>
  return %g : tensor<8x16xf32>
}

// -----

// tp-comm-16bit: the collectives of a 16-bit activation move it in bf16 (no
// converts around them); one of fp32 values (the loss's statistics) stays fp32.
// RUN: mt-opt %s -split-input-file -verify-diagnostics --mt-cast-activations="tp-comm-16bit" | FileCheck %s --check-prefix=COMM16
// COMM16-LABEL: func.func @comm16
// COMM16: %[[G:.+]] = mt.all_gather %{{.+}} on @mesh axes = ["tp"] dim = 0 : tensor<4x16xbf16> -> tensor<8x16xbf16>
// COMM16: %[[Y:.+]] = mt.linear %[[G]], %{{.+}} : tensor<8x16xbf16>, tensor<16x16xbf16> -> tensor<8x16xbf16>
// COMM16: %[[R:.+]] = mt.reduce_scatter %[[Y]] on @mesh axes = ["tp"] dim = 0 reduction = sum : tensor<8x16xbf16> -> tensor<4x16xbf16>
// COMM16: %[[S:.+]] = mt.all_reduce %[[R]] on @mesh axes = ["tp"] reduction = sum : tensor<4x16xbf16>
// COMM16: %[[M:.+]] = mt.all_reduce %{{.+}} on @mesh axes = ["tp"] reduction = max : tensor<4xf32>
mt.mesh @mesh axes = ["tp"] shape = [2]
func.func @comm16(%x: tensor<4x16xf32>, %w: tensor<16x16xf32>, %stats: tensor<4xf32>) -> (tensor<4x16xf32>, tensor<4xf32>) {
  %x16 = mt.gelu %x approximate = tanh : tensor<4x16xf32>
  %g = mt.all_gather %x16 on @mesh axes = ["tp"] dim = 0 : tensor<4x16xf32> -> tensor<8x16xf32>
  %y = mt.linear %g, %w : tensor<8x16xf32>, tensor<16x16xf32> -> tensor<8x16xf32>
  %r = mt.reduce_scatter %y on @mesh axes = ["tp"] dim = 0 reduction = sum : tensor<8x16xf32> -> tensor<4x16xf32>
  %s = mt.all_reduce %r on @mesh axes = ["tp"] reduction = sum : tensor<4x16xf32>
  %m = mt.all_reduce %stats on @mesh axes = ["tp"] reduction = max : tensor<4xf32>
  return %s, %m : tensor<4x16xf32>, tensor<4xf32>
}

// -----

// A pointwise op (mt.silu) runs on 16-bit activations like every pointwise op.
// CHECK-LABEL: func.func @pointwise
// CHECK: %[[Y:.+]] = mt.linear %{{.+}}, %{{.+}} : tensor<8x16xbf16>, tensor<16x16xbf16> -> tensor<8x16xbf16>
// CHECK: %[[S:.+]] = mt.silu %[[Y]] : tensor<8x16xbf16>
// CHECK: %[[S32:.+]] = mt.convert %[[S]] : tensor<8x16xbf16> -> tensor<8x16xf32>
// CHECK: return %[[S32]] : tensor<8x16xf32>
func.func @pointwise(%x: tensor<8x16xf32>, %w: tensor<16x16xf32>) -> tensor<8x16xf32> {
  %y = mt.linear %x, %w : tensor<8x16xf32>, tensor<16x16xf32> -> tensor<8x16xf32>
  %s = mt.silu %y : tensor<8x16xf32>
  return %s : tensor<8x16xf32>
}

// -----

// A model already in 16 bits has no fp32 main parameters to keep.
// expected-error @+1 {{mt-cast-activations: the model must be written in f32 (its parameters are the fp32 main copy), but argument 0 is 'tensor<16xbf16>'}}
func.func @bf16_model(%w: tensor<16xbf16>) -> tensor<16xbf16> {
  return %w : tensor<16xbf16>
}

// -----

// fp16 with scale-loss: the function returning the loss takes the scale.
// RUN: mt-opt %s -split-input-file -verify-diagnostics --mt-cast-activations="element-type=f16 scale-loss" | FileCheck %s --check-prefix=FP16
// FP16-LABEL: func.func @loss_fp16
// FP16-SAME: (%{{.+}}: tensor<2x8xf32>, %{{.+}}: tensor<4x8xf32>, %{{.+}}: tensor<2xi32>, %{{.+}}: tensor<f32> {mt.batch = "loss_scale"}) -> tensor<f32>
// FP16: mt.linear %{{.+}}, %{{.+}} : tensor<2x8xf16>, tensor<4x8xf16> -> tensor<2x4xf16>
func.func @loss_fp16(%x: tensor<2x8xf32>, %w: tensor<4x8xf32>, %labels: tensor<2xi32>) -> tensor<f32> {
  %y = mt.linear %x, %w : tensor<2x8xf32>, tensor<4x8xf32> -> tensor<2x4xf32>
  %loss = mt.cross_entropy %y, %labels : tensor<2x4xf32>, tensor<2xi32> -> tensor<f32>
  return %loss : tensor<f32>
}
