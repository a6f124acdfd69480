// A classifier head: the loss of its logits (log-softmax.test compares it
// with the loss of their log-softmax).
func.func @head(
    %x: tensor<3x4x6xf64>, %labels: tensor<3x4xi64>, %mask: tensor<3x4xf64>,
    %w1: tensor<5x6xf64> {mt.param = #mt.param<name = "w1", init = normal, std = 0.5>}) -> tensor<f64> {
  %logits = mt.linear %x, %w1 : tensor<3x4x6xf64>, tensor<5x6xf64> -> tensor<3x4x5xf64>
  %loss = mt.cross_entropy %logits, %labels mask %mask : tensor<3x4x5xf64>, tensor<3x4xi64>, tensor<3x4xf64> -> tensor<f64>
  return %loss : tensor<f64>
}
