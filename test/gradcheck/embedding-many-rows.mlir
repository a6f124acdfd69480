// The embedding gradient over 8192 rows of 24 ids: enough rows that the
// chains of rows sharing an id are built in blocks linked by a table
// (lib/Conversion/MTToLinalg/IdChains.h), each id in every block.
// RUN: mt-gradcheck %s --samples=24 | FileCheck %s
// CHECK: loss [[LOSS:[0-9.]+]] (forward function: [[LOSS]])
// CHECK: table {{.*}} ok
// CHECK-NOT: FAIL
// CHECK: all gradients agree with finite differences
func.func @embedding_many_rows(
    %ids: tensor<8192xi64>, %labels: tensor<8192xi64>, %mask: tensor<8192xf64>,
    %table: tensor<24x4xf64> {mt.param = #mt.param<name = "table", init = normal, std = 0.5>},
    %out: tensor<4x24xf64> {mt.param = #mt.param<name = "out", init = normal, std = 0.5>}) -> tensor<f64> {
  %x = mt.embedding %table[%ids] : tensor<24x4xf64>, tensor<8192xi64> -> tensor<8192x4xf64>
  %logits = mt.matmul %x, %out : tensor<8192x4xf64>, tensor<4x24xf64> -> tensor<8192x24xf64>
  %loss = mt.cross_entropy %logits, %labels mask %mask : tensor<8192x24xf64>, tensor<8192xi64>, tensor<8192xf64> -> tensor<f64>
  return %loss : tensor<f64>
}
