// RUN: mt-opt %s -split-input-file -verify-diagnostics --mt-check-collectives | FileCheck %s

// Two pipeline stages whose collectives over the pipeline axis match, and
// whose activation types agree: the plan is accepted unchanged.
mt.mesh @mesh axes = ["pp", "tp"] shape = [2, 2]
// CHECK-LABEL: func.func @m_stage0
// CHECK: %[[R:.*]] = mt.all_reduce %{{.*}} on @mesh axes = ["pp"] reduction = sum : tensor<4xf32>
// CHECK: return %[[R]]
func.func @m_stage0(%x: tensor<4xf32>) -> tensor<4xf32> attributes {mt.stage = 0 : i64, mt.num_stages = 2 : i64} {
  %r = mt.all_reduce %x on @mesh axes = ["pp"] reduction = sum : tensor<4xf32>
  return %r : tensor<4xf32>
}
// CHECK-LABEL: func.func @m_stage1
func.func @m_stage1(%x: tensor<4xf32> {mt.stage_input}) -> tensor<f32> attributes {mt.stage = 1 : i64, mt.num_stages = 2 : i64} {
  %r = mt.all_reduce %x on @mesh axes = ["pp"] reduction = sum : tensor<4xf32>
  %t = mt.all_reduce %x on @mesh axes = ["tp"] reduction = sum : tensor<4xf32>
  %z = mt.zeros : tensor<f32>
  return %z : tensor<f32>
}

// -----

// A deliberately mismatched collective: stage 1 reduces 8 elements over the
// pipeline axis where stage 0 reduces 4. The ranks would wait on each other
// forever; the plan is refused, naming both stages and both ops.
mt.mesh @mesh axes = ["pp", "tp"] shape = [2, 2]
func.func @m_stage0(%x: tensor<4xf32>) -> tensor<4xf32> attributes {mt.stage = 0 : i64, mt.num_stages = 2 : i64} {
  // expected-note @+1 {{the other side}}
  %r = mt.all_reduce %x on @mesh axes = ["pp"] reduction = sum : tensor<4xf32>
  return %r : tensor<4xf32>
}
func.func @m_stage1(%x: tensor<4xf32> {mt.stage_input}, %y: tensor<8xf32>) -> tensor<f32> attributes {mt.stage = 1 : i64, mt.num_stages = 2 : i64} {
  // expected-error @+1 {{mt-check-collectives: pipeline stages 0 and 1 (the ranks at pp coordinates 0 and 1) disagree on their collective #0 over the pipeline axis: mt.all_reduce of tensor<4xf32> over [pp] #mt<reduction sum> in @m_stage0 vs mt.all_reduce of tensor<8xf32> over [pp] #mt<reduction sum> in @m_stage1; the run would hang}}
  %r = mt.all_reduce %y on @mesh axes = ["pp"] reduction = sum : tensor<8xf32>
  %z = mt.zeros : tensor<f32>
  return %z : tensor<f32>
}

// -----

// A collective only one stage makes.
mt.mesh @mesh axes = ["pp"] shape = [2]
func.func @m_stage0(%x: tensor<4xf32>) -> tensor<4xf32> attributes {mt.stage = 0 : i64, mt.num_stages = 2 : i64} {
  return %x : tensor<4xf32>
}
func.func @m_stage1(%x: tensor<4xf32> {mt.stage_input}) -> tensor<f32> attributes {mt.stage = 1 : i64, mt.num_stages = 2 : i64} {
  // expected-error @+1 {{disagree on their collective #0 over the pipeline axis: none in @m_stage0 vs mt.all_gather of tensor<4xf32> over [pp] dim 0 in @m_stage1}}
  %g = mt.all_gather %x on @mesh axes = ["pp"] dim = 0 : tensor<4xf32> -> tensor<8xf32>
  %z = mt.zeros : tensor<f32>
  return %z : tensor<f32>
}

// -----

// A send without a matching recv: stage 0 sends 4 elements, stage 1 expects 8.
mt.mesh @mesh axes = ["pp"] shape = [2]
// expected-error @+1 {{mt-check-collectives: stage 0 sends 'tensor<4xf32>' to stage 1, which receives 'tensor<8xf32>'; the send has no matching recv}}
func.func @m_stage0(%x: tensor<4xf32>) -> tensor<4xf32> attributes {mt.stage = 0 : i64, mt.num_stages = 2 : i64} {
  return %x : tensor<4xf32>
}
func.func @m_stage1(%x: tensor<8xf32> {mt.stage_input}) -> tensor<f32> attributes {mt.stage = 1 : i64, mt.num_stages = 2 : i64} {
  %z = mt.zeros : tensor<f32>
  return %z : tensor<f32>
}
