// The optimizer needs the derived training step.
// RUN: mt-opt %s -mt-build-optimizer -verify-diagnostics

// expected-error @+1 {{mt-build-optimizer: run mt-derive-gradients first}}
func.func @no_grad(%w: tensor<4x8xf32> {mt.param = #mt.param<name = "w", init = zeros>},
                   %x: tensor<2x8xf32>, %labels: tensor<2xi32>) -> tensor<f32> {
  %y = mt.linear %x, %w : tensor<2x8xf32>, tensor<4x8xf32> -> tensor<2x4xf32>
  %loss = mt.cross_entropy %y, %labels : tensor<2x4xf32>, tensor<2xi32> -> tensor<f32>
  return %loss : tensor<f32>
}
