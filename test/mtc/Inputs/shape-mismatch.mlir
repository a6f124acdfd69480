func.func @f(%x: tensor<2x8xf32>, %w: tensor<4x6xf32>) -> tensor<2x4xf32> {
  %y = mt.linear %x, %w : tensor<2x8xf32>, tensor<4x6xf32> -> tensor<2x4xf32>
  return %y : tensor<2x4xf32>
}
