// The mt-frontend pipeline is what mtc runs; mt-opt replays it pass by pass.
// RUN: mt-opt %s -mt-frontend=make-vocab-size-divisible-by=4 --mlir-print-ir-after-all -o /dev/null 2>&1 | FileCheck %s

// No label directive here: the function name appears in both dumps.
// CHECK: IR Dump After VerifyModelPass (mt-verify-model)
// CHECK: mt.embedding %{{.*}}[%{{.*}}] : tensor<6x4xf32>
// CHECK: IR Dump After PadVocabPass (mt-pad-vocab)
// CHECK: func.func @m
// CHECK: mt.embedding %{{.*}}[%{{.*}}] : tensor<8x4xf32>
func.func @m(%wte: tensor<6x4xf32> {mt.param = #mt.param<name = "wte", init = zeros>},
             %tokens: tensor<2x3xi32>) -> tensor<f32> {
  %e = mt.embedding %wte[%tokens] : tensor<6x4xf32>, tensor<2x3xi32> -> tensor<2x3x4xf32>
  %logits = mt.linear %e, %wte : tensor<2x3x4xf32>, tensor<6x4xf32> -> tensor<2x3x6xf32>
  %loss = mt.cross_entropy %logits, %tokens : tensor<2x3x6xf32>, tensor<2x3xi32> -> tensor<f32>
  return %loss : tensor<f32>
}
